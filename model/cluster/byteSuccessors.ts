// The explored cluster's successors computed on the codec's bytes (codec.ts),
// for the explorer's search: a state's bytes are read into one array of small
// integers, each enabled action is applied to a copy of it, and the copy is
// written back as bytes; no state object is built. This is a second writing
// of the guards (guards.ts), the effects (stateMachine.ts), the sink
// (sink.ts), the budgets and the coverage labels (boundedHistories.ts,
// explorerModel.ts) on numbers: those files are the definition, this one
// must agree with them. byteSuccessors.test.ts checks, on every state of a
// preset, that its successors and their labels equal those of the object
// path, byte for byte (the property ByteSuccessorsAgree).
//
// Covered: every configuration that tracks the ghost (the explorer's), with
// any protocol elements switched off (§6, Necessity). A state that carries a
// violation, and a step that would record one, take the object path (decode,
// `nextExplored`, encode): the violation's text is built there.
import type { LogRecord } from '../../spec/index.ts';
import { ByteReader, type ByteSuccessors, type ByteWriter } from '../explorer/index.ts';
import { copyRetains, enabledClusterActions, nextExplored, type ClusterModelConfig } from './boundedHistories.ts';
import type { ClusterCodec } from './codec.ts';
import type { ClusterGoalKind } from './explorerModel.ts';
import {
  ABORT,
  ByteEffects,
  CHECKPOINT,
  COMMIT,
  CRASH,
  DUPLICATE_INSTALL,
  DUPLICATE_RELEASE,
  FAILOVER,
  FREEZE,
  INSTALL,
  PAUSE,
  PERSIST,
  PROCESS,
  RECORD,
  RELEASE,
  RESTART,
  RESUME,
  type RelationSpan,
} from './byteEffects.ts';
import {
  CHECKPOINTS,
  COPY_EPOCH,
  CRASHES,
  CURSOR,
  DUPLICATES,
  EPOCH,
  FAILOVERS,
  FENCE,
  FROZEN_COPY,
  H,
  H_DST,
  H_FROM,
  H_KEY,
  H_KIND,
  H_PHASE,
  H_SRC,
  HAS,
  INSTALL_EPOCH,
  INSTALL_TO,
  L,
  MIGRATIONS,
  OWNER_OF,
  PAUSES,
  PHASE_COMMITTED,
  PHASE_FENCED,
  PHASE_FROZEN,
  PHASE_INSTALLED,
  PHASE_NAMES,
  PHASE_PERSISTED,
  RELEASE_EPOCH,
  RELEASE_FROM,
  UP,
} from './byteState.ts';

/**
 * The byte successors of a configuration, or undefined when it is one they do not cover (see
 * above); `goals` are the kinds of `standsFor.goals`, in their order.
 */
export function byteSuccessorsFor(
  config: ClusterModelConfig,
  codec: ClusterCodec,
  standsFor: ByteSuccessors['standsFor'],
  goals: readonly ClusterGoalKind[],
): ByteSuccessors | undefined {
  if (config.cluster.checkProperties === false) return undefined;
  return new ClusterByteSuccessors(config, codec, standsFor, goals);
}

