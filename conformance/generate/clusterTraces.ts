// Random cluster traces for fast-check: the one generator behind `streamjoin
// conform`'s random traces, the harness benchmark, and impl/'s lockstep and
// durability tests.
//
// A trace is generated as a workload (a log, in contract, J9) and a list of
// *choices*, interpreted by walking the reference model: each choice appends
// a few workload records and then picks one control action among those
// enabled in the model's current state (rarely, on purpose, one that is not
// enabled, which the system must refuse, §7), or a multi-step scenario (a
// whole migration, an owner declared dead while it runs on), or, when asked
// for, a crash of every node at once (a whole-cluster reopen). Because the
// choices are interpreted against the state, shrinking a choice list
// (dropping choices, fewer records, smaller picks) always yields a valid
// trace again.
//
// Some traces use odd names (`__proto__`, `constructor`, ids with `/`, `%`,
// `|R:`): keys, workers and row ids that break naive object maps, path
// splitting or ambiguous (unescaped) match ids.
import fc from 'fast-check';
import { CLUSTER_TRACE_FORMAT, levelOfAction, COORDINATOR } from '../../spec/index.ts';
import type {
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  ClusterTrace,
  ExternalAction,
  JoinConfig,
  LogRecord,
  RowRecord,
} from '../../spec/index.ts';
import {
  initialClusterState,
  type ClusterSetup,
  type ClusterState,
  applyExternal,
  observeCluster,
  whyNotEnabled,
} from '../../model/index.ts';
import { configArbitrary, keepInContract } from './logs.ts';

/** One control choice: how many workload records come first, then which action. */
export interface ControlChoice {
  readonly records: number;
  /** Index into the candidates, modulo their number. */
  readonly pick: number;
  /** Pick among the actions that are NOT enabled (the system must refuse it, §7). */
  readonly disabled: boolean;
  /** Crash every node at once instead of an action (only where asked for: `reopen`). */
  readonly reopen: boolean;
  /** Which refused action a lockstep test probes before this step (`ChoiceStep.refused`). */
  readonly probe: number;
}

/** Small domains: two keys, two or three workers, a dozen records, a dozen control actions. */
export interface ClusterDomain {
  /** Worker names; a config takes the first two or more. */
  readonly workers: readonly string[];
  /** The declared keys. */
  readonly keys: readonly string[];
  readonly ids: readonly string[];
  /** Row times are drawn from [0, maxTime]. */
  readonly maxTime: number;
  readonly minRecords: number;
  readonly maxRecords: number;
  readonly maxChoices: number;
}

export const smallClusterDomain: ClusterDomain = {
  workers: ['w1', 'w2', 'w3'],
  keys: ['k1', 'k2'],
  ids: ['a', 'b', 'c'],
  maxTime: 3,
  minRecords: 3,
  maxRecords: 12,
  maxChoices: 12,
};

/** Longer runs, for lockstep tests that drive a cluster directly (cheap per step; faults compound). */
export const longClusterDomain: ClusterDomain = { ...smallClusterDomain, maxRecords: 16, maxChoices: 24 };

/**
 * Odd names everywhere: a worker and a key named `__proto__`, a worker named
 * `constructor`, and names and ids with the characters the match-id encoding
 * escapes (`/`, `%`) or an unescaped encoding like `"L:"+a+"|R:"+b` splits on (`|R:`).
 */
export const oddClusterDomain: ClusterDomain = {
  ...smallClusterDomain,
  workers: ['__proto__', 'constructor', 'w/1%2F'],
  keys: ['__proto__', 'k|R:1/%'],
  ids: ['a|R:b', 'a', 'constructor'],
};

/** A key no domain declares (C3: records of it are rejected before the log). */
const UNDECLARED_KEY = 'k-undeclared';
const UNKNOWN_WORKER = 'w-unknown';

/**
 * One workload step. Unlike the operator-level logs (logs.ts), which
 * exercise every J-rule, a cluster workload must above all produce *writes*:
 * matches, and retractions of matched rows, for the handoff, the fence and
 * the sink's dedup to act on. So inserts dominate, some come in overlapping
 * pairs (a match for certain), times are close together, and a retraction
 * names a row inserted before; a few retractions overtake their insert (J6),
 * and a few re-sends conflict (J2).
 */
type WorkloadOp =
  | { readonly insert: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number } }
  | { readonly pair: { key: number; left: number; right: number; start: number; length: number } }
  | { readonly overtake: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number } }
  | { readonly retract: number }
  | { readonly resend: number }
  | { readonly conflict: number }
  | { readonly watermark: { side: 'L' | 'R'; wm: number } }
  | { readonly odd: 'unknown_key' | 'bad_side' };

