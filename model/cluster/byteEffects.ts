// The effects of the cluster's actions on the integers of a state
// (byteState.ts), for the successors computed on bytes (byteSuccessors.ts):
// stateMachine.ts `transition` and sink.ts `sinkWrite` written again on
// numbers. Those files are the definition; byteSuccessors.test.ts checks
// that these agree with them on every state of a preset.
import type { LogRecord } from '../../spec/index.ts';
import { validityOf } from '../join/join.ts';
import type { ClusterModelConfig } from './boundedHistories.ts';
import { isDeclaredKey, off } from './clusterState.ts';
import type { ClusterCodec } from './codec.ts';
import { relationHistory } from './oracleTimeline.ts';
import { stepJoinShared } from './stateMachine.ts';
import {
  APPLIED,
  ByteState,
  CHECKPOINTS,
  COPY_EPOCH,
  CRASHES,
  CURSOR,
  DEDUPED,
  DUPLICATES,
  EPOCH,
  FAILOVERS,
  FENCE,
  FENCED_WRITES,
  FROZEN_COPY,
  H,
  H_DST,
  H_FROM,
  H_KEY,
  H_KIND,
  H_PHASE,
  H_SRC,
  HAS,
  INSTALL_CP_EPOCH,
  INSTALL_CURSOR,
  INSTALL_EPOCH,
  INSTALL_TO,
  L,
  MATCHES,
  MIGRATIONS,
  OWNER_OF,
  PAUSES,
  PHASE_COMMITTED,
  PHASE_FENCED,
  PHASE_FROZEN,
  PHASE_INSTALLED,
  PHASE_PERSISTED,
  PREFIX,
  RELEASE_EPOCH,
  RELEASE_FROM,
  STORE_CURSOR,
  STORE_EPOCH,
  UP,
} from './byteState.ts';

// Actions, as (type, key, worker, crash-after-fence); a node of -1 is the coordinator.
export const RECORD = 0;
export const PROCESS = 1;
export const CHECKPOINT = 2;
export const PERSIST = 3;
export const INSTALL = 4;
export const COMMIT = 5;
export const RELEASE = 6;
export const ABORT = 7;
export const FREEZE = 8;
export const FAILOVER = 9;
export const DUPLICATE_INSTALL = 10;
export const DUPLICATE_RELEASE = 11;
export const RESTART = 12;
export const CRASH = 13;
export const PAUSE = 14;
export const RESUME = 15;

/** The oracle's relation for one key over a log prefix: from `start` to `end` (inclusive) the set `ids` (match numbers, -1 for one not numbered). */
export interface RelationSpan {
  readonly start: number;
  readonly end: number;
  readonly ids: Int32Array;
}

/** A configuration's tables (per key and script position) and the effects of actions on a state's integers. */
export class ByteEffects extends ByteState {
  protected readonly config: ClusterModelConfig;
  protected readonly codec: ClusterCodec;
  protected readonly script: readonly LogRecord[];
  /** Per key, per script position: the first position at or after it holding a record the key reads (C3). */
  protected readonly nextRelevant: Int32Array[];
  /** Per key, per script position of a record it reads: the sink changes, as match number * 2 + (1 for insert). */
  private readonly changes: Int32Array[][];
  /** Per script position: whether the record is appended (valid, of a declared key: C3), else refused. */
  private readonly appends: boolean[];
  /** Per log length, per key: the oracle's relation over each prefix (built on first use). */
  private readonly spans: (RelationSpan[][] | undefined)[];
  /** The protocol elements switched on (clusterState.ts `PROTOCOL_ELEMENTS`). */
  protected readonly persistBeforeCommit: boolean;
  private readonly installEpochCheck: boolean;
  private readonly releaseEpochCheck: boolean;
  private readonly sinkFence: boolean;
  private readonly sinkDedup: boolean;
  private readonly terminalRetract: boolean;

