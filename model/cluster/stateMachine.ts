// The fenced cluster and its handoff state machine: SPEC §5 (rules C1–C12)
// as data plus pure functions, one guarded transition per action. Read it
// beside SPEC.md, like a TLA+ spec: the state, then each action's guard
// (`whyDisabled`) and effect (`applyAction`).
//
// The join inside each worker is the reference operator of model/join/join.ts.
import type {
  Change,
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  CopyObservation,
  JoinConfig,
  LogRecord,
} from '../../spec/index.ts';
import { compareCodePoints, describeClusterAction } from '../../spec/index.ts';
import { copyEntries, emptyEntries, entriesOf, withEntry, withoutEntry, type Entries } from '../records.ts';
import { initialJoinState, retainedCountsOf, stepJoin, validityOf, type JoinState, type JoinStep } from '../join/join.ts';
import { noteAppended, prefixShowing, relationSignature } from './oracleTimeline.ts';

export type WorkerId = string;
export const COORDINATOR = 'coordinator';
export type NodeId = WorkerId | typeof COORDINATOR;

/**
 * The protocol elements that `--ablate` can switch off (SPEC §6,
 * Necessity). Each is one check in one place below.
 */
export const PROTOCOL_ELEMENTS = [
  'persist-before-commit',
  'install-epoch-check',
  'release-epoch-check',
  'sink-fence',
  'sink-dedup',
  'terminal-retract',
] as const;
export type ProtocolElement = (typeof PROTOCOL_ELEMENTS)[number];

/** What each element is, for `streamjoin check --list`. */
export const PROTOCOL_ELEMENT_DESCRIPTIONS: Readonly<Record<ProtocolElement, string>> = {
  'persist-before-commit': 'C6: install only after the source persisted its checkpoint',
  'install-epoch-check': 'C6: a destination refuses an install at an epoch it already has or passed',
  'release-epoch-check': 'C7: a source drops a key only if its copy is still of the released epoch',
  'sink-fence': 'C9: the sink refuses writes below the highest epoch it has seen for the key',
  'sink-dedup': 'C9: the sink ignores an insert of an inserted match and a retract of a retracted one',
  'terminal-retract': 'C9: the sink never re-inserts a retracted match',
};

/** A cluster config (C1, `schemas/cluster-config.schema.json`) and the protocol elements switched off. */
export interface ClusterSetup extends ClusterConfig {
  readonly ablate?: readonly ProtocolElement[];
  /**
   * Track the ghost state the properties need (default true). Conformance,
   * which compares observations only, turns it off: nothing observable
   * depends on it.
   */
  readonly checkProperties?: boolean;
}

/** A worker's volatile copy of one key (C2). */
export interface KeyCopy {
  readonly join: JoinState;
  /** Index of the next log record this copy reads. */
  readonly cursor: number;
  readonly epoch: number;
  readonly frozen: boolean;
}

export type WorkerStatus = 'up' | 'paused' | 'down';

export interface WorkerState {
  readonly status: WorkerStatus;
  readonly keys: Readonly<Record<string, KeyCopy>>;
}

/** The coordinator's durable in-flight handoff record (C5, C8). */
export interface Handoff {
  readonly kind: 'migrate' | 'failover';
  readonly key: string;
  readonly src: WorkerId;
  readonly dst: WorkerId;
  /** The key's epoch when the handoff began; the handoff commits `from + 1`. */
  readonly from: number;
  readonly phase: 'frozen' | 'persisted' | 'installed' | 'fenced' | 'committed';
}

/** A durable checkpoint of one key (C4). */
export interface Checkpoint {
  readonly epoch: number;
  readonly cursor: number;
  readonly join: JoinState;
}

/** A release message as sent: a duplicate delivers exactly this again (C7). */
export interface ReleaseMessage {
  readonly key: string;
  readonly src: WorkerId;
  /** The epoch the source's copy must still have to be dropped. */
  readonly epoch: number;
}

/** An install message as sent: a duplicate delivers exactly this again (C6). */
export interface InstallMessage {
  readonly key: string;
  readonly dst: WorkerId;
  readonly epoch: number;
  readonly checkpoint: Checkpoint | null;
}

export type MatchStatus = 'inserted' | 'retracted';

/** The sink (C9). `applied`, `deduped`, `fenced` count changes. */
export interface SinkState {
  /** Per key, per match id: the match's state (absent means never written). */
  readonly matches: Readonly<Record<string, Readonly<Record<string, MatchStatus>>>>;
  /** Per key, the highest epoch raised or written. */
  readonly fence: Readonly<Record<string, number>>;
  readonly applied: number;
  readonly deduped: number;
  readonly fenced: number;
}

/**
 * History the properties need but the system does not have (ghost state,
 * SPEC §6). None of it influences any transition.
 */
export interface Ghost {
  /** Per key, the shortest log prefix whose oracle relation the sink has equalled (ExactlyOnce). */
  readonly prefix: Readonly<Record<string, number>>;
  /** First violation seen by a sink write, if any. */
  readonly violation: string | null;
}

