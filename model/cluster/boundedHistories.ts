// The cluster model as an explorable state machine (SPEC §6): a workload
// script appended in order, control actions and faults within budgets,
// processing as its own nondeterministic action, and the named properties.
import { describeClusterAction, matchId, COORDINATOR } from '../../spec/index.ts';
import type { ClusterAction, ClusterEvent, JoinConfig, LogRecord } from '../../spec/index.ts';
import {
  initialClusterState,
  ownerOf,
  worker,
  type ClusterSetup,
  type ClusterState,
  type HandoffRecord,
  type KeyCopy,
  type ProtocolElement,
  type WorkerId,
} from './clusterState.ts';
import { applyExternal, transition } from './stateMachine.ts';
import { insertedMatches } from './sink.ts';
import {
  whyNotEnabledAbort,
  whyNotEnabledCheckpoint,
  whyNotEnabledCommit,
  whyNotEnabledCoordinatorCrash,
  whyNotEnabledCoordinatorRestart,
  whyNotEnabledCrash,
  whyNotEnabledDuplicateInstall,
  whyNotEnabledDuplicateRelease,
  whyNotEnabledFailover,
  whyNotEnabledFreeze,
  whyNotEnabledInstall,
  whyNotEnabledPause,
  whyNotEnabledPersist,
  whyNotEnabledProcess,
  whyNotEnabledRelease,
  whyNotEnabledRestart,
  whyNotEnabledResume,
} from './guards.ts';
import { finalRelation, oracleAfter, relationSignature } from './oracleTimeline.ts';
import { horizonRetained, identityString } from '../join/oracle.ts';
import type { JoinState } from '../join/join.ts';

/** A count per kind of control action and fault: what a history may spend, or has spent. */
export interface Budget {
  /** Key migrations (a freeze starts one). */
  readonly migrations: number;
  /** Coordinator failovers. */
  readonly failovers: number;
  /** Worker or coordinator crashes, including crashes between the parts of commit and failover. */
  readonly crashes: number;
  /** Worker pauses. */
  readonly pauses: number;
  /** Duplicate deliveries of an install or a release message. */
  readonly duplicates: number;
  /** Worker checkpoints. */
  readonly checkpoints: number;
}

/** How far the explorer may go: the workload and a budget per kind of control action and fault. */
export interface ClusterBounds extends Budget {
  /** Records appended in this order, interleaved with everything else. */
  readonly script: readonly LogRecord[];
}

/** What the cluster explorer model explores: the cluster and the bounds of its histories. */
export interface ClusterModelConfig {
  /** The cluster's workers, keys and join configuration. */
  readonly cluster: ClusterSetup;
  /** The workload and the budget per kind of action. */
  readonly bounds: ClusterBounds;
}

/** A state of the cluster explorer model: the cluster's state and the budget spent to reach it. */
export interface ExploredState {
  /** The cluster state machine's state (SPEC §6). */
  readonly cluster: ClusterState;
  /** How much of each budget has been used. */
  readonly used: Budget;
}

/** Which budgets an action spends, if any. */
export function budgetOf(a: ClusterAction): (keyof Budget)[] {
  switch (a.type) {
    case 'freeze':
      return ['migrations'];
    case 'failover':
      return a.crashAfterFence ? ['failovers', 'crashes'] : ['failovers'];
    case 'commit':
      return a.crashAfterFence ? ['crashes'] : [];
    case 'crash':
      return ['crashes'];
    case 'pause':
      return ['pauses'];
    case 'duplicateInstall':
    case 'duplicateRelease':
      return ['duplicates'];
    case 'checkpoint':
      return ['checkpoints'];
    default:
      return [];
  }
}

/**
 * The budgets used after taking `a` (as `budgetOf` says): the same object
 * when `a` spends none. Written out per action: it runs on every transition.
 */
function spent(used: Budget, a: ClusterAction): Budget {
  switch (a.type) {
    case 'freeze':
      return budget(used, 1, 0, 0, 0, 0, 0);
    case 'failover':
      return budget(used, 0, 1, a.crashAfterFence ? 1 : 0, 0, 0, 0);
    case 'commit':
      return a.crashAfterFence ? budget(used, 0, 0, 1, 0, 0, 0) : used;
    case 'crash':
      return budget(used, 0, 0, 1, 0, 0, 0);
    case 'pause':
      return budget(used, 0, 0, 0, 1, 0, 0);
    case 'duplicateInstall':
    case 'duplicateRelease':
      return budget(used, 0, 0, 0, 0, 1, 0);
    case 'checkpoint':
      return budget(used, 0, 0, 0, 0, 0, 1);
    default:
      return used;
  }
}