function workloadOpArbitrary(domain: ClusterDomain, config: JoinConfig): fc.Arbitrary<WorkloadOp> {
  const D = config.maxIntervalLength;
  const row = fc.record({
    key: fc.nat({ max: domain.keys.length - 1 }),
    side: fc.constantFrom('L' as const, 'R' as const),
    id: fc.nat({ max: domain.ids.length - 1 }),
    start: fc.nat({ max: domain.maxTime }),
    length: fc.nat({ max: D }),
    offset: fc.nat({ max: D }),
  });
  const pair = fc.record({
    key: fc.nat({ max: domain.keys.length - 1 }),
    left: fc.nat({ max: domain.ids.length - 1 }),
    right: fc.nat({ max: domain.ids.length - 1 }),
    start: fc.nat({ max: domain.maxTime }),
    length: fc.nat({ max: D }),
  });
  return fc.oneof(
    { weight: 6, arbitrary: row.map((insert) => ({ insert })) },
    { weight: 2, arbitrary: pair.map((p) => ({ pair: p })) },
    { weight: 1, arbitrary: row.map((overtake) => ({ overtake })) },
    { weight: 3, arbitrary: fc.nat().map((retract) => ({ retract })) },
    { weight: 1, arbitrary: fc.nat().map((resend) => ({ resend })) },
    { weight: 1, arbitrary: fc.nat().map((conflict) => ({ conflict })) },
    {
      weight: 2,
      arbitrary: fc
        .record({ side: fc.constantFrom('L' as const, 'R' as const), wm: fc.nat({ max: domain.maxTime + config.allowedLateness + D + 1 }) })
        .map((watermark) => ({ watermark })),
    },
    { weight: 1, arbitrary: fc.constantFrom('unknown_key' as const, 'bad_side' as const).map((odd) => ({ odd })) },
  );
}

function materializeWorkload(domain: ClusterDomain, ops: readonly WorkloadOp[]): LogRecord[] {
  const out: LogRecord[] = [];
  const rows: RowRecord[] = [];
  const rowOf = (
    kind: 'insert' | 'retract',
    r: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number },
  ): RowRecord => ({
    kind,
    key: domain.keys[r.key] as string,
    side: r.side,
    id: domain.ids[r.id] as string,
    ts: r.start + (r.offset % (r.length + 1)),
    start: r.start,
    end: r.start + r.length,
  });
  for (const op of ops) {
    if ('pair' in op) {
      // Two rows of one key that overlap: a match, for certain (J3).
      const { key, left, right, start, length } = op.pair;
      for (const [side, id] of [
        ['L', left],
        ['R', right],
      ] as const) {
        const r: RowRecord = {
          kind: 'insert',
          key: domain.keys[key] as string,
          side,
          id: domain.ids[id] as string,
          ts: start,
          start,
          end: start + length,
        };
        out.push(r);
        rows.push(r);
      }
    } else if ('insert' in op || 'overtake' in op) {
      const row = 'insert' in op ? rowOf('insert', op.insert) : rowOf('retract', op.overtake);
      out.push(row);
      rows.push(row);
    } else if ('retract' in op || 'resend' in op || 'conflict' in op) {
      const i = 'retract' in op ? op.retract : 'resend' in op ? op.resend : op.conflict;
      const row = rows[i % Math.max(1, rows.length)];
      if (!row) continue;
      if ('retract' in op) out.push({ ...row, kind: 'retract' });
      else if ('resend' in op) out.push({ ...row });
      // J2: the same identity with other (valid) content: rejected as a conflict.
      else out.push({ ...row, kind: 'insert', ts: row.ts + 1, start: row.start + 1, end: row.end + 1 });
    } else if ('watermark' in op) {
      out.push({ kind: 'watermark', ...op.watermark });
    } else if (op.odd === 'unknown_key') {
      // C3: a valid record of a key the cluster does not declare is rejected before the log.
      out.push({ kind: 'insert', key: UNDECLARED_KEY, side: 'L', id: 'a', ts: 1, start: 1, end: 1 });
    } else {
      out.push({ kind: 'watermark', side: 'X', wm: 1 });
    }
  }
  return out;
}