// The coverage labels by number (`kindNames`): those of one text first, then commit's by the
// handoff's phase, then crash's by role (coordinator, src, dst, owner, idle) and where the crash
// falls (steady, or the handoff's kind and phase).
const SINGLE_LABELS = [
  'record',
  'process',
  'process:fenced',
  'checkpoint',
  'persist',
  'install',
  'install(retry)',
  'commit+crash-after-fence',
  'release',
  'abort',
  'freeze',
  'failover',
  'failover+crash-after-fence',
  'duplicateInstall',
  'duplicateInstall:refused',
  'duplicateRelease',
  'restart:coordinator',
  'restart:worker',
  'pause',
  'resume',
] as const;
const labelNumber = (label: (typeof SINGLE_LABELS)[number]): number => SINGLE_LABELS.indexOf(label);
const RECORD_LABEL = labelNumber('record');
const PROCESS_LABEL = labelNumber('process');
const PROCESS_FENCED_LABEL = labelNumber('process:fenced');
const CHECKPOINT_LABEL = labelNumber('checkpoint');
const PERSIST_LABEL = labelNumber('persist');
const INSTALL_LABEL = labelNumber('install');
const INSTALL_RETRY_LABEL = labelNumber('install(retry)');
const COMMIT_CRASH_LABEL = labelNumber('commit+crash-after-fence');
const RELEASE_LABEL = labelNumber('release');
const ABORT_LABEL = labelNumber('abort');
const FREEZE_LABEL = labelNumber('freeze');
const FAILOVER_LABEL = labelNumber('failover');
const FAILOVER_CRASH_LABEL = labelNumber('failover+crash-after-fence');
const DUPLICATE_INSTALL_LABEL = labelNumber('duplicateInstall');
const DUPLICATE_INSTALL_REFUSED_LABEL = labelNumber('duplicateInstall:refused');
const DUPLICATE_RELEASE_LABEL = labelNumber('duplicateRelease');
const RESTART_COORDINATOR_LABEL = labelNumber('restart:coordinator');
const RESTART_WORKER_LABEL = labelNumber('restart:worker');
const PAUSE_LABEL = labelNumber('pause');
const RESUME_LABEL = labelNumber('resume');
/** commit@phase is COMMIT_LABELS + the phase's number. */
const COMMIT_LABELS = SINGLE_LABELS.length;
/** A crash's label is CRASH_LABELS + role * CRASH_PLACES + its place (0 steady, then 1 + kind * 5 + phase). */
const CRASH_LABELS = COMMIT_LABELS + PHASE_NAMES.length;
const CRASH_ROLES = ['coordinator', 'src', 'dst', 'owner', 'idle'] as const;
const CRASH_PLACES = 1 + 2 * PHASE_NAMES.length;
const LABELS: readonly string[] = [
  ...SINGLE_LABELS,
  ...PHASE_NAMES.map((p) => `commit@${p}`),
  ...CRASH_ROLES.flatMap((role) => [
    `crash:${role}@steady`,
    ...['migrate', 'failover'].flatMap((kind) => PHASE_NAMES.map((p) => `crash:${role}@${kind}@${p}`)),
  ]),
];

class ClusterByteSuccessors extends ByteEffects implements ByteSuccessors {
  // The loaded state, its bytes, its actions (4 integers each) and the successor being built.
  private readonly cur: Int32Array;
  private readonly next: Int32Array;
  private acts = new Int32Array(64 * 4);
  private count = 0;
  private parentBytes = new Uint8Array(256);
  private parentLength = 0;
  private readonly parentReader = new ByteReader();
  /** Whether the successor last written or judged was built here (else by the object path), and whether it is quiescent. */
  private lastOnBytes = false;
  /** The action of the successor in `next` (-1: none since the state was loaded). */
  private lastAction = -1;
  private lastQuiescent = false;
  /** Per key, per cursor: whether a copy there retains what J8 prescribes. */
  private readonly boundedMemo: (boolean | undefined)[][];
  readonly kindNames = LABELS;
  private readonly bounds: ClusterModelConfig['bounds'];

  constructor(
    config: ClusterModelConfig,
    codec: ClusterCodec,
    readonly standsFor: ByteSuccessors['standsFor'],
    private readonly goals: readonly ClusterGoalKind[],
  ) {
    super(config, codec);
    this.bounds = config.bounds;
    this.cur = new Int32Array(this.size);
    this.next = new Int32Array(this.size);
    this.boundedMemo = config.cluster.keys.map(() => []);
  }

  load(input: ByteReader): number {
    const len = input.end - input.pos;
    if (this.parentBytes.length < len) this.parentBytes = new Uint8Array(len * 2);
    this.parentBytes.set(input.bytes.subarray(input.pos, input.end));
    this.parentLength = len;
    this.lastAction = -1;
    // A state that carries a violation is left to the object path: its successors carry the text.
    if (!this.decode(this.parentReader.reset(this.parentBytes, 0, len), this.cur)) return -1;
    this.enable();
    return this.count;
  }

  // -------------------------------------------------------------------------
  // Enabled actions: enabledClusterActions (boundedHistories.ts) with the guards of guards.ts, in its order.

  private push(type: number, key: number, node: number, crash: number): void {
    if (this.acts.length < (this.count + 1) * 4) {
      const grown = new Int32Array(this.acts.length * 2);
      grown.set(this.acts);
      this.acts = grown;
    }
    const a = this.count++ * 4;
    this.acts[a] = type;
    this.acts[a + 1] = key;
    this.acts[a + 2] = node;
    this.acts[a + 3] = crash;
  }