export interface CoordinatorState {
  readonly up: boolean;
  readonly owner: Readonly<Record<string, WorkerId>>;
  readonly epoch: Readonly<Record<string, number>>;
  readonly handoff: Handoff | null;
}

export interface ClusterState {
  /** Durable input log: valid records only, in append order (C3). */
  readonly log: readonly LogRecord[];
  readonly coordinator: CoordinatorState;
  readonly store: Readonly<Record<string, Checkpoint>>;
  readonly sink: SinkState;
  readonly workers: Readonly<Record<WorkerId, WorkerState>>;
  /** The last install and release message sent per key, which a fault may deliver again (C11). */
  readonly lastInstall: Readonly<Record<string, InstallMessage>>;
  readonly lastRelease: Readonly<Record<string, ReleaseMessage>>;
  readonly ghost: Ghost;
}

/** An action's effect: the next state and what happened, in order (C12). */
export interface ClusterTransition {
  readonly state: ClusterState;
  readonly events: ClusterEvent[];
}

// ---------------------------------------------------------------------------
// Initial state (C1)

export function initialClusterState(config: ClusterSetup): ClusterState {
  const owner = emptyEntries<WorkerId>();
  const epoch = emptyEntries<number>();
  const fence = emptyEntries<number>();
  const prefix = emptyEntries<number>();
  const matches = emptyEntries<Entries<MatchStatus>>();
  const workers = emptyEntries<WorkerState>();
  for (const w of config.workers) workers[w] = { status: 'up', keys: emptyEntries() };
  for (const { key, owner: w } of config.keys) {
    owner[key] = w;
    epoch[key] = 1;
    fence[key] = 1;
    prefix[key] = 0;
    matches[key] = emptyEntries();
    const at = workers[w] as WorkerState;
    workers[w] = { status: at.status, keys: withEntry(at.keys, key, { join: initialJoinState, cursor: 0, epoch: 1, frozen: false }) };
  }
  return {
    log: [],
    coordinator: { up: true, owner, epoch, handoff: null },
    store: emptyEntries(),
    sink: { matches, fence, applied: 0, deduped: 0, fenced: 0 },
    workers,
    lastInstall: emptyEntries(),
    lastRelease: emptyEntries(),
    ghost: { prefix, violation: null },
  };
}

// ---------------------------------------------------------------------------
// Small helpers

const off = (config: ClusterSetup, element: ProtocolElement): boolean => config.ablate?.includes(element) ?? false;

function worker(state: ClusterState, w: WorkerId): WorkerState {
  const ws = state.workers[w];
  if (!ws) throw new Error(`unknown worker ${w}`);
  return ws;
}

// Immutable updates, each building the new record field by field: V8 builds
// an object literal about ten times faster than a spread with overrides
// (measured: about 12 ns against 100 to 240 ns), and the explorer makes
// millions of them. Only the records an action touches are copied.

/** `s` with the parts in `p` replaced. */
function stateWith(s: ClusterState, p: Partial<ClusterState>): ClusterState {
  return {
    log: p.log ?? s.log,
    coordinator: p.coordinator ?? s.coordinator,
    store: p.store ?? s.store,
    sink: p.sink ?? s.sink,
    workers: p.workers ?? s.workers,
    lastInstall: p.lastInstall ?? s.lastInstall,
    lastRelease: p.lastRelease ?? s.lastRelease,
    ghost: p.ghost ?? s.ghost,
  };
}

function sinkWith(s: SinkState, p: Partial<SinkState>): SinkState {
  return {
    matches: p.matches ?? s.matches,
    fence: p.fence ?? s.fence,
    applied: p.applied ?? s.applied,
    deduped: p.deduped ?? s.deduped,
    fenced: p.fenced ?? s.fenced,
  };
}

function copyWith(c: KeyCopy, p: Partial<KeyCopy>): KeyCopy {
  return { join: p.join ?? c.join, cursor: p.cursor ?? c.cursor, epoch: p.epoch ?? c.epoch, frozen: p.frozen ?? c.frozen };
}

/** The handoff moved on to `phase`. */
function handoffAt(h: Handoff, phase: Handoff['phase']): Handoff {
  return { kind: h.kind, key: h.key, src: h.src, dst: h.dst, from: h.from, phase };
}

function withWorker(state: ClusterState, w: WorkerId, ws: WorkerState): ClusterState {
  return stateWith(state, { workers: withEntry(state.workers, w, ws) });
}

function withCopy(state: ClusterState, w: WorkerId, key: string, copy: KeyCopy | undefined): ClusterState {
  const ws = worker(state, w);
  return withWorker(state, w, { status: ws.status, keys: copy ? withEntry(ws.keys, key, copy) : withoutEntry(ws.keys, key) });
}

