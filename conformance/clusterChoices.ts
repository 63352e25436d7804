// Random cluster traces that are valid by construction: a list of "choice"
// numbers is interpreted against the reference cluster model, and each
// number picks one of the actions the model has enabled at that point (a
// record from a small domain, a handoff step, a fault). The trace therefore
// never contains an action the model refuses, fast-check shrinks it by
// shrinking the numbers and the list, and the model's events and
// observation after every step come with it, for lockstep comparison.
import fc from 'fast-check';
import type { ClusterAction, ClusterEvent, ClusterObservation, LogRecord, RowRecord } from '../spec/index.ts';
import {
  COORDINATOR,
  applyExternal,
  initialClusterState,
  observeCluster,
  whyDisabled,
  type ClusterSetup,
  type ClusterState,
} from '../model/cluster.ts';
import { initialOracleState, stepOracle, type OracleState } from '../model/index.ts';

export type ChoiceStep =
  | {
      readonly kind: 'action';
      readonly action: ClusterAction;
      /** What the model did and shows after it. */
      readonly events: ClusterEvent[];
      readonly observation: ClusterObservation;
      /** An action the model refuses at this point (before `action`), to check that it is refused. */
      readonly refused: ClusterAction;
    }
  | {
      /** Every node crashes at once (a process running the whole cluster dies); the model shows the state after. */
      readonly kind: 'reopen';
      readonly observation: ClusterObservation;
    };

export interface ChoiceOptions {
  /** Some choices crash the whole cluster (`reopen` steps). */
  readonly reopen?: boolean;
}

/** Choice numbers; each one is interpreted by `interpretChoices`. */
export function choicesArbitrary(maxSteps: number): fc.Arbitrary<number[]> {
  return fc.array(fc.nat({ max: 1 << 24 }), { minLength: Math.min(5, maxSteps), maxLength: maxSteps, size: 'max' });
}

const UNDECLARED_KEY = 'k-undeclared';
const UNKNOWN_WORKER = 'w-unknown';

/** The record domain, by category, so that a choice can weigh them. */
export interface RecordDomain {
  readonly inserts: LogRecord[];
  readonly retracts: LogRecord[];
  readonly watermarks: LogRecord[];
  /** Records the cluster rejects (invalid, undeclared key) or the join rejects (a conflict). */
  readonly odd: LogRecord[];
}

/**
 * A small record domain for the setup's keys: three ids per key and side
 * whose intervals overlap in chains, their retractions, watermarks that
 * reach every horizon, and records that are rejected.
 */
export function recordDomain(setup: ClusterSetup): RecordDomain {
  const shapes: [string, number, number, number][] = [
    ['a', 1, 1, 2],
    ['b', 3, 2, 4],
    ['c', 4, 4, 4],
  ];
  const domain: RecordDomain = { inserts: [], retracts: [], watermarks: [], odd: [] };
  for (const { key } of setup.keys) {
    for (const side of ['L', 'R']) {
      for (const [id, ts, start, end] of shapes) {
        const clipped = Math.min(end, start + setup.join.maxIntervalLength);
        const row: RowRecord = { kind: 'insert', key, side, id, ts: Math.min(ts, clipped), start, end: clipped };
        domain.inserts.push(row);
        domain.retracts.push({ ...row, kind: 'retract' });
      }
    }
    domain.odd.push({ kind: 'insert', key, side: 'L', id: 'a', ts: 0, start: 0, end: 0 }); // conflicts with L/a above
  }
  for (const side of ['L', 'R']) for (const wm of [1, 2, 3, 4, 6, 9]) domain.watermarks.push({ kind: 'watermark', side, wm });
  const first = setup.keys[0]?.key ?? 'k';
  domain.odd.push(
    { kind: 'insert', key: UNDECLARED_KEY, side: 'L', id: 'a', ts: 1, start: 1, end: 1 },
    { kind: 'insert', key: first, side: 'X', id: 'a', ts: 1, start: 1, end: 1 },
    { kind: 'retract', key: first, side: 'R', id: 'z', ts: 5, start: 1, end: 2 },
  );
  return domain;
}

/** Every control action and fault over the setup's workers and keys (enabled or not). */
export function controlActions(setup: ClusterSetup): ClusterAction[] {
  const keys = setup.keys.map((k) => k.key);
  const out: ClusterAction[] = [];
  for (const key of keys) {
    for (const to of setup.workers) out.push({ type: 'freeze', key, to });
    out.push(
      { type: 'persist', key },
      { type: 'install', key },
      { type: 'duplicateInstall', key },
      { type: 'commit', key },
      { type: 'commit', key, crashAfterFence: true },
      { type: 'release', key },
      { type: 'duplicateRelease', key },
      { type: 'abort', key },
    );
    for (const to of setup.workers) out.push({ type: 'failover', key, to }, { type: 'failover', key, to, crashAfterFence: true });
    for (const worker of setup.workers) out.push({ type: 'checkpoint', worker, key });
  }
  for (const node of [...setup.workers, COORDINATOR]) out.push({ type: 'crash', node }, { type: 'restart', node });
  for (const worker of setup.workers) out.push({ type: 'pause', worker }, { type: 'resume', worker });
  return out;
}