  private enable(): void {
    const s = this.cur;
    const b = this.bounds;
    const nk = this.nk;
    const nw = this.nw;
    this.count = 0;
    const log = s[L] as number;
    if (log < this.script.length) this.push(RECORD, -1, -1, 0);
    const checkpoints = (s[CHECKPOINTS] as number) < b.checkpoints;
    for (let w = 0; w < nw; w++) {
      if (this.status(s, w) !== 0) continue;
      for (let k = 0; k < nk; k++) {
        const c = this.copyAt(w, k);
        if (s[c + HAS] === 0 || s[c + FROZEN_COPY] !== 0) continue;
        const cursor = s[c + CURSOR] as number;
        if (cursor < log && ((this.nextRelevant[k] as Int32Array)[cursor] as number) < log) this.push(PROCESS, k, w, 0);
        if (checkpoints) this.push(CHECKPOINT, k, w, 0);
      }
    }
    const crashes = (s[CRASHES] as number) < b.crashes;
    if (s[UP] !== 0) {
      if (s[H] !== 0) {
        const k = s[H_KEY] as number;
        const migrate = s[H_KIND] === 0;
        const phase = s[H_PHASE] as number;
        const src = s[H_SRC] as number;
        const dst = s[H_DST] as number;
        const sc = this.copyAt(src, k);
        if (migrate && phase === PHASE_FROZEN && this.status(s, src) === 0 && s[sc + HAS] !== 0 && s[sc + FROZEN_COPY] !== 0)
          this.push(PERSIST, k, -1, 0);
        const installs = phase <= PHASE_FENCED && (phase >= PHASE_PERSISTED || !this.persistBeforeCommit);
        if (migrate && installs && this.status(s, dst) === 0) this.push(INSTALL, k, -1, 0);
        const commits = this.commitEnabled(s, k);
        if (commits) this.push(COMMIT, k, -1, 0);
        if (phase === PHASE_COMMITTED && this.status(s, src) !== 1) this.push(RELEASE, k, -1, 0);
        if (migrate && phase !== PHASE_FENCED && phase !== PHASE_COMMITTED && this.status(s, src) !== 1) this.push(ABORT, k, -1, 0);
        if (crashes && commits && phase === PHASE_INSTALLED) this.push(COMMIT, k, -1, 1);
      } else {
        const migrations = (s[MIGRATIONS] as number) < b.migrations;
        const failovers = (s[FAILOVERS] as number) < b.failovers;
        for (let k = 0; k < nk; k++) {
          const owner = s[this.keyAt(k) + OWNER_OF] as number;
          const ownerUp = this.status(s, owner) === 0;
          for (let to = 0; to < nw; to++) {
            if (to === owner || this.status(s, to) !== 0) continue;
            if (ownerUp) {
              const c = this.copyAt(owner, k);
              if (migrations && s[c + HAS] !== 0 && s[c + FROZEN_COPY] === 0 && s[c + COPY_EPOCH] === s[this.keyAt(k) + EPOCH])
                this.push(FREEZE, k, to, 0);
            } else if (failovers) {
              this.push(FAILOVER, k, to, 0);
              if (crashes) this.push(FAILOVER, k, to, 1);
            }
          }
        }
      }
    }
    if ((s[DUPLICATES] as number) < b.duplicates) {
      for (let k = 0; k < nk; k++) {
        const at = this.keyAt(k);
        if (s[at + INSTALL_EPOCH] !== 0 && this.status(s, s[at + INSTALL_TO] as number) === 0) this.push(DUPLICATE_INSTALL, k, -1, 0);
        if (s[at + RELEASE_EPOCH] !== 0 && this.status(s, s[at + RELEASE_FROM] as number) === 0) this.push(DUPLICATE_RELEASE, k, -1, 0);
      }
    }
    const pauses = (s[PAUSES] as number) < b.pauses;
    for (let w = 0; w < nw; w++) {
      const status = this.status(s, w);
      if (status === 2) this.push(RESTART, -1, w, 0);
      else if (crashes) this.push(CRASH, -1, w, 0);
      if (status === 0 && pauses) this.push(PAUSE, -1, w, 0);
      if (status === 1) this.push(RESUME, -1, w, 0);
    }
    if (s[UP] === 0) this.push(RESTART, -1, -1, 0);
    else if (crashes) this.push(CRASH, -1, -1, 0);
  }

