// The fenced cluster's handoff state machine: SPEC §5 (rules C1–C12) as
// data plus pure functions, one guarded transition per action. Read it
// beside SPEC.md, like a TLA+ spec: the state (clusterState.ts), then each
// action's guard (`whyNotEnabled`, guards.ts) and effect (`transition`,
// here), the sink (sink.ts), eager processing and the observation (§7).
import type { ClusterAction, ClusterEvent, ClusterObservation, CopyObservation, JoinConfig, LogRecord } from '../../spec/index.ts';
import { compareCodePoints, describeClusterAction, COORDINATOR } from '../../spec/index.ts';
import { copyEntries, emptyEntries, entriesOf, withEntry } from '../records.ts';
import { initialJoinState, retainedCountsOf, stepJoin, validityOf, type JoinState, type JoinStep } from '../join/join.ts';
import {
  copyAt,
  copyWith,
  handoffAt,
  epochOf,
  inFlightOf,
  isDeclaredKey,
  nextRelevant,
  off,
  ownerOf,
  stateWith,
  up,
  withCoordinator,
  withCopy,
  withWorker,
  worker,
  type ClusterSetup,
  type ClusterState,
  type ClusterTransition,
  type HandoffRecord,
  type InstallMessage,
  type KeyCopy,
  type MatchStatus,
  type ReleaseMessage,
  type WorkerId,
} from './clusterState.ts';
import { whyNotEnabled } from './guards.ts';
import { noteAppended } from './oracleTimeline.ts';
import { raiseFence, sinkWrite } from './sink.ts';

// ---------------------------------------------------------------------------
// Effects

/** C3: append a valid record of a declared key; reject anything else. */
function appendRecord(config: ClusterSetup, state: ClusterState, record: LogRecord): ClusterTransition {
  const reason = validityOf(record, config.join);
  if (reason) return { state, events: [{ type: 'rejected', outcome: { code: 'rejected', reason } }] };
  if (record.kind !== 'watermark' && !isDeclaredKey(config, record.key)) {
    return { state, events: [{ type: 'rejected', outcome: { code: 'rejected', reason: 'unknown_key' } }] };
  }
  // Without the ghost (checkProperties false) no timeline is asked for: the new log does not keep its parent alive.
  const log = appendToLog(state.log, record, config.checkProperties !== false);
  return { state: stateWith(state, { log }), events: [{ type: 'appended', index: state.log.length }] };
}

const appended = new WeakMap<readonly LogRecord[], Map<LogRecord, readonly LogRecord[]>>();

/**
 * `[...log, record]`, interned: appending the same record object to the same
 * log yields the same array, so states with equal logs share one (cheap to
 * compare and to memoize on). With `timeline`, the new log notes its parent,
 * so that the oracle's timeline of it extends the parent's by one step
 * (oracleTimeline.ts); that link keeps every prefix of a log alive, memory
 * quadratic in its length, so a walk that asks for no timeline (no ghost)
 * passes false.
 */
