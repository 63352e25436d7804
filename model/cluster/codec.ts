// The explored cluster state as bytes and back (`StateCodec`, for the
// explorer's compact frontier and its fingerprints). Read it beside the
// state's definition in stateMachine.ts: every field is written, except what
// is a function of other fields:
//
// - the log is a prefix of the workload script (boundedHistories.ts), so its
//   length says which; the log array is the one the state machine builds by
//   appending the script's records (interned), so it is shared;
// - a copy's or checkpoint's join state is a function of (key, cursor)
//   (explorerModel.test.ts checks it on every explored state), so it is the
//   join state the reference operator reaches reading the key's records
//   before the cursor (memoized, the same objects processing builds).
//
// Worker ids are not written where the state refers to a worker: the
// worker's own block carries a mark for each reference (owner of a key,
// destination of the last install, source of the last release, source or
// destination of the handoff). So writing the blocks sorted (by their bytes)
// writes a canonical member of the state's class under renaming workers
// (SPEC §6, symmetry): the i-th block read back is the worker of config
// position i.
//
// The identifying bytes leave out the checkpoint store's epoch labels (of the
// stored checkpoint and of the checkpoint a sent install message carries),
// the sink's counters of applied, deduplicated and fenced changes, and the
// text of a recorded violation (whether there is one is identifying). Why
// that is sound: no guard and no effect of any action reads them (install
// and failover restore a checkpoint's join state and cursor, under the epoch
// of the handoff or the coordinator, C6/C8; restart likewise, C10; the sink
// counters are only written, C9; a violation's text is only reported), no
// property, goal, quiescence test or coverage label reads them, and an
// action's successor differs in them only as a function of the state's own
// values there. So the relation "equal except in these fields" is a
// bisimulation that preserves every property, and exploring one member of
// each of its classes gives the same verdicts, the same goals, the same
// coverage and the same shortest counterexample lengths. The rest of the
// bytes carry these fields, so a state read back is the state written.
import type { LogRecord } from '../../spec/index.ts';
import { matchId } from '../../spec/index.ts';
import { ByteReader, ByteWriter, type ByteSuccessors, type StateCodec } from '../explorer/index.ts';
import { initialJoinState, type JoinState } from '../join/join.ts';
import { emptyEntries, type Entries } from '../records.ts';
import type { ClusterModelConfig, ExploredState } from './boundedHistories.ts';
import type {
  Checkpoint,
  ClusterState,
  HandoffPhase,
  HandoffRecord,
  InstallMessage,
  KeyCopy,
  MatchStatus,
  ReleaseMessage,
  WorkerState,
  WorkerStatus,
} from './clusterState.ts';
import { compareBlocks } from './byteState.ts';
import { appendToLog, stepJoinShared } from './stateMachine.ts';

const PHASES: readonly HandoffPhase[] = ['frozen', 'persisted', 'installed', 'fenced', 'committed'];
const STATUSES: readonly WorkerStatus[] = ['up', 'paused', 'down'];

// Marks in a worker's block.
const HANDOFF_SRC = 4;
const HANDOFF_DST = 8;
const COPY = 1;
const FROZEN = 2;
const OWNER = 4;
const INSTALL_DST = 8;
const RELEASE_SRC = 16;