  constructor(config: ClusterModelConfig, codec: ClusterCodec) {
    const keys = config.cluster.keys.map((k) => k.key);
    super(keys.length, config.cluster.workers.length, Math.max(0, ...codec.matchNumbers.map((m) => m.size)));
    this.config = config;
    this.codec = codec;
    this.script = config.bounds.script;
    this.persistBeforeCommit = !off(config.cluster, 'persist-before-commit');
    this.installEpochCheck = !off(config.cluster, 'install-epoch-check');
    this.releaseEpochCheck = !off(config.cluster, 'release-epoch-check');
    this.sinkFence = !off(config.cluster, 'sink-fence');
    this.sinkDedup = !off(config.cluster, 'sink-dedup');
    this.terminalRetract = !off(config.cluster, 'terminal-retract');
    const n = this.script.length;
    this.appends = this.script.map(
      (r) => validityOf(r, config.cluster.join) === undefined && (r.kind === 'watermark' || isDeclaredKey(config.cluster, r.key)),
    );
    this.nextRelevant = keys.map((key) => {
      const at = new Int32Array(n + 1).fill(n);
      for (let i = n - 1; i >= 0; i--) {
        const r = this.script[i] as LogRecord;
        at[i] = r.kind === 'watermark' || r.key === key ? i : (at[i + 1] as number);
      }
      return at;
    });
    this.changes = keys.map((key, k) =>
      this.script.map((r, i) => {
        if (r.kind !== 'watermark' && r.key !== key) return new Int32Array(0);
        const step = stepJoinShared(config.cluster.join, codec.joins[k]?.[i] as never, r);
        const numbers = codec.matchNumbers[k] as Map<string, number>;
        return Int32Array.from(step.changes, (c) => {
          const m = numbers.get(c.match);
          if (m === undefined) throw new Error(`match ${c.match} is not one the workload of ${key} can produce`);
          return m * 2 + (c.op === 'insert' ? 1 : 0);
        });
      }),
    );
    this.spans = new Array<RelationSpan[][] | undefined>(n + 1).fill(undefined);
  }