/** `state` with the coordinator's fields in `p` replaced (a `handoff` of null ends the handoff). */
function withCoordinator(state: ClusterState, p: Partial<CoordinatorState>): ClusterState {
  const c = state.coordinator;
  return stateWith(state, {
    coordinator: {
      up: p.up ?? c.up,
      owner: p.owner ?? c.owner,
      epoch: p.epoch ?? c.epoch,
      handoff: p.handoff === undefined ? c.handoff : p.handoff,
    },
  });
}

function handoffOf(state: ClusterState, key: string): Handoff | undefined {
  const h = state.coordinator.handoff;
  return h && h.key === key ? h : undefined;
}

function ownerOf(state: ClusterState, key: string): WorkerId {
  const w = state.coordinator.owner[key];
  if (w === undefined) throw new Error(`unknown key ${key}`);
  return w;
}

function isDeclaredKey(config: ClusterSetup, key: string): boolean {
  for (const k of config.keys) if (k.key === key) return true;
  return false;
}

/** The record a copy of `key` reads next, skipping other keys' records (C3). */
function nextRelevant(log: readonly LogRecord[], key: string, cursor: number): number {
  let i = cursor;
  while (i < log.length) {
    const r = log[i] as LogRecord;
    if (r.kind === 'watermark' || r.key === key) return i;
    i++;
  }
  return i;
}

// ---------------------------------------------------------------------------
// The sink (C9)

/**
 * Writes the changes of one processed record for `key` under `epoch`. The
 * sink fences from its own record of the key's highest epoch (C9), never
 * from an epoch the writer supplies for comparison.
 */
function sinkWrite(
  config: ClusterSetup,
  state: ClusterState,
  key: string,
  epoch: number,
  changes: readonly Change[],
): { state: ClusterState; fenced: boolean } {
  const sink = state.sink;
  const highest = sink.fence[key] ?? 0;
  if (epoch < highest && !off(config, 'sink-fence')) {
    return { state: stateWith(state, { sink: sinkWith(sink, { fenced: sink.fenced + changes.length }) }), fenced: true };
  }
  const matches = copyEntries<MatchStatus>(sink.matches[key] ?? emptyEntries());
  let { applied, deduped } = sink;
  let violation = state.ghost.violation;
  const committed = state.coordinator.epoch[key] ?? 0;
  if (epoch < committed && violation === null) {
    violation = `Fenced: a write for ${key} with epoch ${epoch} was applied after epoch ${committed} was committed`;
  }
  for (const c of changes) {
    const now = matches[c.match];
    if (c.op === 'insert') {
      if (now === undefined) {
        matches[c.match] = 'inserted';
        applied++;
      } else if (now === 'inserted') {
        if (off(config, 'sink-dedup')) {
          applied++;
          violation ??= `ExactlyOnce: insert of ${c.match} applied twice`;
        } else deduped++;
      } else if (off(config, 'terminal-retract')) {
        matches[c.match] = 'inserted';
        applied++;
        violation ??= `ExactlyOnce: ${c.match} was retracted and reappeared`;
      } else deduped++;
    } else if (now === 'retracted') {
      if (off(config, 'sink-dedup')) {
        applied++;
        violation ??= `ExactlyOnce: retract of ${c.match} applied twice`;
      } else deduped++;
    } else {
      // inserted -> retracted; absent -> retracted too, so that a late
      // insert of a match whose retract came first cannot resurrect it.
      matches[c.match] = 'retracted';
      applied++;
    }
  }
  const nextSink: SinkState = {
    matches: withEntry(sink.matches, key, matches),
    fence: withEntry(sink.fence, key, Math.max(highest, epoch)),
    applied,
    deduped,
    fenced: sink.fenced,
  };
  // Ghost (ExactlyOnce): the sink must now show the oracle's relation over
  // some prefix at or after the one it showed before.
  if (config.checkProperties === false) return { state: stateWith(state, { sink: nextSink }), fenced: false };
  const from = state.ghost.prefix[key] ?? 0;
  const p = prefixShowing(config.join, state.log, key, from, relationSignature(sinkRelation(nextSink, key)));
  if (p === undefined) {
    violation ??= `ExactlyOnce: the sink's relation for ${key} equals the oracle's over no prefix of length >= ${from}`;
  }
  return {
    state: stateWith(state, { sink: nextSink, ghost: { prefix: withEntry(state.ghost.prefix, key, p ?? from), violation } }),
    fenced: false,
  };
}

/** Raises the sink's fence for `key` to at least `epoch` (C7 commit, C8 failover). */
function raiseFence(state: ClusterState, key: string, epoch: number): ClusterState {
  const highest = state.sink.fence[key] ?? 0;
  if (epoch <= highest) return state;
  return stateWith(state, { sink: sinkWith(state.sink, { fence: withEntry(state.sink.fence, key, epoch) }) });
}

// ---------------------------------------------------------------------------
// Guards: why an action is not enabled, or undefined if it is.