/** The codec of one configuration's explored states; `initial` is the state whose log every state's log extends. */
export class ClusterCodec implements StateCodec<ExploredState> {
  readonly symmetric = true;
  /**
   * The successors of a state on these bytes, without building states (byteSuccessors.ts); set by the
   * explorer model when its configuration is one they cover.
   */
  successors: ByteSuccessors | undefined = undefined;
  private readonly config: ClusterModelConfig;
  private readonly keys: readonly string[];
  private readonly workers: readonly string[];
  /** The log of each length: the script's prefixes, as the state machine builds them. */
  readonly logs: (readonly LogRecord[])[] = [];
  /** Per key (config order), the join state of a copy at each cursor. */
  readonly joins: JoinState[][];
  /** Per key, every match id the script can produce, numbered. */
  private readonly matchIds: string[][];
  readonly matchNumbers: Map<string, number>[];
  // Scratch for the worker blocks: each at i * stride in one array, with its length and where its marks lie.
  private readonly stride: number;
  private readonly blocks: Uint8Array;
  private readonly blockLengths: Int32Array;
  private readonly marksAt: Int32Array;
  /** Per worker: the record its block was last written from. */
  private readonly blockOf: unknown[];
  private readonly order: number[];
  private readonly owner: (string | undefined)[] = [];
  private readonly installDst: (string | undefined)[] = [];
  private readonly releaseSrc: (string | undefined)[] = [];
  private readonly nums: number[] = [];
  // Scratch for reading, and the worker states read last, by position.
  private readonly blockReader = new ByteReader();
  private readonly readCache: ({ readonly bytes: Uint8Array; readonly length: number; readonly state: WorkerState } | undefined)[] = [];
  private readonly storeCursor: number[] = [];
  private readonly installEpoch: number[] = [];
  private readonly installCursor: number[] = [];
  private readonly releaseEpoch: number[] = [];
  /** The bytes of each part as last written, and the object they were written from. */
  private readonly parts = {
    coordinator: new PartCache(),
    sink: new PartCache(),
    ghost: new PartCache(),
    store: new PartCache(),
    messages: new PartCache(),
    workers: new PartCache(),
  };

  constructor(config: ClusterModelConfig, initial: ExploredState) {
    this.config = config;
    this.keys = config.cluster.keys.map((k) => k.key);
    this.workers = config.cluster.workers;
    const script = config.bounds.script;
    let log = initial.cluster.log;
    if (log.length !== 0) throw new Error('the initial state of an explored cluster has an empty log');
    this.logs.push(log);
    for (const record of script) {
      log = appendToLog(log, record);
      this.logs.push(log);
    }
    this.joins = this.keys.map((key) => {
      const at: JoinState[] = [initialJoinState];
      let j = initialJoinState;
      for (const r of script) {
        if (r.kind === 'watermark' || r.key === key) j = stepJoinShared(config.cluster.join, j, r).state;
        at.push(j);
      }
      return at;
    });
    this.matchIds = this.keys.map((key) => {
      const left = new Set<string>();
      const right = new Set<string>();
      for (const r of script) {
        if (r.kind === 'watermark' || r.key !== key) continue;
        (r.side === 'L' ? left : right).add(r.id);
      }
      const ids: string[] = [];
      for (const l of left) for (const r of right) ids.push(matchId(key, l, r));
      return ids.sort();
    });
    this.matchNumbers = this.matchIds.map((ids) => new Map(ids.map((id, i) => [id, i])));
    const n = this.workers.length;
    this.stride = 16 + 16 * this.keys.length;
    this.blocks = new Uint8Array(n * this.stride);
    this.blockLengths = new Int32Array(n);
    this.marksAt = new Int32Array(n * this.keys.length);
    this.blockOf = new Array<unknown>(n).fill(undefined);
    this.order = Array.from({ length: n }, (_, i) => i);
  }

  write(s: ExploredState, out: ByteWriter, symmetric: boolean): void {
    const st = s.cluster;
    const u = s.used;
    out.uint(st.log.length);
    out.uint(u.migrations).uint(u.failovers).uint(u.crashes).uint(u.pauses).uint(u.duplicates).uint(u.checkpoints);
    // Each part is written once per object: a successor shares every part its action did not
    // touch with the state it came from, so most parts are copied from the last write.
    this.coordinatorPart(st, out);
    this.sinkPart(st, out);
    this.ghostPart(st, out);
    this.storePart(st, out);
    this.messagesPart(st, out);
    this.workersPart(st, out, symmetric);
    out.endKey();
    // Not identifying (see above): checkpoint epochs, the sink's counters, the violation's text.
    for (const key of this.keys) {
      const cp = st.store[key];
      if (cp) out.uint(cp.epoch);
      const m = st.lastInstall[key];
      if (m?.checkpoint) out.uint(m.checkpoint.epoch);
    }
    out.uint(st.sink.applied).uint(st.sink.deduped).uint(st.sink.fenced);
    if (st.ghost.violation !== null) out.str(st.ghost.violation);
  }

