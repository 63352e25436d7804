// Random cluster traces at a capability level, for fast-check. A trace is
// generated as a workload (a log from arbitraries.ts, in contract, J9) and a
// list of *choices*, interpreted by walking the reference model: each choice
// appends a few workload records and then picks one control action among
// those enabled in the model's current state (rarely, on purpose, one that is
// not enabled, which the system must refuse, §7). Because the choices are
// interpreted against the state, shrinking a choice list (dropping choices,
// fewer records, smaller picks) always yields a valid trace again.
import fc from 'fast-check';
import { CLUSTER_TRACE_FORMAT, OPERATOR_TRACE_FORMAT, levelOfAction } from '../spec/index.ts';
import type { ClusterConfig, ClusterTrace, ExternalAction, JoinConfig, Level, LogRecord, OperatorTrace, RowRecord } from '../spec/index.ts';
import { COORDINATOR, applyExternal, initialClusterState, whyDisabled } from '../model/cluster.ts';
import { configArbitrary, configuredLogArbitrary, keepInContract } from './arbitraries.ts';

/** One control choice: how many workload records come first, then which action. */
export interface ControlChoice {
  readonly records: number;
  /** Index into the candidates, modulo their number. */
  readonly pick: number;
  /** Pick among the actions that are NOT enabled (the system must refuse it, §7). */
  readonly disabled: boolean;
}

/** Small domains: two keys, two or three workers, a dozen records, a dozen control actions. */
export interface ClusterDomain {
  readonly maxWorkers: number;
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
  maxWorkers: 3,
  keys: ['k1', 'k2'],
  ids: ['a', 'b', 'c'],
  maxTime: 3,
  minRecords: 3,
  maxRecords: 12,
  maxChoices: 12,
};

/**
 * One workload step. Unlike the operator-level logs (arbitraries.ts), which
 * exercise every J-rule, a cluster workload must above all produce *writes*:
 * matches, and retractions of matched rows, for the handoff, the fence and
 * the sink's dedup to act on. So inserts dominate, times are close together,
 * and a retraction names a row inserted before.
 */
type WorkloadOp =
  | { readonly insert: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number } }
  | { readonly retract: number }
  | { readonly resend: number }
  | { readonly watermark: { side: 'L' | 'R'; wm: number } }
  | { readonly odd: 'unknown_key' | 'bad_side' };

function workloadOpArbitrary(domain: ClusterDomain, config: JoinConfig): fc.Arbitrary<WorkloadOp> {
  const D = config.maxIntervalLength;
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          key: fc.nat({ max: domain.keys.length - 1 }),
          side: fc.constantFrom('L' as const, 'R' as const),
          id: fc.nat({ max: domain.ids.length - 1 }),
          start: fc.nat({ max: domain.maxTime }),
          length: fc.nat({ max: D }),
          offset: fc.nat({ max: D }),
        })
        .map((insert) => ({ insert })),
    },
    { weight: 2, arbitrary: fc.nat().map((retract) => ({ retract })) },
    { weight: 1, arbitrary: fc.nat().map((resend) => ({ resend })) },
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
  const inserted: RowRecord[] = [];
  for (const op of ops) {
    if ('insert' in op) {
      const { key, side, id, start, length, offset } = op.insert;
      const row: RowRecord = {
        kind: 'insert',
        key: domain.keys[key] as string,
        side,
        id: domain.ids[id] as string,
        ts: start + (offset % (length + 1)),
        start,
        end: start + length,
      };
      out.push(row);
      inserted.push(row);
    } else if ('retract' in op || 'resend' in op) {
      const i = 'retract' in op ? op.retract : op.resend;
      const row = inserted[i % Math.max(1, inserted.length)];
      if (row) out.push('retract' in op ? { ...row, kind: 'retract' } : { ...row });
    } else if ('watermark' in op) {
      out.push({ kind: 'watermark', ...op.watermark });
    } else if (op.odd === 'unknown_key') {
      // C3: a valid record of a key the cluster does not declare is rejected before the log.
      out.push({ kind: 'insert', key: 'k-undeclared', side: 'L', id: 'a', ts: 1, start: 1, end: 1 });
    } else {
      out.push({ kind: 'watermark', side: 'X', wm: 1 });
    }
  }
  return out;
}