const up = (state: ClusterState, w: WorkerId): boolean => state.workers[w]?.status === 'up';

/** Phases in which the coordinator may (re)send install (C6). */
const INSTALL_PHASES: readonly Handoff['phase'][] = ['persisted', 'installed', 'fenced'];
const INSTALL_PHASES_WITHOUT_PERSIST: readonly Handoff['phase'][] = ['frozen', ...INSTALL_PHASES];

const COORDINATOR_DOWN = 'the coordinator is down';
const coordinatorDown = (state: ClusterState): string | undefined => (state.coordinator.up ? undefined : COORDINATOR_DOWN);

function unknownKey(config: ClusterSetup, key: string): string | undefined {
  return isDeclaredKey(config, key) ? undefined : `unknown key ${key}`;
}

function unknownWorker(config: ClusterSetup, w: WorkerId): string | undefined {
  return config.workers.includes(w) ? undefined : `unknown worker ${w}`;
}

/** Why `a` is not enabled in `state`, or undefined if it is: the ids are checked, then the action's guard below. */
export function whyDisabled(config: ClusterSetup, state: ClusterState, a: ClusterAction): string | undefined {
  switch (a.type) {
    case 'record':
      return undefined;
    case 'process':
      return unknownWorker(config, a.worker) ?? unknownKey(config, a.key) ?? whyProcessDisabled(state, a.worker, a.key);
    case 'freeze':
      return coordinatorDown(state) ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to) ?? whyFreezeDisabled(state, a.key, a.to);
    case 'persist':
      return whyPersistDisabled(state, a.key);
    case 'install':
      return whyInstallDisabled(config, state, a.key);
    case 'duplicateInstall':
      return whyDuplicateInstallDisabled(state, a.key);
    case 'duplicateRelease':
      return whyDuplicateReleaseDisabled(state, a.key);
    case 'commit':
      return whyCommitDisabled(state, a.key, a.crashAfterFence === true);
    case 'release':
      return whyReleaseDisabled(state, a.key);
    case 'abort':
      return whyAbortDisabled(state, a.key);
    case 'failover':
      return coordinatorDown(state) ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to) ?? whyFailoverDisabled(state, a.key, a.to);
    case 'checkpoint':
      return unknownWorker(config, a.worker) ?? unknownKey(config, a.key) ?? whyCheckpointDisabled(state, a.worker, a.key);
    case 'crash':
      return a.node === COORDINATOR
        ? whyCoordinatorCrashDisabled(state)
        : (unknownWorker(config, a.node) ?? whyCrashDisabled(state, a.node));
    case 'restart':
      return a.node === COORDINATOR
        ? whyCoordinatorRestartDisabled(state)
        : (unknownWorker(config, a.node) ?? whyRestartDisabled(state, a.node));
    case 'pause':
      return unknownWorker(config, a.worker) ?? whyPauseDisabled(state, a.worker);
    case 'resume':
      return unknownWorker(config, a.worker) ?? whyResumeDisabled(state, a.worker);
  }
}

// One guard per action, for a declared key and worker: why the action is not
// enabled, or undefined. The explorer asks these directly, before it builds
// an action, so that no refused action is built.

/** C3: an up worker with an active copy reads its next relevant record. */
export function whyProcessDisabled(state: ClusterState, w: WorkerId, key: string): string | undefined {
  if (!up(state, w)) return `${w} is not up`;
  const copy = worker(state, w).keys[key];
  if (!copy) return `${w} holds no copy of ${key}`;
  if (copy.frozen) return `${key} is frozen at ${w}`;
  if (nextRelevant(state.log, key, copy.cursor) >= state.log.length) return `${w} has no backlog for ${key}`;
  return undefined;
}

/** C5: begin a migration of `key` to `to`: no handoff in flight, both up, the owner's copy active. */
export function whyFreezeDisabled(state: ClusterState, key: string, to: WorkerId): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
  const src = ownerOf(state, key);
  if (to === src) return `${to} already owns ${key}`;
  if (!up(state, src)) return `the owner ${src} is not up`;
  if (!up(state, to)) return `${to} is not up`;
  const copy = worker(state, src).keys[key];
  if (!copy || copy.frozen || copy.epoch !== state.coordinator.epoch[key]) return `${src} does not hold ${key} active`;
  return undefined;
}