  protected apply(s: Int32Array, type: number, k: number, node: number, crash: number): boolean {
    switch (type) {
      case RECORD:
        if (this.appends[s[L] as number]) s[L] = (s[L] as number) + 1;
        return true;
      case PROCESS:
        return this.process(s, node, k);
      case CHECKPOINT: {
        // C4: a periodic checkpoint of an active copy.
        const c = this.copyAt(node, k);
        this.store(s, k, s[c + CURSOR] as number, s[c + COPY_EPOCH] as number);
        s[CHECKPOINTS] = (s[CHECKPOINTS] as number) + 1;
        return true;
      }
      case PERSIST: {
        const c = this.copyAt(s[H_SRC] as number, k);
        this.store(s, k, s[c + CURSOR] as number, s[c + COPY_EPOCH] as number);
        s[H_PHASE] = PHASE_PERSISTED;
        return true;
      }
      case INSTALL: {
        // C6: send the latest durable checkpoint; the destination applies the epoch check.
        const at = this.keyAt(k);
        s[at + INSTALL_EPOCH] = (s[H_FROM] as number) + 2;
        s[at + INSTALL_CURSOR] = s[at + STORE_CURSOR] as number;
        s[at + INSTALL_CP_EPOCH] = s[at + STORE_CURSOR] !== 0 ? (s[at + STORE_EPOCH] as number) : 0;
        s[at + INSTALL_TO] = s[H_DST] as number;
        this.deliverInstall(s, k);
        if (s[H_PHASE] !== PHASE_FENCED) s[H_PHASE] = PHASE_INSTALLED;
        return true;
      }
      case DUPLICATE_INSTALL:
        this.deliverInstall(s, k);
        s[DUPLICATES] = (s[DUPLICATES] as number) + 1;
        return true;
      case DUPLICATE_RELEASE:
        this.deliverRelease(s, k);
        s[DUPLICATES] = (s[DUPLICATES] as number) + 1;
        return true;
      case COMMIT:
        // C7: the fence first, then ownership; a crash may fall between.
        if (s[H_PHASE] === PHASE_INSTALLED) {
          this.raiseFence(s, k, (s[H_FROM] as number) + 1);
          s[H_PHASE] = PHASE_FENCED;
          if (crash) {
            s[UP] = 0;
            s[CRASHES] = (s[CRASHES] as number) + 1;
            return true;
          }
        }
        this.ownership(s, k);
        return true;
      case RELEASE: {
        const at = this.keyAt(k);
        s[at + RELEASE_EPOCH] = (s[H_FROM] as number) + 1;
        s[at + RELEASE_FROM] = s[H_SRC] as number;
        this.endHandoff(s);
        if (this.status(s, s[at + RELEASE_FROM] as number) === 0) this.deliverRelease(s, k);
        return true;
      }
      case ABORT: {
        // C5: before the fence: the source goes on under the old epoch, a frozen installed copy is dropped.
        const src = s[H_SRC] as number;
        const dst = s[H_DST] as number;
        const from = s[H_FROM] as number;
        this.endHandoff(s);
        const sc = this.copyAt(src, k);
        if (this.status(s, src) === 0 && s[sc + HAS] !== 0 && s[sc + FROZEN_COPY] !== 0 && s[sc + COPY_EPOCH] === from)
          s[sc + FROZEN_COPY] = 0;
        const dc = this.copyAt(dst, k);
        if (this.status(s, dst) === 0 && s[dc + HAS] !== 0 && s[dc + FROZEN_COPY] !== 0 && s[dc + COPY_EPOCH] === from + 1)
          this.drop(s, dst, k);
        return true;
      }
      case FREEZE: {
        // C5: record the handoff durably and stop the source.
        const src = s[this.keyAt(k) + OWNER_OF] as number;
        this.beginHandoff(s, 0, PHASE_FROZEN, k, src, node);
        s[this.copyAt(src, k) + FROZEN_COPY] = 1;
        s[MIGRATIONS] = (s[MIGRATIONS] as number) + 1;
        return true;
      }
      case FAILOVER: {
        // C8: fence first, then ownership moves to a live worker that restores the checkpoint.
        const from = s[this.keyAt(k) + EPOCH] as number;
        this.raiseFence(s, k, from + 1);
        this.beginHandoff(s, 1, PHASE_FENCED, k, s[this.keyAt(k) + OWNER_OF] as number, node);
        s[FAILOVERS] = (s[FAILOVERS] as number) + 1;
        if (crash) {
          s[UP] = 0;
          s[CRASHES] = (s[CRASHES] as number) + 1;
          return true;
        }
        this.ownership(s, k);
        return true;
      }
      case CRASH:
        // C10: a crash loses all volatile state of the node.
        s[CRASHES] = (s[CRASHES] as number) + 1;
        if (node < 0) s[UP] = 0;
        else {
          s[this.workerAt(node)] = 2;
          for (let key = 0; key < this.nk; key++) this.drop(s, node, key);
        }
        return true;
      case RESTART:
        if (node < 0) s[UP] = 1;
        else this.restart(s, node);
        return true;
      case PAUSE:
        s[this.workerAt(node)] = 1;
        s[PAUSES] = (s[PAUSES] as number) + 1;
        return true;
      default:
        s[this.workerAt(node)] = 0;
        return true;
    }
  }

  protected store(s: Int32Array, k: number, cursor: number, epoch: number): void {
    const at = this.keyAt(k);
    s[at + STORE_CURSOR] = cursor + 1;
    s[at + STORE_EPOCH] = epoch;
  }

  protected beginHandoff(s: Int32Array, kind: number, phase: number, k: number, src: number, dst: number): void {
    s[H] = 1;
    s[H_KIND] = kind;
    s[H_PHASE] = phase;
    s[H_KEY] = k;
    s[H_FROM] = s[this.keyAt(k) + EPOCH] as number;
    s[H_SRC] = src;
    s[H_DST] = dst;
  }