/** `used` plus the amounts given (built field by field: faster than a spread). */
function budget(
  used: Budget,
  migrations: number,
  failovers: number,
  crashes: number,
  pauses: number,
  duplicates: number,
  checkpoints: number,
): Budget {
  return {
    migrations: used.migrations + migrations,
    failovers: used.failovers + failovers,
    crashes: used.crashes + crashes,
    pauses: used.pauses + pauses,
    duplicates: used.duplicates + duplicates,
    checkpoints: used.checkpoints + checkpoints,
  };
}

/** Faults, for Progress: what may stop happening (SPEC §6). */
export function isFault(a: ClusterAction): boolean {
  return (
    a.type === 'crash' ||
    a.type === 'pause' ||
    a.type === 'duplicateInstall' ||
    a.type === 'duplicateRelease' ||
    ((a.type === 'commit' || a.type === 'failover') && a.crashAfterFence === true)
  );
}

/**
 * The enabled actions of `s` within the budgets, in an order fixed by `s`. Each
 * candidate is put to its guard in model/cluster/guards.ts (the one
 * definition of enabledness) before it is built, so no refused action is
 * built; the loops only skip, cheaply, what the budgets or the state rule
 * out anyway (a worker that is not up, a key with no message to repeat).
 */
export function enabledClusterActions(config: ClusterModelConfig, s: ExploredState): ClusterAction[] {
  const cluster = config.cluster;
  const bounds = config.bounds;
  const keys = cluster.keys;
  const workers = cluster.workers;
  const st = s.cluster;
  const used = s.used;
  const out: ClusterAction[] = [];
  const record = bounds.script[st.log.length];
  if (record) out.push({ type: 'record', record });
  const checkpoints = used.checkpoints < bounds.checkpoints;
  for (const w of workers) {
    const ws = worker(st, w);
    if (ws.status !== 'up') continue;
    for (const key in ws.keys) {
      const copy = ws.keys[key] as KeyCopy;
      if (copy.frozen) continue;
      if (copy.cursor < st.log.length && whyNotEnabledProcess(st, w, key) === undefined) out.push({ type: 'process', worker: w, key });
      if (checkpoints && whyNotEnabledCheckpoint(st, w, key) === undefined) out.push({ type: 'checkpoint', worker: w, key });
    }
  }
  const crashes = used.crashes < bounds.crashes;
  const h = st.coordinator.handoff;
  if (st.coordinator.up) {
    if (h) {
      const key = h.key;
      if (whyNotEnabledPersist(st, key) === undefined) out.push({ type: 'persist', key });
      if (whyNotEnabledInstall(cluster, st, key) === undefined) out.push({ type: 'install', key });
      if (whyNotEnabledCommit(st, key, false) === undefined) out.push({ type: 'commit', key });
      if (whyNotEnabledRelease(st, key) === undefined) out.push({ type: 'release', key });
      if (whyNotEnabledAbort(st, key) === undefined) out.push({ type: 'abort', key });
      if (crashes && whyNotEnabledCommit(st, key, true) === undefined) out.push({ type: 'commit', key, crashAfterFence: true });
    } else {
      const migrations = used.migrations < bounds.migrations;
      const failovers = used.failovers < bounds.failovers;
      for (const { key } of keys) {
        const owner = ownerOf(st, key);
        const ownerUp = worker(st, owner).status === 'up';
        for (const to of workers) {
          // Both guards refuse a move to the owner itself or to a worker that is not up.
          if (to === owner || worker(st, to).status !== 'up') continue;
          if (ownerUp) {
            if (migrations && whyNotEnabledFreeze(st, key, to) === undefined) out.push({ type: 'freeze', key, to });
          } else if (failovers && whyNotEnabledFailover(st, key, to) === undefined) {
            out.push({ type: 'failover', key, to });
            if (crashes) out.push({ type: 'failover', key, to, crashAfterFence: true });
          }
        }
      }
    }
  }
  if (used.duplicates < bounds.duplicates) {
    for (const { key } of keys) {
      if (st.lastInstall[key] && whyNotEnabledDuplicateInstall(st, key) === undefined) out.push({ type: 'duplicateInstall', key });
      if (st.lastRelease[key] && whyNotEnabledDuplicateRelease(st, key) === undefined) out.push({ type: 'duplicateRelease', key });
    }
  }
  const pauses = used.pauses < bounds.pauses;
  for (const w of workers) {
    const status = worker(st, w).status;
    if (status === 'down') {
      if (whyNotEnabledRestart(st, w) === undefined) out.push({ type: 'restart', node: w });
    } else if (crashes && whyNotEnabledCrash(st, w) === undefined) out.push({ type: 'crash', node: w });
    if (status === 'up' && pauses && whyNotEnabledPause(st, w) === undefined) out.push({ type: 'pause', worker: w });
    if (status === 'paused' && whyNotEnabledResume(st, w) === undefined) out.push({ type: 'resume', worker: w });
  }
  if (!st.coordinator.up) {
    if (whyNotEnabledCoordinatorRestart(st) === undefined) out.push({ type: 'restart', node: COORDINATOR });
  } else if (crashes && whyNotEnabledCoordinatorCrash(st) === undefined) out.push({ type: 'crash', node: COORDINATOR });
  return out;
}