  /** whyNotEnabledCommit of the handoff in flight of key `k`, without crash-after-fence's own condition. */
  private commitEnabled(s: Int32Array, k: number): boolean {
    const phase = s[H_PHASE] as number;
    if (phase !== PHASE_INSTALLED && phase !== PHASE_FENCED) return false;
    const dst = s[H_DST] as number;
    if (s[H_KIND] === 0) {
      const c = this.copyAt(dst, k);
      return this.status(s, dst) === 0 && s[c + HAS] !== 0 && s[c + COPY_EPOCH] === (s[H_FROM] as number) + 1;
    }
    return this.status(s, dst) !== 1;
  }

  isFault(k: number): boolean {
    const a = k * 4;
    const type = this.acts[a] as number;
    if (type === CRASH || type === PAUSE || type === DUPLICATE_INSTALL || type === DUPLICATE_RELEASE) return true;
    return (type === COMMIT || type === FAILOVER) && this.acts[a + 3] === 1;
  }

  // -------------------------------------------------------------------------
  // Labels (clusterActionKind in boundedHistories.ts, labelOf in explorerModel.ts)

  /** The action's coverage label, by its number in `kindNames` (LABELS). */
  private label(type: number, k: number, node: number, crash: number): number {
    const s = this.cur;
    switch (type) {
      case RECORD:
        return RECORD_LABEL;
      case PROCESS: {
        const c = this.copyAt(node, k);
        return (s[c + COPY_EPOCH] as number) < (s[this.keyAt(k) + FENCE] as number) ? PROCESS_FENCED_LABEL : PROCESS_LABEL;
      }
      case CHECKPOINT:
        return CHECKPOINT_LABEL;
      case PERSIST:
        return PERSIST_LABEL;
      case INSTALL:
        return s[H_PHASE] === PHASE_PERSISTED ? INSTALL_LABEL : INSTALL_RETRY_LABEL;
      case COMMIT:
        return crash ? COMMIT_CRASH_LABEL : COMMIT_LABELS + (s[H_PHASE] as number);
      case RELEASE:
        return RELEASE_LABEL;
      case ABORT:
        return ABORT_LABEL;
      case FREEZE:
        return FREEZE_LABEL;
      case FAILOVER:
        return crash ? FAILOVER_CRASH_LABEL : FAILOVER_LABEL;
      case DUPLICATE_INSTALL: {
        const at = this.keyAt(k);
        const c = this.copyAt(s[at + INSTALL_TO] as number, k);
        return s[c + HAS] !== 0 && (s[c + COPY_EPOCH] as number) >= (s[at + INSTALL_EPOCH] as number) - 1
          ? DUPLICATE_INSTALL_REFUSED_LABEL
          : DUPLICATE_INSTALL_LABEL;
      }
      case DUPLICATE_RELEASE:
        return DUPLICATE_RELEASE_LABEL;
      case RESTART:
        return node < 0 ? RESTART_COORDINATOR_LABEL : RESTART_WORKER_LABEL;
      case CRASH: {
        let role = 4; // idle
        if (node < 0) role = 0;
        else if (s[H] !== 0 && s[H_SRC] === node) role = 1;
        else if (s[H] !== 0 && s[H_DST] === node) role = 2;
        else for (let key = 0; key < this.nk; key++) if (s[this.keyAt(key) + OWNER_OF] === node) role = 3;
        const place = s[H] !== 0 ? 1 + (s[H_KIND] as number) * PHASE_NAMES.length + (s[H_PHASE] as number) : 0;
        return CRASH_LABELS + role * CRASH_PLACES + place;
      }
      case PAUSE:
        return PAUSE_LABEL;
      default:
        return RESUME_LABEL;
    }
  }

  // -------------------------------------------------------------------------
  // Effects (stateMachine.ts `transition`, sink.ts), on a copy of the loaded state

  write(k: number, out: ByteWriter, symmetric: boolean): string {
    return LABELS[this.writeNumbered(k, out, symmetric)] as string;
  }

  writeNumbered(k: number, out: ByteWriter, symmetric: boolean): number {
    const a = k * 4;
    const acts = this.acts;
    const label = this.label(acts[a] as number, acts[a + 1] as number, acts[a + 2] as number, acts[a + 3] as number);
    this.applyAction(k);
    if (this.lastOnBytes) this.encode(this.next, out, symmetric);
    else this.writeByObjects(k, out, symmetric);
    return label;
  }