  /** Up, the handoff (its workers are marked in their blocks), the committed epoch of each key. */
  private coordinatorPart(st: ClusterState, out: ByteWriter): void {
    const part = this.parts.coordinator;
    const c = st.coordinator;
    if (part.of !== c) {
      const w = part.bytes.reset();
      const h = c.handoff;
      w.u8((c.up ? 1 : 0) | (h ? 2 : 0));
      if (h) {
        w.u8((h.kind === 'migrate' ? 0 : 1) | (PHASES.indexOf(h.phase) << 1));
        w.uint(this.keys.indexOf(h.key));
        w.uint(h.from);
      }
      for (const key of this.keys) w.uint(c.epoch[key] ?? 0);
      part.of = c;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** Per key: the fence, then the match entries. */
  private sinkPart(st: ClusterState, out: ByteWriter): void {
    const part = this.parts.sink;
    const sink = st.sink;
    if (part.of !== sink) {
      const w = part.bytes.reset();
      for (let k = 0; k < this.keys.length; k++) {
        const key = this.keys[k] as string;
        w.uint(sink.fence[key] ?? 0);
        this.writeMatches(k, sink.matches[key], w);
      }
      part.of = sink;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** Whether a violation was recorded, and per key the prefix the sink has shown. */
  private ghostPart(st: ClusterState, out: ByteWriter): void {
    const part = this.parts.ghost;
    const ghost = st.ghost;
    if (part.of !== ghost) {
      const w = part.bytes.reset();
      w.u8(ghost.violation !== null ? 1 : 0);
      for (const key of this.keys) w.uint(ghost.prefix[key] ?? 0);
      part.of = ghost;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** Per key: the stored checkpoint's cursor, or none. */
  private storePart(st: ClusterState, out: ByteWriter): void {
    const part = this.parts.store;
    const store = st.store;
    if (part.of !== store) {
      const w = part.bytes.reset();
      for (const key of this.keys) {
        const cp = store[key];
        w.uint(cp ? cp.cursor + 1 : 0);
      }
      part.of = store;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** Per key: the last install message (epoch, its checkpoint's cursor), the last release message (epoch). */
  private messagesPart(st: ClusterState, out: ByteWriter): void {
    const part = this.parts.messages;
    if (part.of !== st.lastInstall || part.also !== st.lastRelease) {
      const w = part.bytes.reset();
      for (const key of this.keys) {
        const m = st.lastInstall[key];
        if (m) w.uint(m.epoch + 1).uint(m.checkpoint ? m.checkpoint.cursor + 1 : 0);
        else w.uint(0);
        const r = st.lastRelease[key];
        w.uint(r ? r.epoch + 1 : 0);
      }
      part.of = st.lastInstall;
      part.also = st.lastRelease;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** A key's sink entries: how many, then each match's number and status, by number. */
  private writeMatches(k: number, matches: Entries<MatchStatus> | undefined, out: ByteWriter): void {
    const nums = this.nums;
    if (nums.length > 0) nums.length = 0;
    const numbers = this.matchNumbers[k] as Map<string, number>;
    for (const id in matches) {
      const n = numbers.get(id);
      if (n === undefined) throw new Error(`match ${id} is not one the workload of ${this.keys[k]} can produce`);
      nums.push(n * 2 + (matches[id] === 'inserted' ? 1 : 0));
    }
    if (nums.length > 1) nums.sort((a, b) => a - b);
    out.uint(nums.length);
    for (const x of nums) out.uint(x);
  }

  /**
   * The workers' blocks: rewritten only when the workers, the coordinator
   * (owners, handoff) or the last messages changed since the last write
   * (records, checkpoints and sink writes touch none of them).
   */
  private workersPart(st: ClusterState, out: ByteWriter, symmetric: boolean): void {
    const part = this.parts.workers;
    if (
      part.of !== st.workers ||
      part.also !== st.coordinator ||
      part.third !== st.lastInstall ||
      part.fourth !== st.lastRelease ||
      part.symmetric !== symmetric
    ) {
      this.writeWorkers(st, part.bytes.reset(), symmetric);
      part.of = st.workers;
      part.also = st.coordinator;
      part.third = st.lastInstall;
      part.fourth = st.lastRelease;
      part.symmetric = symmetric;
    }
    out.copy(part.bytes.bytes, 0, part.bytes.length);
  }

  /** Fills each worker's block (its own part rewritten only when its record changed, then the marks). */
  private buildBlocks(st: ClusterState): void {
    const keys = this.keys;
    const nk = keys.length;
    const workers = this.workers;
    const n = workers.length;
    const h = st.coordinator.handoff;
    const src = h?.src;
    const dst = h?.dst;
    // Whom each key's references point at, looked up once.
    const owner = this.owner;
    const installDst = this.installDst;
    const releaseSrc = this.releaseSrc;
    const ownerOf = st.coordinator.owner;
    for (let k = 0; k < nk; k++) {
      const key = keys[k] as string;
      owner[k] = ownerOf[key];
      installDst[k] = st.lastInstall[key]?.dst;
      releaseSrc[k] = st.lastRelease[key]?.src;
    }
    // Each worker's block at i * stride in one array; its length and where its marks lie beside.
    const blocks = this.blocks;
    const stride = this.stride;
    const lengths = this.blockLengths;
    const markAt = this.marksAt;
    for (let i = 0; i < n; i++) {
      const w = workers[i] as string;
      const ws = st.workers[w] as WorkerState;
      const base = i * stride;
      // The worker's own part (status, copies) is rewritten only when its record changed.
      if (this.blockOf[i] !== ws) {
        let p = base;
        blocks[p++] = ws.status === 'up' ? 0 : ws.status === 'paused' ? 1 : 2;
        for (let k = 0; k < nk; k++) {
          const copy = ws.keys[keys[k] as string];
          markAt[i * nk + k] = p;
          blocks[p++] = copy === undefined ? 0 : copy.frozen ? COPY | FROZEN : COPY;
          if (copy !== undefined) {
            // Cursors and epochs stay below 128 in any bound the explorer exhausts; larger ones take varints.
            p = writeVarint(blocks, p, copy.cursor);
            p = writeVarint(blocks, p, copy.epoch);
          }
        }
        lengths[i] = p - base;
        this.blockOf[i] = ws;
      }
      // The marks of references to this worker.
      blocks[base] = ((blocks[base] as number) & 3) | (src === w ? HANDOFF_SRC : 0) | (dst === w ? HANDOFF_DST : 0);
      for (let k = 0; k < nk; k++) {
        const m = markAt[i * nk + k] as number;
        blocks[m] =
          ((blocks[m] as number) & (COPY | FROZEN)) |
          (owner[k] === w ? OWNER : 0) |
          (installDst[k] === w ? INSTALL_DST : 0) |
          (releaseSrc[k] === w ? RELEASE_SRC : 0);
      }
    }
  }

  private writeWorkers(st: ClusterState, out: ByteWriter, symmetric: boolean): void {
    this.buildBlocks(st);
    const n = this.workers.length;
    const blocks = this.blocks;
    const stride = this.stride;
    const lengths = this.blockLengths;
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = i;
    if (symmetric) {
      // Insertion sort by block bytes: n is small.
      for (let i = 1; i < n; i++) {
        const v = order[i] as number;
        let j = i - 1;
        while (j >= 0 && this.compareBlocks(order[j] as number, v) > 0) {
          order[j + 1] = order[j] as number;
          j--;
        }
        order[j + 1] = v;
      }
    }
    let total = 0;
    for (let i = 0; i < n; i++) total += lengths[i] as number;
    out.ensure(total);
    const bytes = out.bytes;
    let q = out.length;
    for (let r = 0; r < n; r++) {
      const i = order[r] as number;
      const from = i * stride;
      const to = from + (lengths[i] as number);
      for (let p = from; p < to; p++) bytes[q++] = blocks[p] as number;
    }
    out.length = q;
  }

  private compareBlocks(a: number, b: number): number {
    return compareBlocks(this.blocks, this.blockLengths, this.stride, a, b);
  }

  read(input: ByteReader): ExploredState {
    const keys = this.keys;
    const workers = this.workers;
    const logLength = input.uint();
    const log = this.logs[logLength];
    if (log === undefined) throw new Error(`an encoded state has a log of ${logLength} records; the workload has ${this.logs.length - 1}`);
    const used = {
      migrations: input.uint(),
      failovers: input.uint(),
      crashes: input.uint(),
      pauses: input.uint(),
      duplicates: input.uint(),
      checkpoints: input.uint(),
    };
    const flags = input.u8();
    let handoffKind: HandoffRecord['kind'] = 'migrate';
    let handoffPhase: HandoffPhase = 'frozen';
    let handoffKey = '';
    let handoffFrom = 0;
    if ((flags & 2) !== 0) {
      const b = input.u8();
      handoffKind = (b & 1) === 0 ? 'migrate' : 'failover';
      handoffPhase = PHASES[b >> 1] as HandoffPhase;
      handoffKey = keys[input.uint()] as string;
      handoffFrom = input.uint();
    }
    const epoch = emptyEntries<number>();
    for (const key of keys) epoch[key] = input.uint();
    const fence = emptyEntries<number>();
    const matches = emptyEntries<Entries<MatchStatus>>();
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      fence[key] = input.uint();
      const ids = this.matchIds[k] as string[];
      const entries = emptyEntries<MatchStatus>();
      for (let i = input.uint(); i > 0; i--) {
        const x = input.uint();
        entries[ids[x >> 1] as string] = (x & 1) === 1 ? 'inserted' : 'retracted';
      }
      matches[key] = entries;
    }
    const violated = input.u8() === 1;
    const prefix = emptyEntries<number>();
    for (const key of keys) prefix[key] = input.uint();
    const storeCursor = this.storeCursor;
    for (let k = 0; k < keys.length; k++) storeCursor[k] = input.uint();
    const installEpoch = this.installEpoch;
    const installCursor = this.installCursor;
    const releaseEpoch = this.releaseEpoch;
    for (let k = 0; k < keys.length; k++) {
      const m = input.uint();
      installEpoch[k] = m;
      installCursor[k] = m === 0 ? 0 : input.uint();
      releaseEpoch[k] = input.uint();
    }
    const owner = emptyEntries<string>();
    const workerStates = emptyEntries<WorkerState>();
    const installDst = this.installDst;
    const releaseSrc = this.releaseSrc;
    installDst.fill(undefined);
    releaseSrc.fill(undefined);
    let src = '';
    let dst = '';
    for (let r = 0; r < workers.length; r++) {
      const w = workers[r] as string;
      const start = input.pos;
      const b = input.u8();
      if ((b & HANDOFF_SRC) !== 0) src = w;
      if ((b & HANDOFF_DST) !== 0) dst = w;
      for (let k = 0; k < keys.length; k++) {
        const marks = input.u8();
        if ((marks & OWNER) !== 0) owner[keys[k] as string] = w;
        if ((marks & INSTALL_DST) !== 0) installDst[k] = w;
        if ((marks & RELEASE_SRC) !== 0) releaseSrc[k] = w;
        if ((marks & COPY) !== 0) {
          input.uint();
          input.uint();
        }
      }
      workerStates[w] = this.workerRead(r, input.bytes, start, input.pos);
    }
    const store = emptyEntries<Checkpoint>();
    const lastInstall = emptyEntries<InstallMessage>();
    const lastRelease = emptyEntries<ReleaseMessage>();
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      const sc = storeCursor[k] as number;
      if (sc !== 0) store[key] = { epoch: input.uint(), cursor: sc - 1, join: this.joinAt(k, sc - 1) };
      const me = installEpoch[k] as number;
      if (me !== 0) {
        const mc = installCursor[k] as number;
        const checkpoint = mc === 0 ? null : { epoch: input.uint(), cursor: mc - 1, join: this.joinAt(k, mc - 1) };
        lastInstall[key] = { key, dst: installDst[k] as string, epoch: me - 1, checkpoint };
      }
      const re = releaseEpoch[k] as number;
      if (re !== 0) lastRelease[key] = { key, src: releaseSrc[k] as string, epoch: re - 1 };
    }
    const applied = input.uint();
    const deduped = input.uint();
    const fenced = input.uint();
    const violation = violated ? input.str() : null;
    const handoff: HandoffRecord | null =
      (flags & 2) !== 0 ? { kind: handoffKind, key: handoffKey, src, dst, from: handoffFrom, phase: handoffPhase } : null;
    return {
      cluster: {
        log,
        coordinator: { up: (flags & 1) !== 0, owner, epoch, handoff },
        store,
        sink: { matches, fence, applied, deduped, fenced },
        workers: workerStates,
        lastInstall,
        lastRelease,
        ghost: { prefix, violation },
      },
      used,
    };
  }

  /**
   * The worker state of block `bytes[start .. end)`, at position `r`: the
   * object read last time at that position when the bytes are the same
   * (worker states are immutable, and the states of one frontier segment
   * share most of them), else a new one.
   */
  private workerRead(r: number, bytes: Uint8Array<ArrayBufferLike>, start: number, end: number): WorkerState {
    const cached = this.readCache[r];
    if (cached && cached.length === end - start) {
      let same = true;
      for (let i = 0; i < cached.length; i++) {
        // The marks of references to the worker are not part of its state.
        const mask = i === 0 ? 3 : 0xff;
        if (((cached.bytes[i] as number) & mask) !== ((bytes[start + i] as number) & mask)) {
          same = false;
          break;
        }
      }
      if (same) return cached.state;
    }
    const keys = this.keys;
    const reader = this.blockReader.reset(bytes, start, end);
    const b = reader.u8();
    const copies = emptyEntries<KeyCopy>();
    for (let k = 0; k < keys.length; k++) {
      const marks = reader.u8();
      if ((marks & COPY) !== 0) {
        const cursor = reader.uint();
        copies[keys[k] as string] = { join: this.joinAt(k, cursor), cursor, epoch: reader.uint(), frozen: (marks & FROZEN) !== 0 };
      }
    }
    const state: WorkerState = { status: STATUSES[b & 3] as WorkerStatus, keys: copies };
    this.readCache[r] = { bytes: bytes.slice(start, end), length: end - start, state };
    return state;
  }

  private joinAt(k: number, cursor: number): JoinState {
    const j = this.joins[k]?.[cursor];
    if (j === undefined)
      throw new Error(
        `an encoded copy of ${this.keys[k]} has cursor ${cursor}, past the workload of ${this.config.bounds.script.length} records`,
      );
    return j;
  }
}

/** The bytes of one part of the state as last written, and the objects it was written from. */
class PartCache {
  of: unknown = undefined;
  also: unknown = undefined;
  third: unknown = undefined;
  fourth: unknown = undefined;
  symmetric = false;
  readonly bytes = new ByteWriter(64);
}

function writeVarint(b: Uint8Array, at: number, x: number): number {
  let p = at;
  let v = x;
  while (v >= 0x80) {
    b[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  b[p++] = v;
  return p;
}