/** Actions no state enables: processing (eager, §7) and names nobody declared. */
function neverEnabled(setup: ClusterSetup): ClusterAction[] {
  const key = setup.keys[0]?.key ?? 'k';
  const worker = setup.workers[0] ?? 'w';
  return [
    { type: 'process', worker, key },
    { type: 'freeze', key, to: UNKNOWN_WORKER },
    { type: 'freeze', key: UNDECLARED_KEY, to: worker },
    { type: 'crash', node: UNKNOWN_WORKER },
    { type: 'checkpoint', worker: UNKNOWN_WORKER, key },
    { type: 'failover', key: UNDECLARED_KEY, to: worker },
  ];
}

/** Crash every node that is not down: what a dying process does to a cluster it runs whole. */
export function crashEverything(setup: ClusterSetup, state: ClusterState): ClusterState {
  let next = state;
  for (const node of [COORDINATOR, ...setup.workers]) {
    const a: ClusterAction = { type: 'crash', node };
    if (whyDisabled(setup, next, a) === undefined) next = applyExternal(setup, next, a).state;
  }
  return next;
}

/** Steps that move the cluster towards quiescence: the in-flight handoff's next steps, new migrations, recoveries. */
function isProgress(a: ClusterAction): boolean {
  switch (a.type) {
    case 'persist':
    case 'install':
    case 'release':
    case 'freeze':
    case 'restart':
    case 'resume':
      return true;
    case 'commit':
    case 'failover':
      return !a.crashAfterFence;
    default:
      return false;
  }
}

/**
 * Interprets `choices` against the model from its initial state. For each
 * choice `c`: with `reopen`, `c % 32 === 31` crashes the whole cluster;
 * otherwise `c % 8` picks the lane — a record (half the time: by
 * `(c >> 3) % 10`, an insert, a retract, a watermark or an odd record), an
 * enabled progress step (a quarter: handoff steps, migrations, restarts),
 * or any enabled control action or fault — and `c >> 7` the candidate in
 * the lane (records that would break the input contract J9 are left out).
 * `c >> 12` picks the refused action to probe.
 */
export function interpretChoices(setup: ClusterSetup, choices: readonly number[], options: ChoiceOptions = {}): ChoiceStep[] {
  const records = recordDomain(setup);
  const controls = controlActions(setup);
  const never = neverEnabled(setup);
  let state = initialClusterState(setup);
  let oracle: OracleState = initialOracleState;
  const steps: ChoiceStep[] = [];
  for (const c of choices) {
    if (options.reopen && c % 32 === 31) {
      state = crashEverything(setup, state);
      steps.push({ kind: 'reopen', observation: observeCluster(setup, state) });
      continue;
    }
    const enabled: ClusterAction[] = [];
    const disabled: ClusterAction[] = [...never];
    for (const a of controls) (whyDisabled(setup, state, a) === undefined ? enabled : disabled).push(a);
    const progress = enabled.filter(isProgress);
    const lane = c % 8;
    const pick = c >> 7;
    let action: ClusterAction;
    if ((lane === 1 || lane === 3) && progress.length > 0) action = progress[pick % progress.length] as ClusterAction;
    else if ((lane === 5 || lane === 7) && enabled.length > 0) action = enabled[pick % enabled.length] as ClusterAction;
    else {
      const category = (c >> 3) % 10;
      const pool = category < 5 ? records.inserts : category < 7 ? records.retracts : category < 9 ? records.watermarks : records.odd;
      const inContract = pool.filter((r) => !stepOracle(setup.join, oracle, r).contractViolation);
      const all = inContract.length > 0 ? inContract : records.watermarks;
      action = { type: 'record', record: all[pick % all.length] as LogRecord };
    }
    const refused = disabled[(c >> 12) % disabled.length] as ClusterAction;
    const t = applyExternal(setup, state, action);
    if (action.type === 'record' && t.events[0]?.type === 'appended') oracle = stepOracle(setup.join, oracle, action.record).state;
    state = t.state;
    steps.push({ kind: 'action', action, events: t.events, observation: observeCluster(setup, state), refused });
  }
  return steps;
}