export function nextExplored(config: ClusterModelConfig, s: ExploredState, a: ClusterAction): ExploredState {
  return { cluster: transition(config.cluster, s.cluster, a).state, used: spent(s.used, a) };
}

/**
 * The conformance (eager) semantics over the same bounds (SPEC §7): one
 * external action, then every enabled processing step, spending the budgets
 * as `nextExplored` does. The events are those a system under test replies.
 */
export function nextEager(
  config: ClusterModelConfig,
  s: ExploredState,
  a: ClusterAction,
): { state: ExploredState; events: ClusterEvent[] } {
  if (a.type === 'process') throw new Error('process is not an external action: processing runs eagerly (SPEC §7)');
  const t = applyExternal(config.cluster, s.cluster, a);
  return { state: { cluster: t.state, used: spent(s.used, a) }, events: t.events };
}

export function initialExplored(config: ClusterModelConfig): ExploredState {
  const used: Budget = { migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 };
  return { cluster: initialClusterState(config.cluster), used };
}

// ---------------------------------------------------------------------------
// Coverage labels: every crash point is its own kind (SPEC §6).

function roleOf(
  h: HandoffRecord | null,
  node: string,
  owners: Readonly<Record<string, WorkerId>>,
): 'coordinator' | 'src' | 'dst' | 'owner' | 'idle' {
  if (node === COORDINATOR) return 'coordinator';
  if (h?.src === node) return 'src';
  if (h?.dst === node) return 'dst';
  for (const key in owners) if (owners[key] === node) return 'owner';
  return 'idle';
}

// The labels, made once: an action's label is looked up, not built (one is needed per transition).
const HANDOFF_KINDS = ['migrate', 'failover'] as const;
const PHASE_NAMES = ['frozen', 'persisted', 'installed', 'fenced', 'committed'] as const;
const ROLES = ['coordinator', 'src', 'dst', 'owner', 'idle'] as const;
const phaseLabels = (f: (at: string) => string): Record<string, Record<string, string>> =>
  Object.fromEntries(HANDOFF_KINDS.map((k) => [k, Object.fromEntries(PHASE_NAMES.map((p) => [p, f(`${k}@${p}`)]))]));
const CRASH_LABELS = Object.fromEntries(
  ROLES.map((role) => [role, { steady: `crash:${role}@steady`, during: phaseLabels((at) => `crash:${role}@${at}`) }]),
) as Record<(typeof ROLES)[number], { steady: string; during: Record<string, Record<string, string>> }>;
const COMMIT_LABELS: Record<string, string> = Object.fromEntries(PHASE_NAMES.map((p) => [p, `commit@${p}`]));

/** The coverage label of an action taken in state `s`. */
export function clusterActionKind(s: ExploredState, a: ClusterAction): string {
  const h = s.cluster.coordinator.handoff;
  switch (a.type) {
    case 'crash': {
      const labels = CRASH_LABELS[roleOf(h, a.node, s.cluster.coordinator.owner)];
      return h ? (labels.during[h.kind]?.[h.phase] as string) : labels.steady;
    }
    case 'commit':
      return a.crashAfterFence ? 'commit+crash-after-fence' : h ? (COMMIT_LABELS[h.phase] as string) : 'commit@?';
    case 'failover':
      return a.crashAfterFence ? 'failover+crash-after-fence' : 'failover';
    case 'restart':
      return a.node === COORDINATOR ? 'restart:coordinator' : 'restart:worker';
    case 'install':
      return h?.phase === 'persisted' ? 'install' : 'install(retry)';
    default:
      return a.type;
  }
}