/** C4/C5: the frozen source persists its checkpoint. */
export function whyPersistDisabled(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${key} awaits persist`;
  if (!up(state, h.src)) return `${h.src} is not up`;
  const copy = worker(state, h.src).keys[key];
  if (!copy?.frozen) return `${h.src} holds no frozen copy of ${key}`;
  return undefined;
}

/** C6: (re)send install once the checkpoint is durable (or at once, with persist-before-commit ablated). */
export function whyInstallDisabled(config: ClusterSetup, state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  const phases = off(config, 'persist-before-commit') ? INSTALL_PHASES_WITHOUT_PERSIST : INSTALL_PHASES;
  if (h?.kind !== 'migrate' || !phases.includes(h.phase)) return `no migration of ${key} awaits install`;
  if (!up(state, h.dst)) return `${h.dst} is not up`;
  return undefined;
}

/** C11: the last install message of `key` is delivered again. */
export function whyDuplicateInstallDisabled(state: ClusterState, key: string): string | undefined {
  const m = state.lastInstall[key];
  if (!m) return `no install of ${key} was ever sent`;
  if (!up(state, m.dst)) return `${m.dst} is not up`;
  return undefined;
}

/** C11: the last release message of `key` is delivered again. */
export function whyDuplicateReleaseDisabled(state: ClusterState, key: string): string | undefined {
  const m = state.lastRelease[key];
  if (!m) return `no release of ${key} was ever sent`;
  if (!up(state, m.src)) return `${m.src} is not up`;
  return undefined;
}

/** C7/C8: commit a handoff that is installed (or fenced, after a crash between the parts of commit). */
export function whyCommitDisabled(state: ClusterState, key: string, crashAfterFence: boolean): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (!h || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${key} awaits commit`;
  if (crashAfterFence && h.phase !== 'installed') return 'the fence is already raised';
  if (h.kind === 'migrate') {
    // C7: the new owner must hold the installed copy, or commit would hand the key to nobody.
    const copy = state.workers[h.dst]?.keys[key];
    if (!up(state, h.dst)) return `${h.dst} is not up`;
    if (!copy || copy.epoch !== h.from + 1) return `${h.dst} holds no installed copy of ${key}`;
  } else if (state.workers[h.dst]?.status === 'paused') return `${h.dst} is paused`;
  return undefined;
}

/** C7: after commit, the source is told to let go. */
export function whyReleaseDisabled(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.phase !== 'committed') return `no handoff of ${key} awaits release`;
  if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
  return undefined;
}

/** C5: a migration may be abandoned before the fence. */
export function whyAbortDisabled(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.kind !== 'migrate') return `no migration of ${key} in flight`;
  if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward';
  if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
  return undefined;
}

/** C8: move a key whose owner is not up to a live worker. */
export function whyFailoverDisabled(state: ClusterState, key: string, to: WorkerId): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
  const dead = ownerOf(state, key);
  if (state.workers[dead]?.status === 'up') return `the owner ${dead} is up`;
  if (!up(state, to)) return `${to} is not up`;
  return undefined;
}

/** C4: a periodic checkpoint of an active copy. */
export function whyCheckpointDisabled(state: ClusterState, w: WorkerId, key: string): string | undefined {
  if (!up(state, w)) return `${w} is not up`;
  const copy = worker(state, w).keys[key];
  if (!copy || copy.frozen) return `${w} holds no active copy of ${key}`;
  return undefined;
}

/** C10. */
export function whyCoordinatorCrashDisabled(state: ClusterState): string | undefined {
  return state.coordinator.up ? undefined : 'the coordinator is already down';
}

export function whyCrashDisabled(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'down' ? `${w} is already down` : undefined;
}

export function whyCoordinatorRestartDisabled(state: ClusterState): string | undefined {
  return state.coordinator.up ? 'the coordinator is up' : undefined;
}

export function whyRestartDisabled(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'down' ? undefined : `${w} is not down`;
}

export function whyPauseDisabled(state: ClusterState, w: WorkerId): string | undefined {
  return up(state, w) ? undefined : `${w} is not up`;
}

export function whyResumeDisabled(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'paused' ? undefined : `${w} is not paused`;
}

// ---------------------------------------------------------------------------
// Effects

/** C3: append a valid record of a declared key; reject anything else. */
function appendRecord(config: ClusterSetup, state: ClusterState, record: LogRecord): ClusterTransition {
  const reason = validityOf(record, config.join);
  if (reason) return { state, events: [{ type: 'rejected', outcome: { code: 'rejected', reason } }] };
  if (record.kind !== 'watermark' && !isDeclaredKey(config, record.key)) {
    return { state, events: [{ type: 'rejected', outcome: { code: 'rejected', reason: 'unknown_key' } }] };
  }
  return { state: stateWith(state, { log: appendToLog(state.log, record) }), events: [{ type: 'appended', index: state.log.length }] };
}

const appended = new WeakMap<readonly LogRecord[], Map<LogRecord, readonly LogRecord[]>>();

/**
 * `[...log, record]`, interned: appending the same record object to the same
 * log yields the same array, so states with equal logs share one (cheap to
 * compare and to memoize on).
 */
export function appendToLog(log: readonly LogRecord[], record: LogRecord): readonly LogRecord[] {
  let next = appended.get(log);
  if (!next) appended.set(log, (next = new Map()));
  let out = next.get(record);
  if (!out) {
    out = [...log, record];
    next.set(record, out);
    noteAppended(log, out);
  }
  return out;
}

