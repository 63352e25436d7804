// The harness's power (issue 9): each test shows that a class of bug is
// reached systematically — by probes, rule edges, operator-level exhaustive
// traces, rich state across handoffs, colliding ids — and that no part of the
// harness passes vacuously. Each would fail if its deliverable regressed.
import { describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { TIME_MAX, TIME_MIN } from '../spec/index.ts';
import type { ClusterTrace, JoinConfig, Level, LogRecord } from '../spec/index.ts';
import { globalWatermark, initialJoinState, stepJoin, validityOf, type JoinState } from '../model/join/join.ts';
import { initialClusterState, type ClusterState, type KeyCopy } from '../model/cluster/clusterState.ts';
import { applyExternal } from '../model/cluster/stateMachine.ts';
import { whyNotEnabled } from '../model/cluster/guards.ts';
import { runConform, type ConformReport } from './conform.ts';
import { inProcessSystem } from './adapters/inProcess.ts';
import { implSut } from './adapters/implSut.ts';
import { modelSut } from './adapters/modelSut.ts';
import { createModelOperator } from './adapters/modelOperator.ts';
import {
  CLUSTER_SCENARIOS,
  coverAnyScenario,
  coverScenario,
  exhaustiveScenario,
  isCrashPoint,
  rejectedRecords,
  type AnyCover,
  type ExhaustiveScenario,
} from './generate/exhaustive.ts';
import { OPERATOR_SCENARIOS, coverOperatorScenario, type OperatorCover } from './generate/operatorExhaustive.ts';
import { COMMON_SEPARATORS, ROW_CHECKS } from './generate/edges.ts';
import { operatorTraceArbitrary } from './generate/logs.ts';
import { clusterTraceArbitrary } from './generate/clusterTraces.ts';
import { naiveMatchIdSystem, onePhaseLate, onlyLevels } from './testdata/wrongSystems.ts';
import { conformJson, conformSummary } from '../cli/conformReport.ts';
import { runCli } from '../cli/testSupport.ts';

const seed = inject('fcSeed');
const scenario = (name: string): ExhaustiveScenario => exhaustiveScenario(name) as ExhaustiveScenario;
const operatorCovers = (): OperatorCover[] => OPERATOR_SCENARIOS.map((s) => coverOperatorScenario(s));

async function conform(
  system: ReturnType<typeof inProcessSystem>,
  opts: { levels?: Level[]; runs?: number; exhaustive?: readonly AnyCover[] },
): Promise<ConformReport> {
  return runConform({
    system,
    seed,
    runs: opts.runs ?? 0,
    examples: [],
    ...(opts.levels ? { levels: opts.levels } : {}),
    ...(opts.exhaustive ? { exhaustive: opts.exhaustive } : {}),
  });
}

// ---------------------------------------------------------------------------
// The edges of the rules a log reaches, computed from the state each record meets.

const isTime = (t: number): string | undefined =>
  t === TIME_MAX
    ? 'time:2^50'
    : t === TIME_MIN
      ? 'time:-2^50'
      : t === TIME_MAX + 1
        ? 'time:2^50+1'
        : t === TIME_MIN - 1
          ? 'time:-(2^50+1)'
          : undefined;

/** Which J1 checks a record fails, each on its own (not only the first). */
function failingChecks(r: LogRecord, config: JoinConfig): string[] {
  const inRange = (t: number): boolean => t >= TIME_MIN && t <= TIME_MAX;
  const side = r.side === 'L' || r.side === 'R';
  if (r.kind === 'watermark') return [...(side ? [] : ['bad_side']), ...(inRange(r.wm) ? [] : ['out_of_range'])];
  const fails: Record<(typeof ROW_CHECKS)[number], boolean> = {
    empty_key: r.key === '',
    empty_id: r.id === '',
    bad_side: !side,
    out_of_range: ![r.ts, r.start, r.end].every(inRange),
    ts_before_start: r.ts < r.start,
    ts_after_end: r.ts > r.end,
    too_long: r.end - r.start > config.maxIntervalLength,
  };
  return ROW_CHECKS.filter((c) => fails[c]);
}

/**
 * The rule edges a log of `config` reaches: L and D at 0 and 2^50 (J0);
 * times at ±2^50 and ±(2^50+1) (§0, J1); every J1 failure alone and every
 * pair at once; intervals of length D and D + 1 (J1); inserts at
 * ts = gw - L and one tick earlier (J5); watermarks equal to, one below and
 * one above the current one (J4); a watermark that leaves gw exactly at a
 * row's horizon and one that passes it by one, and retractions there (J6, J8).
 */
function edgesOf(config: JoinConfig, records: readonly LogRecord[]): Set<string> {
  const out = new Set<string>();
  const L = config.allowedLateness;
  const D = config.maxIntervalLength;
  for (const [name, v] of [
    ['L', L],
    ['D', D],
  ] as const) {
    if (v === 0) out.add(`${name}=0`);
    if (v === 2 ** 50) out.add(`${name}=2^50`);
  }
  let state: JoinState = initialJoinState;
  for (const r of records) {
    const times = r.kind === 'watermark' ? [r.wm] : [r.ts, r.start, r.end];
    for (const t of times) {
      const e = isTime(t);
      if (e) out.add(e);
    }
    const fails = failingChecks(r, config);
    if (fails.length === 1 || fails.length === 2) out.add(`invalid:${r.kind === 'watermark' ? 'watermark:' : ''}${fails.join('+')}`);
    if (r.kind !== 'watermark') {
      if (r.end - r.start === D && validityOf(r, config) === undefined) out.add('length=D');
      if (r.end - r.start === D + 1 && fails.includes('too_long')) out.add('length=D+1');
    }
    const gw = globalWatermark(state.wm);
    if (validityOf(r, config) === undefined && gw !== null) {
      if (r.kind === 'insert' && r.ts === gw - L) out.add('insert:ts=gw-L');
      if (r.kind === 'insert' && r.ts === gw - L - 1) out.add('insert:ts=gw-L-1');
      if (r.kind === 'retract' && gw === r.end + L + D) out.add('retract:gw=end+L+D');
      if (r.kind === 'retract' && gw === r.end + L + D + 1) out.add('retract:gw=end+L+D+1');
    }
    if (r.kind === 'watermark' && validityOf(r, config) === undefined) {
      const current = state.wm[r.side as 'L' | 'R'];
      if (current !== null && r.wm === current) out.add('watermark:equal');
      if (current !== null && r.wm === current - 1) out.add('watermark:below');
      if (current !== null && r.wm === current + 1) out.add('watermark:above');
    }
    const before = state;
    state = stepJoin(config, state, r).state;
    const after = globalWatermark(state.wm);
    if (r.kind === 'watermark' && after !== null && after !== globalWatermark(before.wm)) {
      for (const row of before.rows) {
        if (after === row.end + L + D) out.add('watermark:gw=end+L+D');
        if (after === row.end + L + D + 1) out.add('watermark:gw=end+L+D+1');
      }
    }
  }
  return out;
}

const pairs = ROW_CHECKS.flatMap((a, i) => ROW_CHECKS.slice(i + 1).map((b) => `invalid:${a}+${b}`));
/** Every edge a log can reach (edgesOf), whatever the config. */
const REQUIRED_EDGES = [
  'L=0',
  'L=2^50',
  'D=0',
  'D=2^50',
  'time:2^50',
  'time:-2^50',
  'time:2^50+1',
  'time:-(2^50+1)',
  ...ROW_CHECKS.map((c) => `invalid:${c}`),
  ...pairs,
  'invalid:watermark:bad_side',
  'invalid:watermark:out_of_range',
  'invalid:watermark:bad_side+out_of_range',
  'length=D',
  'length=D+1',
  'insert:ts=gw-L',
  'insert:ts=gw-L-1',
  'watermark:equal',
  'watermark:below',
  'watermark:above',
  'watermark:gw=end+L+D',
  'watermark:gw=end+L+D+1',
  'retract:gw=end+L+D',
  'retract:gw=end+L+D+1',
];

const missing = (seen: Set<string>): string[] => REQUIRED_EDGES.filter((e) => !seen.has(e));

/** The records of a cluster trace, in order. */
const recordsOf = (t: ClusterTrace): LogRecord[] => t.steps.flatMap(({ action }) => (action.type === 'record' ? [action.record] : []));

describe('J0, J1, J4, J5, J6, J8 edges: every numeric field is drawn at the exact edges of the rules', () => {
  it('random operator traces reach every edge (±2^50, ±(2^50+1), every pair of J1 failures, lengths D and D + 1, ts = gw - L and one less, watermarks equal, below and above, gw at a horizon and one past it, L and D at 0 and 2^50)', () => {
    const seen = new Set<string>();
    for (const t of fc.sample(operatorTraceArbitrary(), { seed, numRuns: 1000 })) {
      for (const e of edgesOf(
        t.config,
        t.steps.map((s) => s.record),
      ))
        seen.add(e);
    }
    expect(missing(seen)).toEqual([]);
  });

  it('random cluster traces reach every edge too, the watermark-relative ones computed from the state the record meets', () => {
    const seen = new Set<string>();
    for (const t of fc.sample(clusterTraceArbitrary('faults'), { seed, numRuns: 400 })) {
      for (const e of edgesOf(t.config.join, recordsOf(t))) seen.add(e);
    }
    expect(missing(seen)).toEqual([]);
  });

  it('the exhaustive scenarios reach every edge at level operator, and at the cluster levels (their scripts, preludes and rejection probes)', () => {
    const operatorSeen = new Set<string>();
    for (const cover of operatorCovers()) {
      for (const t of cover.traces) {
        for (const e of edgesOf(
          t.config,
          t.steps.map((st) => st.record),
        ))
          operatorSeen.add(e);
      }
    }
    expect(missing(operatorSeen)).toEqual([]);
    const clusterSeen = new Set<string>();
    for (const s of CLUSTER_SCENARIOS) {
      for (const e of edgesOf(s.cluster.join, [...(s.prelude ?? []), ...s.bounds.script])) clusterSeen.add(e);
      for (const e of edgesOf(s.cluster.join, rejectedRecords(s.cluster)))
        if (e.startsWith('invalid') || e.startsWith('time') || e.startsWith('length')) clusterSeen.add(e);
    }
    expect(missing(clusterSeen)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------

describe('§7 refusal probes: a refused action must be refused and change nothing, at every state of every exhaustive scenario', () => {
  const rich = coverScenario(scenario('rich-state-across-a-handoff'));
  const unprobed = coverScenario(scenario('rich-state-across-a-handoff'), { probes: false });

  for (const [type, phase] of [
    ['abort', 'fenced'],
    ['install', 'committed'],
  ] as const) {
    it(`C5–C7: a system that carries out ${type} one phase late (in phase ${phase}) is caught by the probes alone: the same scenario without them passes`, async () => {
      const system = inProcessSystem(onePhaseLate(type, phase), 'late');
      const withProbes = await conform(system, { exhaustive: [rich] });
      expect(withProbes.verdict).toBe('fail');
      const f = withProbes.failures[0];
      expect(f?.origin).toBe('exhaustive');
      expect(f?.divergence.action.type).toBe(type);
      expect(f?.divergence.summary).toContain('carried out, but it is not enabled');
      expect(withProbes.exhaustive[0]?.probesSent).toBeGreaterThan(0);
      const without = await conform(system, { exhaustive: [unprobed] });
      expect(without.verdict).toBe('pass');
      expect(without.exhaustive[0]?.run).toBe(unprobed.traces.length);
    });
  }

  it('C5: random faults traces probe the phase boundaries of handoffs and failovers: an abort accepted past the fence is caught by random traces alone', async () => {
    const report = await conform(inProcessSystem(onePhaseLate('abort', 'fenced'), 'late'), { levels: ['faults'], runs: 300 });
    expect(report.verdict).toBe('fail');
    expect(report.failures[0]?.origin).toBe('random');
    expect(report.failures[0]?.divergence.action.type).toBe('abort');
    expect(report.random[0]?.probes).toBeGreaterThan(0);
  });

  it('the implementation refuses every probe of a scenario and changes nothing; each scenario reports the probes it sent (text and JSON)', async () => {
    const covers = [
      coverScenario(scenario('zombie-after-failover')),
      coverOperatorScenario(OPERATOR_SCENARIOS[2] as (typeof OPERATOR_SCENARIOS)[number]),
    ];
    const report = await conform(inProcessSystem(implSut, 'impl'), { exhaustive: covers });
    expect(report.verdict).toBe('pass');
    for (const [i, x] of report.exhaustive.entries()) {
      expect(x.probes).toBe(covers[i]?.probes);
      expect(x.probesSent).toBe(covers[i]?.probes);
      expect(x.probesSent).toBeGreaterThan(0);
    }
    const text = conformSummary(report, []);
    expect(text).toMatch(
      new RegExp(`^exhaustive zombie-after-failover: .*${(covers[0]?.probes ?? 0).toLocaleString('en-US')} probes sent`, 'm'),
    );
    const json = conformJson(report, []) as { exhaustive: { scenario: string; probesSent: number }[] };
    expect(json.exhaustive.map((x) => x.probesSent)).toEqual(covers.map((c) => c.probes));
  });
});

// ---------------------------------------------------------------------------

describe('J1–J8 at level operator: bounded-exhaustive operator traces, and never a vacuous pass', () => {
  it('an operator-only system gets a real exhaustive verdict with counts: every operator scenario runs in full, every cluster scenario is skipped (text and JSON), and coverage is claimed over the operator traces only', async () => {
    const covers: AnyCover[] = [
      ...operatorCovers(),
      coverScenario(scenario('zombie-after-failover')),
      coverScenario(scenario('colliding-ids')),
    ];
    const report = await conform(inProcessSystem(onlyLevels(implSut, ['operator']), 'impl --level operator'), { exhaustive: covers });
    expect(report.verdict).toBe('pass');
    expect(report.levels).toEqual(['operator']);
    for (const [i, x] of report.exhaustive.entries()) {
      const c = covers[i] as AnyCover;
      if (c.kind === 'operator') {
        expect([x.verdict, x.run, x.skipped]).toEqual(['pass', c.traces.length, 0]);
        expect(x.run).toBeGreaterThan(300);
      } else expect([x.verdict, x.run, x.probesSent, x.skipped]).toEqual(['skipped', 0, 0, c.traces.length]);
    }
    // Coverage only over traces that ran: the operator's outcomes, no crash point.
    expect(report.coverage?.required.some(isCrashPoint)).toBe(false);
    expect(report.coverage?.required).toContain('retract:match-with-evicted-endpoint');
    expect(report.coverage?.missing).toEqual([]);
    expect(report.coverage?.taken.some(isCrashPoint)).toBe(false);
    const text = conformSummary(report, []);
    expect(text).toMatch(/^exhaustive operator-every-log: 13,824 of 13,824 logs .* pass/m);
    expect(text).toMatch(/^exhaustive zombie-after-failover: skipped: none of its 1,740 interleavings runs at the levels checked/m);
    expect(text).not.toContain('crash point');
    const json = conformJson(report, []) as { exhaustive: { scenario: string; verdict: string }[] };
    expect(json.exhaustive.filter((x) => x.verdict === 'skipped').map((x) => x.scenario)).toEqual([
      'zombie-after-failover',
      'colliding-ids',
    ]);
  });

  it('a cluster-only system: the operator scenarios and the fault traces are skipped, and no crash point is claimed', async () => {
    const covers: AnyCover[] = [
      coverOperatorScenario(OPERATOR_SCENARIOS[2] as (typeof OPERATOR_SCENARIOS)[number]),
      coverScenario(scenario('colliding-ids')),
    ];
    const report = await conform(inProcessSystem(onlyLevels(modelSut, ['cluster']), 'model --level cluster'), { exhaustive: covers });
    expect(report.verdict).toBe('pass');
    expect(report.exhaustive.map((x) => x.verdict)).toEqual(['skipped', 'pass']);
    const cluster = report.exhaustive[1];
    expect(cluster?.skipped).toBeGreaterThan(0);
    expect(cluster?.levels).toEqual({ cluster: cluster?.run });
    expect(report.coverage?.required.some(isCrashPoint)).toBe(false);
    expect(report.coverage?.taken.some(isCrashPoint)).toBe(false);
  });

  it('J5 broken by one tick in the operator is caught by the operator exhaustive scenarios alone (no examples, no random traces)', async () => {
    const lateByOne = inProcessSystem(
      {
        ...modelSut,
        levels: ['operator'],
        operator: (c) => createModelOperator({ ...c, allowedLateness: Math.max(0, c.allowedLateness - 1) }),
      },
      'late-by-one',
    );
    const report = await conform(lateByOne, { exhaustive: operatorCovers() });
    expect(report.verdict).toBe('fail');
    expect(report.failures[0]?.origin).toBe('exhaustive');
    expect(report.failures[0]?.trace.kind).toBe('operator');
  });

  it('over the process: `conform --exhaustive` against an operator-only system prints each operator scenario with its counts and skips the rest; exit 0', async () => {
    const r = await runCli([
      'conform',
      '--sut',
      'node --import tsx conformance/testdata/serveLevels.ts operator',
      '--exhaustive',
      '--scenario',
      'operator-extreme-bounds,operator-colliding-ids,zombie-after-failover',
      '--examples',
      'none',
      '--runs',
      '5',
      `--seed=${seed}`,
    ]);
    expect(r.stdout).toMatch(
      /^exhaustive operator-extreme-bounds: 2,401 of 2,401 logs \([\d,]+ steps, [\d,]+ probes sent; 2,401 at operator\), .* pass/m,
    );
    expect(r.stdout).toMatch(/^exhaustive operator-colliding-ids: 343 of 343 logs .* pass/m);
    expect(r.stdout).toMatch(/^exhaustive zombie-after-failover: skipped: it needs level cluster or faults, which is not checked$/m);
    expect(r.stdout).toContain('verdict: conforms');
    expect(r.code).toBe(0);
  });
});

// ---------------------------------------------------------------------------

/** The join state of the copy a handoff moves, fails over or restarts, and whether it is rich (J6, J8). */
function isRich(join: JoinState, config: JoinConfig): boolean {
  const live = join.rows.filter((r) => r.live);
  const horizonOrder = [...live].sort((a, b) => a.end - b.end).map((r) => r.id);
  const held = (side: 'L' | 'R', id: string, key: string): boolean =>
    join.rows.some((r) => r.key === key && r.side === side && r.id === id);
  return (
    live.length >= 2 &&
    horizonOrder.join() !== live.map((r) => r.id).join() &&
    join.rows.some((r) => !r.live) &&
    join.matches.some((m) => !held('L', m.left, m.key) || !held('R', m.right, m.key)) &&
    join.wm.L !== null &&
    join.wm.R !== null &&
    config.allowedLateness + config.maxIntervalLength >= 0
  );
}

/** The handoffs of a trace that carry a rich state: the action (persist, checkpoint, failover, restart) and the copy it moves or recovers from. */
function richHandoffs(trace: ClusterTrace): string[] {
  let state: ClusterState = initialClusterState({ ...trace.config, checkProperties: false });
  const setup = { ...trace.config, checkProperties: false };
  const out: string[] = [];
  for (const { action } of trace.steps) {
    if (action.type === 'process') continue;
    if (whyNotEnabled(setup, state, action) !== undefined) continue;
    const key = 'key' in action ? action.key : undefined;
    if (action.type === 'persist' || action.type === 'failover' || action.type === 'checkpoint') {
      const h = state.coordinator.handoff;
      const source = action.type === 'persist' && h ? h.src : action.type === 'checkpoint' ? action.worker : undefined;
      const copy: KeyCopy | undefined = source !== undefined && key !== undefined ? state.workers[source]?.keys[key] : undefined;
      const stored = key !== undefined ? state.store[key] : undefined;
      const join = copy?.join ?? (action.type === 'failover' ? stored?.join : undefined);
      if (join && isRich(join, setup.join)) out.push(action.type);
    }
    if (action.type === 'restart' && action.node !== 'coordinator') {
      for (const [k, owner] of Object.entries(state.coordinator.owner)) {
        const stored = state.store[k];
        if (owner === action.node && stored && isRich(stored.join, setup.join)) out.push('restart');
      }
    }
    state = applyExternal(setup, state, action).state;
  }
  return out;
}

describe('J6, J8 across handoffs: keys moved, failed over or restarted with rich operator state', () => {
  it('the rich-state scenario persists, fails over and restarts k1 while it holds live rows out of horizon order, a tombstone, a match whose endpoint is evicted and both watermarks', () => {
    const cover = coverScenario(scenario('rich-state-across-a-handoff'));
    const kinds = new Set(cover.traces.flatMap(richHandoffs));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['failover', 'persist', 'restart']));
  });

  it('C6–C8, C11: a failover together with duplicated messages, back to the worker that owned the key before', () => {
    for (const name of ['failover-with-duplicates-and-failback', 'zombie-failback-with-duplicates']) {
      const cover = coverScenario(scenario(name));
      const failback = cover.traces.some((t) => {
        const owners = [t.config.keys[0].owner];
        let failedBack = false;
        for (const { action } of t.steps) {
          if (action.type === 'freeze') owners.push(action.to);
          if (action.type === 'failover' && owners.slice(0, -1).includes(action.to)) failedBack = true;
          if (failedBack && (action.type === 'duplicateRelease' || action.type === 'duplicateInstall')) return true;
        }
        return false;
      });
      expect(failback, name).toBe(true);
    }
  });

  it('random cluster traces carry rich state into handoffs, failovers and restarts too', () => {
    const kinds = new Set<string>();
    for (const t of fc.sample(clusterTraceArbitrary('faults'), { seed, numRuns: 300 })) for (const k of richHandoffs(t)) kinds.add(k);
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['failover', 'persist']));
  });
});

// ---------------------------------------------------------------------------

describe('J3: match ids whose naive concatenation collides (every common separator)', () => {
  for (const separator of COMMON_SEPARATORS) {
    it(`a system that identifies matches by key${separator}left${separator}right fails through random traces alone at every level, and through the exhaustive scenarios alone (separator ${JSON.stringify(separator)})`, async () => {
      const system = inProcessSystem(naiveMatchIdSystem(separator), 'naive');
      for (const level of ['operator', 'cluster', 'faults'] as const) {
        const random = await conform(system, { levels: [level], runs: 200 });
        expect(random.verdict, level).toBe('fail');
        expect(random.failures[0]?.origin).toBe('random');
      }
      const covers = [...OPERATOR_SCENARIOS, ...CLUSTER_SCENARIOS]
        .filter((s) => s.name.includes('colliding'))
        .map((s) => coverAnyScenario(s));
      for (const levels of [['operator'], ['cluster']] as Level[][]) {
        const exhaustive = await conform(system, { levels, exhaustive: covers });
        expect(exhaustive.verdict, levels.join()).toBe('fail');
        expect(exhaustive.failures[0]?.origin).toBe('exhaustive');
      }
    });
  }
});