  protected endHandoff(s: Int32Array): void {
    s[H] = 0;
    s[H_KIND] = 0;
    s[H_PHASE] = 0;
    s[H_KEY] = 0;
    s[H_FROM] = 0;
    s[H_SRC] = -1;
    s[H_DST] = -1;
  }

  protected drop(s: Int32Array, w: number, k: number): void {
    const c = this.copyAt(w, k);
    s[c + HAS] = 0;
    s[c + CURSOR] = 0;
    s[c + COPY_EPOCH] = 0;
    s[c + FROZEN_COPY] = 0;
  }

  protected put(s: Int32Array, w: number, k: number, cursor: number, epoch: number, frozen: number): void {
    const c = this.copyAt(w, k);
    s[c + HAS] = 1;
    s[c + CURSOR] = cursor;
    s[c + COPY_EPOCH] = epoch;
    s[c + FROZEN_COPY] = frozen;
  }

  protected raiseFence(s: Int32Array, k: number, epoch: number): void {
    const at = this.keyAt(k) + FENCE;
    if (epoch > (s[at] as number)) s[at] = epoch;
  }

  /** C6: the last install message of `k` reaches its destination, which refuses an epoch it has or passed. */
  protected deliverInstall(s: Int32Array, k: number): void {
    const at = this.keyAt(k);
    const dst = s[at + INSTALL_TO] as number;
    const epoch = (s[at + INSTALL_EPOCH] as number) - 1;
    const c = this.copyAt(dst, k);
    if (s[c + HAS] !== 0 && (s[c + COPY_EPOCH] as number) >= epoch && this.installEpochCheck) return;
    const cursor = s[at + INSTALL_CURSOR] as number;
    this.put(s, dst, k, cursor === 0 ? 0 : cursor - 1, epoch, 1);
  }

  /** C7: the source drops the key only if its copy is still of the released epoch. */
  protected deliverRelease(s: Int32Array, k: number): void {
    const at = this.keyAt(k);
    const src = s[at + RELEASE_FROM] as number;
    const c = this.copyAt(src, k);
    if (s[c + HAS] !== 0 && (s[c + COPY_EPOCH] === (s[at + RELEASE_EPOCH] as number) - 1 || !this.releaseEpochCheck)) this.drop(s, src, k);
  }

  /** C7/C8 second part: ownership and epoch; the new owner starts (migrate) or restores (failover). */
  protected ownership(s: Int32Array, k: number): void {
    const at = this.keyAt(k);
    const dst = s[H_DST] as number;
    const epoch = (s[H_FROM] as number) + 1;
    s[at + OWNER_OF] = dst;
    s[at + EPOCH] = epoch;
    if (s[H_KIND] === 0) {
      s[H_PHASE] = PHASE_COMMITTED;
      s[this.copyAt(dst, k) + FROZEN_COPY] = 0;
    } else {
      this.endHandoff(s);
      if (this.status(s, dst) === 0) {
        const cursor = s[at + STORE_CURSOR] as number;
        this.put(s, dst, k, cursor === 0 ? 0 : cursor - 1, epoch, 0);
      }
    }
  }

  /** C10: a restarted worker recovers every key the ownership table gives it, from the latest checkpoint. */
  protected restart(s: Int32Array, w: number): void {
    s[this.workerAt(w)] = 0;
    for (let k = 0; k < this.nk; k++) {
      const at = this.keyAt(k);
      if (s[at + OWNER_OF] !== w) {
        this.drop(s, w, k);
        continue;
      }
      const cursor = s[at + STORE_CURSOR] as number;
      this.put(s, w, k, cursor === 0 ? 0 : cursor - 1, s[at + EPOCH] as number, 0);
    }
  }