/** A cluster workload for `config` over the domain's keys, in contract (J9). */
export function workloadArbitrary(domain: ClusterDomain, config: JoinConfig): fc.Arbitrary<LogRecord[]> {
  return fc
    .array(workloadOpArbitrary(domain, config), { minLength: domain.minRecords, maxLength: domain.maxRecords })
    .map((ops) => keepInContract(config, materializeWorkload(domain, ops)));
}

/** Every control action over the config's keys and workers, at a level (the candidates a choice picks from). */
export function controlActions(config: ClusterConfig, level: 'cluster' | 'faults'): ExternalAction[] {
  const out: ExternalAction[] = [];
  const keys = config.keys.map((k) => k.key);
  for (const key of keys) {
    for (const to of config.workers) out.push({ type: 'freeze', key, to });
    out.push({ type: 'persist', key }, { type: 'install', key }, { type: 'commit', key }, { type: 'release', key }, { type: 'abort', key });
    for (const worker of config.workers) out.push({ type: 'checkpoint', worker, key });
  }
  if (level === 'faults') {
    for (const key of keys) {
      out.push({ type: 'commit', key, crashAfterFence: true });
      for (const to of config.workers) out.push({ type: 'failover', key, to }, { type: 'failover', key, to, crashAfterFence: true });
      out.push({ type: 'duplicateInstall', key }, { type: 'duplicateRelease', key });
    }
    for (const node of [...config.workers, COORDINATOR]) out.push({ type: 'crash', node }, { type: 'restart', node });
    for (const worker of config.workers) out.push({ type: 'pause', worker }, { type: 'resume', worker });
  }
  return out.filter((a) => level === 'faults' || levelOfAction(a) === 'cluster');
}

/** Actions no state enables: processing (eager, §7) and names nobody declared; probes for refusals. */
function neverEnabled(config: ClusterConfig): ClusterAction[] {
  const key = config.keys[0].key;
  const worker = config.workers[0];
  return [
    { type: 'process', worker, key },
    { type: 'freeze', key, to: UNKNOWN_WORKER },
    { type: 'freeze', key: UNDECLARED_KEY, to: worker },
    { type: 'crash', node: UNKNOWN_WORKER },
    { type: 'checkpoint', worker: UNKNOWN_WORKER, key },
    { type: 'failover', key: UNDECLARED_KEY, to: worker },
  ];
}

/**
 * How often a choice picks an action, relative to the others: the steps of a
 * handoff in flight, recoveries (restart, resume, failover) high, so that
 * handoffs complete and crashed nodes come back within short traces.
 */
function weightOf(a: ExternalAction): number {
  switch (a.type) {
    case 'persist':
    case 'install':
    case 'release':
      return 6;
    case 'commit':
      return a.crashAfterFence ? 1 : 6;
    case 'restart':
    case 'resume':
      return 3;
    case 'failover':
      return a.crashAfterFence ? 1 : 3;
    case 'freeze':
      return 2;
    default:
      return 1;
  }
}

/** Crash every node that is not down: what a dying process does to a cluster it runs whole. */
export function crashEverything(setup: ClusterSetup, state: ClusterState): ClusterState {
  let next = state;
  for (const node of [COORDINATOR, ...setup.workers]) {
    const a: ClusterAction = { type: 'crash', node };
    if (whyNotEnabled(setup, next, a) === undefined) next = applyExternal(setup, next, a).state;
  }
  return next;
}

/** One item of an interpreted choice list: an external action (with its refusal probe number), or a whole-cluster crash. */
export type ChoiceItem = { readonly kind: 'action'; readonly action: ExternalAction; readonly probe: number } | { readonly kind: 'reopen' };

/**
 * Multi-step scenarios a single choice may pick, so that the deep
 * interleavings the protocol elements exist for (a whole migration; an owner
 * declared dead and failed over while it still runs, a zombie to be) are
 * reached in short random traces, and records can still fall between them.
 */
type ScenarioStep = ExternalAction | { readonly records: number };

function scenarios(
  config: ClusterConfig,
  level: 'cluster' | 'faults',
  owner: Readonly<Record<string, string>>,
): { sequence: readonly ScenarioStep[]; weight: number }[] {
  const out: { sequence: readonly ScenarioStep[]; weight: number }[] = [];
  for (const { key } of config.keys) {
    const from = owner[key] as string;
    for (const to of config.workers) {
      if (to === from) continue;
      out.push({
        weight: 3,
        sequence: [
          { type: 'freeze', key, to },
          { type: 'persist', key },
          { type: 'install', key },
          { type: 'commit', key },
          { type: 'release', key },
        ],
      });
      if (level === 'faults') {
        // The owner is declared dead while it runs on: a zombie when it resumes (C9, C10).
        out.push({
          weight: 2,
          sequence: [{ type: 'pause', worker: from }, { type: 'failover', key, to }, { records: 3 }, { type: 'resume', worker: from }],
        });
        // The owner crashes: the new owner replays from the latest checkpoint (C8, C9 dedup and terminal retract).
        out.push({
          weight: 3,
          sequence: [{ type: 'crash', node: from }, { type: 'failover', key, to }, { records: 2 }, { type: 'restart', node: from }],
        });
      }
    }
  }
  return out;
}