// ---------------------------------------------------------------------------
// Canonical encoding. A copy's join state is not encoded: it is a function of
// (key, cursor) because processing is deterministic and every copy is either
// processed forward or restored from a checkpoint, itself a copy's
// (join, cursor) pair. model/clusterModel.test.ts checks this invariant on
// every explored state, so encoding the cursor alone is exact.

function encodeCopy(c: KeyCopy | undefined): string {
  return c ? `${c.cursor}.${c.epoch}${c.frozen ? 'f' : ''}` : '-';
}

/**
 * Everything the state says about worker `w`: its status, its copies, and a
 * marker for every place the rest of the state refers to it (owner of a key,
 * handoff source or destination, destination of the last install message).
 */
function workerSignature(config: ClusterModelConfig, st: ClusterState, w: WorkerId): string {
  const ws = worker(st, w);
  const h = st.coordinator.handoff;
  let sig = ws.status === 'up' ? 'U' : ws.status === 'paused' ? 'P' : 'D';
  for (const { key } of config.cluster.keys) {
    sig += `${encodeCopy(ws.keys[key])}${st.coordinator.owner[key] === w ? 'o' : ''}${st.lastInstall[key]?.dst === w ? 'm' : ''}${st.lastRelease[key]?.src === w ? 'r' : ''},`;
  }
  if (h?.src === w) sig += 's';
  if (h?.dst === w) sig += 'd';
  return sig;
}

/**
 * The canonical encoding of an explored state. With `symmetric`, worker ids
 * are left out: workers are interchangeable (no rule names a particular
 * one), and every reference to a worker is a marker in that worker's
 * signature, so the sorted signatures determine the state up to a
 * renaming of workers — which is exactly symmetry reduction.
 */
export function encodeExplored(config: ClusterModelConfig, s: ExploredState, symmetric: boolean): string {
  const st = s.cluster;
  const c = st.coordinator;
  const h = c.handoff;
  let out = `${st.log.length} ${s.used.migrations}${s.used.failovers}${s.used.crashes}${s.used.pauses}${s.used.duplicates}${s.used.checkpoints} ${c.up ? 'U' : 'D'}`;
  if (h) out += `${h.kind[0]}${h.key}:${h.from}:${h.phase}`;
  for (const { key } of config.cluster.keys) {
    const cp = st.store[key];
    const m = st.lastInstall[key];
    const r = st.lastRelease[key];
    const stored = cp ? `${cp.cursor}.${cp.epoch}` : '-';
    const installed = m ? `${m.epoch}.${m.checkpoint ? m.checkpoint.cursor : '-'}` : '-';
    out += ` ${key}.${c.epoch[key] ?? 0}|f${st.sink.fence[key] ?? 0}|p${st.ghost.prefix[key] ?? 0}|c${stored}|m${installed}|r${r ? r.epoch : '-'}|`;
    const matches = st.sink.matches[key] ?? {};
    const ids = Object.keys(matches).sort();
    for (const id of ids) out += `${id}${matches[id] === 'inserted' ? '+' : '-'},`;
  }
  const workers = config.cluster.workers.map((w) => (symmetric ? '' : `${w}=`) + workerSignature(config, st, w));
  if (symmetric) workers.sort();
  out += ` ${workers.join(';')}`;
  if (st.ghost.violation) out += ' !';
  return out;
}

// ---------------------------------------------------------------------------
// Properties (SPEC §6)

/** ExactlyOnce, Fenced: violations the sink's ghost recorded when they happened. */
export function ghostViolation(s: ExploredState): string | undefined {
  return s.cluster.ghost.violation ?? undefined;
}