  /** C3/C9: the copy reads its next relevant record and writes the changes (sinkWrite); false on a violation. */
  protected process(s: Int32Array, w: number, k: number): boolean {
    const c = this.copyAt(w, k);
    const index = (this.nextRelevant[k] as Int32Array)[s[c + CURSOR] as number] as number;
    const epoch = s[c + COPY_EPOCH] as number;
    s[c + CURSOR] = index + 1;
    const changes = (this.changes[k] as Int32Array[])[index] as Int32Array;
    if (changes.length === 0) return true;
    const at = this.keyAt(k);
    const highest = s[at + FENCE] as number;
    if (epoch < highest && this.sinkFence) {
      // C9: fenced: the writer has lost the key; it stops and forgets it.
      s[FENCED_WRITES] = (s[FENCED_WRITES] as number) + changes.length;
      this.drop(s, w, k);
      return true;
    }
    if (epoch < (s[at + EPOCH] as number)) return false; // Fenced: a write applied after a later epoch was committed
    let applied = s[APPLIED] as number;
    let deduped = s[DEDUPED] as number;
    for (let i = 0; i < changes.length; i++) {
      const x = changes[i] as number;
      const m = at + MATCHES + (x >> 1);
      const now = s[m] as number;
      if ((x & 1) === 1) {
        // insert: absent -> inserted; a repeat, or one after the retract (terminal), is ignored.
        if (now === 0) {
          s[m] = 1;
          applied++;
        } else if ((now === 1 && !this.sinkDedup) || (now === 2 && !this.terminalRetract))
          return false; // ExactlyOnce
        else deduped++;
      } else if (now === 2) {
        if (!this.sinkDedup) return false; // ExactlyOnce: a retract applied twice
        deduped++;
      } else {
        s[m] = 2;
        applied++;
      }
    }
    s[APPLIED] = applied;
    s[DEDUPED] = deduped;
    if (epoch > highest) s[at + FENCE] = epoch;
    // Ghost (ExactlyOnce): the shortest prefix at or after the one shown before whose oracle relation the sink shows.
    const p = this.prefixShowing(s, k);
    if (p < 0) return false;
    s[at + PREFIX] = p;
    return true;
  }

  /** prefixShowing (oracleTimeline.ts) of the sink's relation for `k`; -1 for none. */
  protected prefixShowing(s: Int32Array, k: number): number {
    const at = this.keyAt(k);
    const from = s[at + PREFIX] as number;
    for (const span of this.spansOf(s[L] as number)[k] as RelationSpan[]) {
      if (span.end >= from && this.shows(s, k, span.ids)) return Math.max(span.start, from);
    }
    return -1;
  }

  /** Whether the sink's relation for `k` (its inserted matches) is the set `ids`. */
  protected shows(s: Int32Array, k: number, ids: Int32Array): boolean {
    const at = this.keyAt(k);
    let shown = 0;
    for (let m = at + MATCHES; m < at + this.keyStride; m++) if (s[m] === 1) shown++;
    if (ids.length !== shown) return false;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      if (id < 0 || s[at + MATCHES + id] !== 1) return false;
    }
    return true;
  }

  protected spansOf(log: number): RelationSpan[][] {
    let byKey = this.spans[log];
    if (byKey === undefined) {
      byKey = this.relationSpans(log);
      this.spans[log] = byKey;
    }
    return byKey;
  }

  protected relationSpans(log: number): RelationSpan[][] {
    const records = this.codec.logs[log] as readonly LogRecord[];
    return this.config.cluster.keys.map(({ key }, k) => {
      const h = relationHistory(this.config.cluster.join, records, key);
      const numbers = this.codec.matchNumbers[k] as Map<string, number>;
      return h.at.map((start, i) => ({
        start,
        end: i + 1 < h.at.length ? (h.at[i + 1] as number) - 1 : log,
        ids: Int32Array.from(h.ids[i] as ReadonlySet<string>, (id) => numbers.get(id) ?? -1),
      }));
    });
  }
}