/**
 * Interprets a workload and choices against the model: the items of a
 * trace, every action enabled except those a `disabled` choice picked on
 * purpose; with `reopen`, a choice marked so crashes every node instead.
 */
export function interpretChoiceItems(
  config: ClusterSetup,
  level: 'cluster' | 'faults',
  workload: readonly LogRecord[],
  choices: readonly ControlChoice[],
  options: { readonly reopen?: boolean } = {},
): ChoiceItem[] {
  // Conformance compares observations only: no ghost state for properties.
  const setup: ClusterSetup = { ...config, checkProperties: false };
  const universe = controlActions(config, level);
  let state = initialClusterState(setup);
  const items: ChoiceItem[] = [];
  let next = 0;
  let probe = 0;
  const enabled = (a: ExternalAction): boolean => whyNotEnabled(setup, state, a) === undefined;
  const take = (a: ExternalAction): void => {
    items.push({ kind: 'action', action: a, probe });
    if (enabled(a)) state = applyExternal(setup, state, a).state;
  };
  const records = (n: number): void => {
    for (let i = 0; i < n && next < workload.length; i++) take({ type: 'record', record: workload[next++] as LogRecord });
  };
  for (const choice of choices) {
    probe = choice.probe;
    records(choice.records);
    if (options.reopen && choice.reopen) {
      items.push({ kind: 'reopen' });
      state = crashEverything(setup, state);
      continue;
    }
    const candidates: (readonly ScenarioStep[])[] = [];
    for (const a of universe) {
      if (enabled(a) === choice.disabled) continue;
      // Disabled actions are picked uniformly; enabled ones by weight.
      for (let w = choice.disabled ? 1 : weightOf(a); w > 0; w--) candidates.push([a]);
    }
    if (!choice.disabled) {
      for (const { sequence, weight } of scenarios(config, level, state.coordinator.owner)) {
        if (!enabled(sequence[0] as ExternalAction)) continue;
        for (let w = weight; w > 0; w--) candidates.push(sequence);
      }
    }
    const pick = candidates[choice.pick % Math.max(1, candidates.length)];
    if (!pick) continue;
    // A scenario goes on while its next action is enabled (its first one is).
    take(pick[0] as ExternalAction);
    for (const a of pick.slice(1)) {
      if ('records' in a) {
        records(a.records);
        continue;
      }
      if (!enabled(a)) break;
      take(a);
    }
  }
  records(workload.length);
  return items;
}

/** The external actions of a trace (no whole-cluster crashes: a protocol has no such request). */
export function interpretChoices(
  config: ClusterConfig,
  level: 'cluster' | 'faults',
  workload: readonly LogRecord[],
  choices: readonly ControlChoice[],
): ExternalAction[] {
  return interpretChoiceItems(config, level, workload, choices).flatMap((item) => (item.kind === 'action' ? [item.action] : []));
}

/**
 * One step with the model's answer, for lockstep tests that drive a cluster
 * directly: an action, what it must cause (events, or the reason it is
 * refused) and the observation after it, and an action that is NOT enabled
 * just before it (to check that the cluster refuses it and changes
 * nothing); or a whole-cluster crash and the observation after it.
 */
export type ChoiceStep =
  | {
      readonly kind: 'action';
      readonly action: ExternalAction;
      readonly expected: { readonly events: ClusterEvent[] } | { readonly error: string };
      readonly observation: ClusterObservation;
      readonly refused: ClusterAction;
    }
  | { readonly kind: 'reopen'; readonly observation: ClusterObservation };