const joinSteps = new WeakMap<JoinConfig, WeakMap<JoinState, Map<LogRecord, JoinStep>>>();

/** `stepJoin`, memoized: join states and records are immutable and shared, and the step is a pure function of them. */
export function stepJoinShared(config: JoinConfig, state: JoinState, record: LogRecord): JoinStep {
  let byState = joinSteps.get(config);
  if (!byState) joinSteps.set(config, (byState = new WeakMap()));
  let byRecord = byState.get(state);
  if (!byRecord) byState.set(state, (byRecord = new Map()));
  let step = byRecord.get(record);
  if (!step) byRecord.set(record, (step = stepJoin(config, state, record)));
  return step;
}

/** C3/C9: the copy reads its next relevant record, applies it, writes the changes. */
function processNext(config: ClusterSetup, state: ClusterState, w: WorkerId, key: string): ClusterTransition {
  const copy = worker(state, w).keys[key] as KeyCopy;
  const index = nextRelevant(state.log, key, copy.cursor);
  const record = state.log[index] as LogRecord;
  const step = stepJoinShared(config.join, copy.join, record);
  let next = withCopy(state, w, key, copyWith(copy, { join: step.state, cursor: index + 1 }));
  let fenced = false;
  if (step.changes.length > 0) {
    const written = sinkWrite(config, next, key, copy.epoch, step.changes);
    next = written.state;
    fenced = written.fenced;
  }
  const events: ClusterEvent[] = [
    { type: 'processed', worker: w, key, index, epoch: copy.epoch, outcome: step.outcome, changes: [...step.changes], fenced },
  ];
  if (fenced) {
    // C9: a writer the sink has fenced has lost the key; it stops and forgets it.
    next = withCopy(next, w, key, undefined);
    events.push({ type: 'dropped', worker: w, key, reason: 'fenced' });
  }
  return { state: next, events };
}

/** C6: deliver an install message to its destination, subject to the epoch check. */
function deliverInstall(config: ClusterSetup, state: ClusterState, m: InstallMessage): ClusterTransition {
  const held = worker(state, m.dst).keys[m.key];
  if (held && held.epoch >= m.epoch && !off(config, 'install-epoch-check')) {
    return { state, events: [{ type: 'refused', worker: m.dst, key: m.key, reason: 'stale-epoch' }] };
  }
  const cp = m.checkpoint;
  const copy: KeyCopy = { join: cp?.join ?? initialJoinState, cursor: cp?.cursor ?? 0, epoch: m.epoch, frozen: true };
  return {
    state: withCopy(state, m.dst, m.key, copy),
    events: [{ type: 'restored', worker: m.dst, key: m.key, cursor: copy.cursor, epoch: m.epoch }],
  };
}

/** C7: the source drops the key only if its copy is still of the released epoch. */
function deliverRelease(config: ClusterSetup, state: ClusterState, m: ReleaseMessage): ClusterTransition {
  const copy = worker(state, m.src).keys[m.key];
  if (!copy || (copy.epoch !== m.epoch && !off(config, 'release-epoch-check'))) return { state, events: [] };
  return { state: withCopy(state, m.src, m.key, undefined), events: [{ type: 'dropped', worker: m.src, key: m.key, reason: 'released' }] };
}

/** C7/C8 second part: write ownership; the new owner starts (migrate) or restores (failover). */
function commitOwnership(state: ClusterState, h: Handoff): ClusterTransition {
  const epoch = h.from + 1;
  let next = withCoordinator(state, {
    owner: withEntry(state.coordinator.owner, h.key, h.dst),
    epoch: withEntry(state.coordinator.epoch, h.key, epoch),
    handoff: h.kind === 'migrate' ? handoffAt(h, 'committed') : null,
  });
  const events: ClusterEvent[] = [];
  if (h.kind === 'migrate') {
    const copy = worker(next, h.dst).keys[h.key] as KeyCopy;
    next = withCopy(next, h.dst, h.key, copyWith(copy, { frozen: false }));
  } else if (up(next, h.dst)) {
    // Failover restores the latest durable checkpoint, or empty state at cursor 0.
    const cp = next.store[h.key];
    const copy: KeyCopy = { join: cp?.join ?? initialJoinState, cursor: cp?.cursor ?? 0, epoch, frozen: false };
    next = withCopy(next, h.dst, h.key, copy);
    events.push({ type: 'restored', worker: h.dst, key: h.key, cursor: copy.cursor, epoch });
  }
  return { state: next, events };
}

/** Applies an enabled action. Throws if it is not enabled (callers check `whyDisabled`). */
export function applyAction(config: ClusterSetup, state: ClusterState, a: ClusterAction): ClusterTransition {
  const why = whyDisabled(config, state, a);
  if (why !== undefined) throw new Error(`${describeClusterAction(a)} is not enabled: ${why}`);
  return transition(config, state, a);
}

/**
 * The effect of an action, for a caller that has already established it is
 * enabled (the explorer takes its actions from `whyDisabled`).
 */