  /** The loaded state's `k`-th successor into `next` (`lastOnBytes`: false when the step records a violation). */
  private applyAction(k: number): void {
    const a = k * 4;
    const s = this.next;
    s.set(this.cur);
    const acts = this.acts;
    this.lastOnBytes = this.apply(s, acts[a] as number, acts[a + 1] as number, acts[a + 2] as number, acts[a + 3] as number);
    this.lastAction = k;
  }

  // -------------------------------------------------------------------------
  // The properties of a successor (explorerModel.ts): ExactlyOnce, Fenced, BoundedState, quiescence.

  judged(k: number): boolean {
    // Another successor was written since (the engine writes a batch of them before it stores any): apply its action again.
    if (k !== this.lastAction) this.applyAction(k);
    if (!this.lastOnBytes) return false;
    const s = this.next;
    // Fenced and ExactlyOnce as the sink's ghost records them: a step that records a violation took the object path.
    // BoundedState: every copy retains what J8 prescribes, a function of (key, cursor).
    for (let w = 0; w < this.nw; w++) {
      for (let k = 0; k < this.nk; k++) {
        const c = this.copyAt(w, k);
        if (s[c + HAS] !== 0 && !this.bounded(k, s[c + CURSOR] as number)) return false;
      }
    }
    this.lastQuiescent = this.isQuiescent(s);
    // ExactlyOnce at quiescence: the sink shows the oracle's relation over the whole log.
    if (this.lastQuiescent) {
      for (let k = 0; k < this.nk; k++) {
        const spans = this.spansOf(s[L] as number)[k] as RelationSpan[];
        if (!this.shows(s, k, (spans[spans.length - 1] as RelationSpan).ids)) return false;
      }
    }
    return true;
  }

  quiescent(): boolean {
    return this.lastQuiescent;
  }

  /** The goals of explorerModel.ts (`clusterGoal`) on the successor last judged: each needs quiescence. */
  reaches(goal: number): boolean {
    if (!this.lastQuiescent) return false;
    const s = this.next;
    switch (this.goals[goal]) {
      case 'consumed':
        return s[L] === this.script.length;
      case 'handed-over':
        if (s[MIGRATIONS] === 0) return false;
        for (let k = 0; k < this.nk; k++) if ((s[this.keyAt(k) + EPOCH] as number) > 1) return true;
        return false;
      case 'failover':
        return s[FAILOVERS] !== 0;
      case 'crash':
        return s[CRASHES] !== 0;
      default:
        throw new Error(`no goal #${goal}`);
    }
  }

  /** isQuiescent (boundedHistories.ts): log consumed by every owner, no handoff, every node up. */
  private isQuiescent(s: Int32Array): boolean {
    if (s[UP] === 0 || s[H] !== 0) return false;
    for (let w = 0; w < this.nw; w++) if (this.status(s, w) !== 0) return false;
    for (let k = 0; k < this.nk; k++) {
      const at = this.keyAt(k);
      const c = this.copyAt(s[at + OWNER_OF] as number, k);
      if (s[c + HAS] === 0 || s[c + FROZEN_COPY] !== 0 || s[c + COPY_EPOCH] !== s[at + EPOCH]) return false;
      if (((this.nextRelevant[k] as Int32Array)[s[c + CURSOR] as number] as number) < (s[L] as number)) return false;
    }
    return true;
  }

  /** Whether a copy of key `k` at `cursor` retains what J8 prescribes (copyRetains, memoized). */
  private bounded(k: number, cursor: number): boolean {
    const memo = this.boundedMemo[k] as (boolean | undefined)[];
    let ok = memo[cursor];
    if (ok === undefined) {
      const join = this.codec.joins[k]?.[cursor];
      const key = this.config.cluster.keys[k]?.key as string;
      ok =
        join !== undefined &&
        copyRetains(this.config, this.codec.logs[cursor] as readonly LogRecord[], key, { join, cursor, epoch: 0, frozen: false }) === null;
      memo[cursor] = ok;
    }
    return ok;
  }

  private writeByObjects(k: number, out: ByteWriter, symmetric: boolean): void {
    const state = this.codec.read(this.parentReader.reset(this.parentBytes, 0, this.parentLength));
    const action = enabledClusterActions(this.config, state)[k];
    if (action === undefined) throw new Error(`the byte successors found an action the state machine does not enable (#${k})`);
    this.codec.write(nextExplored(this.config, state, action), out, symmetric);
  }
}