/** A cluster workload for `config`, in contract (J9). */
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

/**
 * Interprets a workload and choices against the model: the external actions
 * of a trace, every one of them enabled except those a `disabled` choice
 * picked on purpose.
 */
export function interpretChoices(
  config: ClusterConfig,
  level: 'cluster' | 'faults',
  workload: readonly LogRecord[],
  choices: readonly ControlChoice[],
): ExternalAction[] {
  const universe = controlActions(config, level);
  let state = initialClusterState(config);
  const actions: ExternalAction[] = [];
  let next = 0;
  const enabled = (a: ExternalAction): boolean => whyDisabled(config, state, a) === undefined;
  const take = (a: ExternalAction): void => {
    actions.push(a);
    if (enabled(a)) state = applyExternal(config, state, a).state;
  };
  for (const choice of choices) {
    for (let i = 0; i < choice.records && next < workload.length; i++) take({ type: 'record', record: workload[next++] as LogRecord });
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
        for (let i = 0; i < a.records && next < workload.length; i++) take({ type: 'record', record: workload[next++] as LogRecord });
        continue;
      }
      if (!enabled(a)) break;
      take(a);
    }
  }
  while (next < workload.length) take({ type: 'record', record: workload[next++] as LogRecord });
  return actions;
}

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
        // The owner crashes: the new owner replays from the latest checkpoint (C8, C9 dedup).
        out.push({
          weight: 1,
          sequence: [{ type: 'crash', node: from }, { type: 'failover', key, to }, { records: 2 }, { type: 'restart', node: from }],
        });
      }
    }
  }
  return out;
}

function clusterConfigArbitrary(domain: ClusterDomain): fc.Arbitrary<ClusterConfig> {
  return fc
    .record({
      join: configArbitrary(),
      workers: fc.integer({ min: 2, max: domain.maxWorkers }),
      owners: fc.array(fc.nat(), { minLength: domain.keys.length, maxLength: domain.keys.length }),
    })
    .map(({ join, workers, owners }): ClusterConfig => {
      const ids = Array.from({ length: workers }, (_, i) => `w${i + 1}`);
      const keys = domain.keys.map((key, i) => ({ key, owner: ids[(owners[i] ?? 0) % workers] as string }));
      // Both lists are non-empty: at least two workers, and the domain's keys.
      return { join, workers: ids as ClusterConfig['workers'], keys: keys as ClusterConfig['keys'] };
    });
}

const choiceArbitrary: fc.Arbitrary<ControlChoice> = fc.record({
  records: fc.integer({ min: 0, max: 3 }),
  pick: fc.nat({ max: 63 }),
  // One choice in eight tries an action that is not enabled; shrinks toward enabled ones.
  disabled: fc.integer({ min: 0, max: 7 }).map((n) => n === 7),
});

/** Random cluster traces at `level` (no expectations: the model supplies them). */
export function clusterTraceArbitrary(level: 'cluster' | 'faults', domain: ClusterDomain = smallClusterDomain): fc.Arbitrary<ClusterTrace> {
  return clusterConfigArbitrary(domain).chain((config) =>
    fc
      .tuple(workloadArbitrary(domain, config.join), fc.array(choiceArbitrary, { maxLength: domain.maxChoices }))
      .map(([workload, choices]) => ({
        format: CLUSTER_TRACE_FORMAT,
        name: `random-${level}`,
        config,
        steps: interpretChoices(config, level, workload, choices).map((action) => ({ action })),
      })),
  );
}

/** Random operator traces (level `operator`), in contract (J9). */
export function operatorTraceArbitrary(): fc.Arbitrary<OperatorTrace> {
  return configuredLogArbitrary().map(({ config, log }: { config: JoinConfig; log: LogRecord[] }) => ({
    format: OPERATOR_TRACE_FORMAT,
    name: 'random-operator',
    config,
    steps: log.map((record) => ({ record })),
  }));
}

/** The trace arbitrary of a level. */
export function traceArbitraryOf(level: Level): fc.Arbitrary<ClusterTrace> | fc.Arbitrary<OperatorTrace> {
  return level === 'operator' ? operatorTraceArbitrary() : clusterTraceArbitrary(level);
}