/** Runs interpreted items through the model (SPEC §7), recording what each must cause and show. */
export function modelChoiceSteps(config: ClusterSetup, level: 'cluster' | 'faults', items: readonly ChoiceItem[]): ChoiceStep[] {
  const setup: ClusterSetup = { ...config, checkProperties: false };
  const universe = controlActions(config, level);
  const never = neverEnabled(config);
  let state = initialClusterState(setup);
  return items.map((item): ChoiceStep => {
    if (item.kind === 'reopen') {
      state = crashEverything(setup, state);
      return { kind: 'reopen', observation: observeCluster(setup, state) };
    }
    const disabled: ClusterAction[] = [...never, ...universe.filter((a) => whyNotEnabled(setup, state, a) !== undefined)];
    const refused = disabled[item.probe % disabled.length] as ClusterAction;
    const why = whyNotEnabled(setup, state, item.action);
    if (why !== undefined)
      return { kind: 'action', action: item.action, expected: { error: why }, observation: observeCluster(setup, state), refused };
    const t = applyExternal(setup, state, item.action);
    state = t.state;
    return { kind: 'action', action: item.action, expected: { events: t.events }, observation: observeCluster(setup, state), refused };
  });
}

function clusterConfigArbitrary(domain: ClusterDomain): fc.Arbitrary<ClusterConfig> {
  return fc
    .record({
      join: configArbitrary(),
      workers: fc.integer({ min: 2, max: domain.workers.length }),
      owners: fc.array(fc.nat(), { minLength: domain.keys.length, maxLength: domain.keys.length }),
    })
    .map(({ join, workers, owners }): ClusterConfig => {
      const ids = domain.workers.slice(0, workers);
      const keys = domain.keys.map((key, i) => ({ key, owner: ids[(owners[i] ?? 0) % workers] as string }));
      // Both lists are non-empty: at least two workers, and the domain's keys.
      return { join, workers: ids as ClusterConfig['workers'], keys: keys as ClusterConfig['keys'] };
    });
}

function choiceArbitrary(reopen: boolean): fc.Arbitrary<ControlChoice> {
  return fc.record({
    records: fc.integer({ min: 0, max: 3 }),
    pick: fc.nat({ max: 63 }),
    // One choice in eight tries an action that is not enabled; shrinks toward enabled ones.
    disabled: fc.integer({ min: 0, max: 7 }).map((n) => n === 7),
    // One in sixteen crashes the whole cluster, where asked for.
    reopen: reopen ? fc.integer({ min: 0, max: 15 }).map((n) => n === 15) : fc.constant(false),
    probe: fc.nat({ max: 255 }),
  });
}

/** The domain of a random trace: the small one three times in four, the odd names otherwise. */
function domainArbitrary(): fc.Arbitrary<ClusterDomain> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(smallClusterDomain) }, { weight: 1, arbitrary: fc.constant(oddClusterDomain) });
}

/**
 * Random cluster traces at `level` (no expectations: the model supplies
 * them), over `domain`, or over the small and the odd domain mixed.
 */
export function clusterTraceArbitrary(level: 'cluster' | 'faults', domain?: ClusterDomain): fc.Arbitrary<ClusterTrace> {
  const domains = domain === undefined ? domainArbitrary() : fc.constant(domain);
  return domains.chain((d) =>
    clusterConfigArbitrary(d).chain((config) =>
      fc
        .tuple(workloadArbitrary(d, config.join), fc.array(choiceArbitrary(false), { maxLength: d.maxChoices }))
        .map(([workload, choices]) => ({
          format: CLUSTER_TRACE_FORMAT,
          name: `random-${level}`,
          config,
          steps: interpretChoices(config, level, workload, choices).map((action) => ({ action })),
        })),
    ),
  );
}

export interface ChoiceStepsOptions {
  /** Sizes and names (its keys are replaced by the config's); default `longClusterDomain`. */
  readonly domain?: ClusterDomain;
  /** Some choices crash every node at once (`reopen` steps). */
  readonly reopen?: boolean;
}

/** Random steps with the model's answers for a fixed config, at level `faults` unless told (impl/'s lockstep tests). */
export function clusterStepsArbitrary(
  config: ClusterSetup,
  options: ChoiceStepsOptions & { readonly level?: 'cluster' | 'faults' } = {},
): fc.Arbitrary<ChoiceStep[]> {
  const level = options.level ?? 'faults';
  const domain: ClusterDomain = { ...(options.domain ?? longClusterDomain), keys: config.keys.map((k) => k.key) };
  // Lengths up to the maximum (size 'max'), not fast-check's small default.
  return fc
    .tuple(
      workloadArbitrary(domain, config.join),
      fc.array(choiceArbitrary(options.reopen === true), { maxLength: domain.maxChoices, size: 'max' }),
    )
    .map(([workload, choices]) => modelChoiceSteps(config, level, interpretChoiceItems(config, level, workload, choices, options)));
}