export function transition(config: ClusterSetup, state: ClusterState, a: ClusterAction): ClusterTransition {
  switch (a.type) {
    case 'record':
      return appendRecord(config, state, a.record);
    case 'process':
      return processNext(config, state, a.worker, a.key);
    case 'freeze': {
      // C5: record the handoff durably and stop the source.
      const src = ownerOf(state, a.key);
      const from = state.coordinator.epoch[a.key] as number;
      let next = withCoordinator(state, { handoff: { kind: 'migrate', key: a.key, src, dst: a.to, from, phase: 'frozen' } });
      const copy = worker(next, src).keys[a.key] as KeyCopy;
      next = withCopy(next, src, a.key, copyWith(copy, { frozen: true }));
      return { state: next, events: [] };
    }
    case 'persist': {
      // C4/C5: the frozen source writes its checkpoint durably.
      const h = handoffOf(state, a.key) as Handoff;
      const copy = worker(state, h.src).keys[a.key] as KeyCopy;
      const next = stateWith(state, { store: withEntry(state.store, a.key, { epoch: copy.epoch, cursor: copy.cursor, join: copy.join }) });
      return { state: withCoordinator(next, { handoff: handoffAt(h, 'persisted') }), events: [] };
    }
    case 'install': {
      // C6: send the latest durable checkpoint to the destination.
      const h = handoffOf(state, a.key) as Handoff;
      const m: InstallMessage = { key: a.key, dst: h.dst, epoch: h.from + 1, checkpoint: state.store[a.key] ?? null };
      const sent = stateWith(state, { lastInstall: withEntry(state.lastInstall, a.key, m) });
      const delivered = deliverInstall(config, sent, m);
      const phase = h.phase === 'fenced' ? 'fenced' : 'installed';
      return { state: withCoordinator(delivered.state, { handoff: handoffAt(h, phase) }), events: delivered.events };
    }
    case 'duplicateInstall':
      return deliverInstall(config, state, state.lastInstall[a.key] as InstallMessage);
    case 'duplicateRelease':
      return deliverRelease(config, state, state.lastRelease[a.key] as ReleaseMessage);
    case 'commit': {
      // C7: raise the fence first, then write ownership; a crash may fall between.
      const h = handoffOf(state, a.key) as Handoff;
      let next = state;
      let handoff = h;
      if (h.phase === 'installed') {
        next = raiseFence(next, a.key, h.from + 1);
        handoff = handoffAt(h, 'fenced');
        next = withCoordinator(next, { handoff });
        if (a.crashAfterFence) return { state: withCoordinator(next, { up: false }), events: [] };
      }
      return commitOwnership(next, handoff);
    }
    case 'release': {
      // C7: the handoff is over; the source is told to let go of the old epoch.
      const h = handoffOf(state, a.key) as Handoff;
      const m: ReleaseMessage = { key: a.key, src: h.src, epoch: h.from };
      const next = withCoordinator(stateWith(state, { lastRelease: withEntry(state.lastRelease, a.key, m) }), { handoff: null });
      return up(next, h.src) ? deliverRelease(config, next, m) : { state: next, events: [] };
    }
    case 'abort': {
      // C5: before the fence, a handoff may be abandoned: the source goes on under the old epoch.
      const h = handoffOf(state, a.key) as Handoff;
      let next = withCoordinator(state, { handoff: null });
      const events: ClusterEvent[] = [];
      const srcCopy = next.workers[h.src]?.keys[a.key];
      if (up(next, h.src) && srcCopy?.frozen && srcCopy.epoch === h.from) {
        next = withCopy(next, h.src, a.key, copyWith(srcCopy, { frozen: false }));
      }
      const dstCopy = next.workers[h.dst]?.keys[a.key];
      if (up(next, h.dst) && dstCopy?.frozen && dstCopy.epoch === h.from + 1) {
        next = withCopy(next, h.dst, a.key, undefined);
        events.push({ type: 'dropped', worker: h.dst, key: a.key, reason: 'aborted' });
      }
      return { state: next, events };
    }
    case 'failover': {
      // C8: fence first, then move ownership to a live worker that restores the checkpoint.
      const dead = ownerOf(state, a.key);
      const from = state.coordinator.epoch[a.key] as number;
      const h: Handoff = { kind: 'failover', key: a.key, src: dead, dst: a.to, from, phase: 'fenced' };
      const next = withCoordinator(raiseFence(state, a.key, from + 1), { handoff: h });
      if (a.crashAfterFence) return { state: withCoordinator(next, { up: false }), events: [] };
      return commitOwnership(next, h);
    }
    case 'checkpoint': {
      // C4: a periodic checkpoint of an active copy.
      const copy = worker(state, a.worker).keys[a.key] as KeyCopy;
      return {
        state: stateWith(state, { store: withEntry(state.store, a.key, { epoch: copy.epoch, cursor: copy.cursor, join: copy.join }) }),
        events: [],
      };
    }
    case 'crash':
      // C10: a crash loses all volatile state of the node.
      if (a.node === COORDINATOR) return { state: withCoordinator(state, { up: false }), events: [] };
      return { state: withWorker(state, a.node, { status: 'down', keys: emptyEntries() }), events: [] };
    case 'restart':
      if (a.node === COORDINATOR) return { state: withCoordinator(state, { up: true }), events: [] };
      return restartWorker(state, a.node);
    case 'pause':
      return { state: withWorker(state, a.worker, { status: 'paused', keys: worker(state, a.worker).keys }), events: [] };
    case 'resume':
      return { state: withWorker(state, a.worker, { status: 'up', keys: worker(state, a.worker).keys }), events: [] };
  }
}