export function appendToLog(log: readonly LogRecord[], record: LogRecord, timeline = true): readonly LogRecord[] {
  let next = appended.get(log);
  if (!next) appended.set(log, (next = new Map()));
  let out = next.get(record);
  if (!out) {
    out = [...log, record];
    next.set(record, out);
    if (timeline) noteAppended(log, out);
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
  const copy = copyAt(state, w, key);
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
function ownershipPart(state: ClusterState, h: HandoffRecord): ClusterTransition {
  const epoch = h.from + 1;
  let next = withCoordinator(state, {
    owner: withEntry(state.coordinator.owner, h.key, h.dst),
    epoch: withEntry(state.coordinator.epoch, h.key, epoch),
    handoff: h.kind === 'migrate' ? handoffAt(h, 'committed') : null,
  });
  const events: ClusterEvent[] = [];
  if (h.kind === 'migrate') {
    const copy = copyAt(next, h.dst, h.key);
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

/** Applies an enabled action. Throws if it is not enabled (callers check `whyNotEnabled`). */
export function applyAction(config: ClusterSetup, state: ClusterState, a: ClusterAction): ClusterTransition {
  const why = whyNotEnabled(config, state, a);
  if (why !== undefined) throw new Error(`${describeClusterAction(a)} is not enabled: ${why}`);
  return transition(config, state, a);
}

/**
 * The effect of an action, for a caller that has already established it is
 * enabled (the explorer takes its actions from `whyNotEnabled`).
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
      const from = epochOf(state, a.key);
      let next = withCoordinator(state, { handoff: { kind: 'migrate', key: a.key, src, dst: a.to, from, phase: 'frozen' } });
      const copy = copyAt(next, src, a.key);
      next = withCopy(next, src, a.key, copyWith(copy, { frozen: true }));
      return { state: next, events: [] };
    }
    case 'persist': {
      // C4/C5: the frozen source writes its checkpoint durably.
      const h = inFlightOf(state, a.key);
      const copy = copyAt(state, h.src, a.key);
      const next = stateWith(state, { store: withEntry(state.store, a.key, { epoch: copy.epoch, cursor: copy.cursor, join: copy.join }) });
      return { state: withCoordinator(next, { handoff: handoffAt(h, 'persisted') }), events: [] };
    }
    case 'install': {
      // C6: send the latest durable checkpoint to the destination.
      const h = inFlightOf(state, a.key);
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
      const h = inFlightOf(state, a.key);
      let next = state;
      let handoff = h;
      if (h.phase === 'installed') {
        next = raiseFence(next, a.key, h.from + 1);
        handoff = handoffAt(h, 'fenced');
        next = withCoordinator(next, { handoff });
        if (a.crashAfterFence) return { state: withCoordinator(next, { up: false }), events: [] };
      }
      return ownershipPart(next, handoff);
    }
    case 'release': {
      // C7: the handoff is over; the source is told to let go of the old epoch.
      const h = inFlightOf(state, a.key);
      const m: ReleaseMessage = { key: a.key, src: h.src, epoch: h.from };
      const next = withCoordinator(stateWith(state, { lastRelease: withEntry(state.lastRelease, a.key, m) }), { handoff: null });
      return up(next, h.src) ? deliverRelease(config, next, m) : { state: next, events: [] };
    }
    case 'abort': {
      // C5: before the fence, a handoff may be abandoned: the source goes on under the old epoch.
      const h = inFlightOf(state, a.key);
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
      const from = epochOf(state, a.key);
      const h: HandoffRecord = { kind: 'failover', key: a.key, src: dead, dst: a.to, from, phase: 'fenced' };
      const next = withCoordinator(raiseFence(state, a.key, from + 1), { handoff: h });
      if (a.crashAfterFence) return { state: withCoordinator(next, { up: false }), events: [] };
      return ownershipPart(next, h);
    }
    case 'checkpoint': {
      // C4: a periodic checkpoint of an active copy.
      const copy = copyAt(state, a.worker, a.key);
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
      return restartWorker(config, state, a.node);
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
function restartWorker(config: ClusterSetup, state: ClusterState, w: WorkerId): ClusterTransition {
  const keys = emptyEntries<KeyCopy>();
  const events: ClusterEvent[] = [];
  // In config order (C1, §7), not the table's own: an object lists integer-like keys ("7") first.
  for (const { key } of config.keys) {
    if (state.coordinator.owner[key] !== w) continue;
    const cp = state.store[key];
    const epoch = epochOf(state, key);
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
        while (whyNotEnabled(config, next, { type: 'process', worker: w, key }) === undefined) {
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

// ---------------------------------------------------------------------------
// The observation a harness compares after each step (SPEC §7).

/** The observation a harness compares after each step (SPEC §7). */
export function observeCluster(config: ClusterSetup, state: ClusterState): ClusterObservation {
  const c = state.coordinator;
  const keys: ClusterObservation['coordinator']['keys'] = emptyEntries();
  for (const { key } of config.keys) keys[key] = { owner: ownerOf(state, key), epoch: epochOf(state, key) };
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