/** Quiescent: log consumed by every owner, no handoff, every node up (SPEC §6). */
export function isQuiescent(config: ClusterModelConfig, s: ExploredState): boolean {
  const st = s.cluster;
  if (!st.coordinator.up || st.coordinator.handoff) return false;
  if (config.cluster.workers.some((w) => st.workers[w]?.status !== 'up')) return false;
  return config.cluster.keys.every(({ key }) => {
    const owner = ownerOf(st, key);
    const copy = st.workers[owner]?.keys[key];
    return copy !== undefined && !copy.frozen && copy.epoch === st.coordinator.epoch[key] && hasReadLog(st.log, key, copy.cursor);
  });
}

/** C3: no relevant record of `key` at or after `cursor`. */
function hasReadLog(log: readonly LogRecord[], key: string, cursor: number): boolean {
  for (let i = cursor; i < log.length; i++) {
    const r = log[i] as LogRecord;
    if (r.kind === 'watermark' || r.key === key) return false;
  }
  return true;
}

/** ExactlyOnce at quiescence: the sink equals the oracle over the whole log. */
export function quiescentResultWrong(config: ClusterModelConfig, s: ExploredState): string | undefined {
  if (!isQuiescent(config, s)) return undefined;
  for (const { key } of config.cluster.keys) {
    const want = finalRelation(config.cluster.join, s.cluster.log, key);
    const got = insertedMatches(s.cluster.sink, key);
    if (got.length !== want.size || got.some((id) => !want.has(id))) {
      const show = (ids: Iterable<string>): string => relationSignature([...ids]).replaceAll('\n', ', ');
      return `ExactlyOnce: quiescent, but the sink's relation for ${key} is [${show(got)}], the oracle's [${show(want)}]`;
    }
  }
  return undefined;
}

const horizonMemo = new WeakMap<readonly LogRecord[], Map<string, string>>();

/** The retained set J8 prescribes for `key` after `log[0..cursor)`, as a signature. */
function prescribedRetained(join: JoinConfig, log: readonly LogRecord[], key: string, cursor: number): string {
  let memo = horizonMemo.get(log);
  if (!memo) horizonMemo.set(log, (memo = new Map()));
  const id = `${key}\u0000${cursor}`;
  let sig = memo.get(id);
  if (sig === undefined) {
    const oracle = oracleAfter(join, log, cursor);
    const kept = horizonRetained(join, { wm: oracle.wm, rows: oracle.rows.filter((r) => r.key === key) });
    sig = `${kept.rows.join(',')}|${kept.matches.join(',')}`;
    memo.set(id, sig);
  }
  return sig;
}

// Join states are immutable and shared, and each belongs to one key (the
// empty initial state, shared by all keys, retains nothing for any of them):
// judge each (join state, cursor) once. Every explored log is a prefix of the
// same script, so the log prefix is fixed by the cursor.
const boundedMemo = new WeakMap<JoinState, Map<number, string | null>>();

/** BoundedState: every copy retains exactly what J8 prescribes for the log it has read. */
export function unboundedCopy(config: ClusterModelConfig, s: ExploredState): string | undefined {
  const st = s.cluster;
  for (const w of config.cluster.workers) {
    const copies = st.workers[w]?.keys ?? {};
    for (const key in copies) {
      const copy = copies[key] as KeyCopy;
      let memo = boundedMemo.get(copy.join);
      if (!memo) boundedMemo.set(copy.join, (memo = new Map()));
      let verdict = memo.get(copy.cursor);
      if (verdict === undefined) {
        verdict = copyRetains(config, st.log, key, copy);
        memo.set(copy.cursor, verdict);
      }
      if (verdict !== null) return `BoundedState: ${w}'s copy of ${key} at cursor ${copy.cursor} ${verdict}`;
    }
  }
  return undefined;
}

/** What is wrong with what `copy` of `key` retains after reading `log` up to its cursor (J8), or null. */
export function copyRetains(config: ClusterModelConfig, log: readonly LogRecord[], key: string, copy: KeyCopy): string | null {
  const rows = copy.join.rows.map((r) => `${identityString(r)}${r.live ? '' : '†'}`).sort();
  const matches = copy.join.matches.map((m) => matchId(m.key, m.left, m.right));
  const want = prescribedRetained(config.cluster.join, log, key, copy.cursor);
  const have = `${rows.join(',')}|${matchSignature(matches)}`;
  return have === want ? null : `retains ${have}, J8 prescribes ${want}`;
}

function matchSignature(ids: string[]): string {
  return ids.sort().join(',');
}

export function describeExploredAction(a: ClusterAction): string {
  return describeClusterAction(a);
}

export type { ProtocolElement };