/**
 * C10: a restarted worker has empty volatile state; it recovers every key
 * the durable ownership table gives it from the latest checkpoint (or empty
 * at cursor 0), under the key's current epoch. Its previous incarnation is
 * gone, so no other writer holds that epoch.
 */
function restartWorker(state: ClusterState, w: WorkerId): ClusterTransition {
  const keys = emptyEntries<KeyCopy>();
  const events: ClusterEvent[] = [];
  for (const [key, owner] of Object.entries(state.coordinator.owner)) {
    if (owner !== w) continue;
    const cp = state.store[key];
    const epoch = state.coordinator.epoch[key] as number;
    keys[key] = { join: cp?.join ?? initialJoinState, cursor: cp?.cursor ?? 0, epoch, frozen: false };
    events.push({ type: 'restored', worker: w, key, cursor: cp?.cursor ?? 0, epoch });
  }
  return { state: withWorker(state, w, { status: 'up', keys }), events };
}

// ---------------------------------------------------------------------------
// Eager processing (SPEC §7): after each external action, every enabled
// processing step runs to completion, in worker order then key order.

export function settle(config: ClusterSetup, state: ClusterState): ClusterTransition {
  let next = state;
  const events: ClusterEvent[] = [];
  for (;;) {
    let progressed = false;
    for (const w of config.workers) {
      for (const { key } of config.keys) {
        while (whyDisabled(config, next, { type: 'process', worker: w, key }) === undefined) {
          const step = processNext(config, next, w, key);
          next = step.state;
          events.push(...step.events);
          progressed = true;
        }
      }
    }
    if (!progressed) return { state: next, events };
  }
}

/** One external action followed by eager processing (SPEC §7). */
export function applyExternal(config: ClusterSetup, state: ClusterState, a: ClusterAction): ClusterTransition {
  const first = applyAction(config, state, a);
  const rest = settle(config, first.state);
  return { state: rest.state, events: [...first.events, ...rest.events] };
}

/** The match ids currently in the sink's relation for `key` (inserted, not retracted). */
export function sinkRelation(sink: SinkState, key: string): string[] {
  const out: string[] = [];
  for (const [id, status] of Object.entries(sink.matches[key] ?? {})) if (status === 'inserted') out.push(id);
  return out.sort();
}

// ---------------------------------------------------------------------------
// The observation a harness compares after each step (SPEC §7).

export function observeCluster(config: ClusterSetup, state: ClusterState): ClusterObservation {
  const c = state.coordinator;
  const keys: ClusterObservation['coordinator']['keys'] = emptyEntries();
  for (const { key } of config.keys) keys[key] = { owner: c.owner[key] as string, epoch: c.epoch[key] as number };
  const workers: ClusterObservation['workers'] = emptyEntries();
  for (const w of config.workers) {
    const ws = worker(state, w);
    const copies = emptyEntries<CopyObservation>();
    for (const { key } of config.keys) {
      const copy = ws.keys[key];
      if (copy) copies[key] = { epoch: copy.epoch, cursor: copy.cursor, frozen: copy.frozen, retained: retainedCountsOf(copy.join, key) };
    }
    workers[w] = { status: ws.status, keys: copies };
  }
  const store: ClusterObservation['store'] = emptyEntries();
  for (const { key } of config.keys) {
    const cp = state.store[key];
    if (cp) store[key] = { epoch: cp.epoch, cursor: cp.cursor, retained: retainedCountsOf(cp.join, key) };
  }
  const matches = emptyEntries<MatchStatus>();
  for (const { key } of config.keys) Object.assign(matches, state.sink.matches[key]);
  const h = c.handoff;
  return {
    log: state.log.length,
    coordinator: { up: c.up, handoff: h ? { ...h } : null, keys },
    workers,
    store,
    sink: {
      fence: copyEntries(state.sink.fence),
      // §0: match ids in code point order.
      matches: entriesOf(
        Object.keys(matches)
          .sort(compareCodePoints)
          .map((id) => [id, matches[id] as MatchStatus] as const),
      ),
      applied: state.sink.applied,
      deduped: state.sink.deduped,
      fenced: state.sink.fenced,
    },
  };
}
