// The harness's power (issue 9), as the whole job shows it (the report, and
// streamjoin conform's summary and JSON) against systems wrong in one way
// each: a handoff step accepted one phase late is caught by
// the refusal probes alone; an operator-only system gets a real exhaustive
// verdict with counts and never a vacuous pass; a naive match identity is
// caught by random traces alone and by the exhaustive scenarios alone, for
// every common separator. Each would fail if its deliverable regressed.
import { describe, expect, inject, it } from 'vitest';
import type { Level } from '../spec/index.ts';
import { runConform } from '../conformance/job/conform.ts';
import type { ConformReport } from '../conformance/job/conformTypes.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { createModelOperator } from '../conformance/sut/modelOperator.ts';
import { coverAnyScenario, coverScenario, isCrashPoint, type AnyCover } from '../conformance/generate/exhaustive.ts';
import { CLUSTER_SCENARIOS, exhaustiveScenario, type ExhaustiveScenario } from '../conformance/generate/clusterScenarios.ts';
import { OPERATOR_SCENARIOS, coverOperatorScenario, type OperatorCover } from '../conformance/generate/operatorExhaustive.ts';
import { COMMON_SEPARATORS } from '../conformance/generate/edges.ts';
import { naiveMatchIdSystem, onePhaseLate, onlyLevels } from '../conformance/testdata/wrongSystems.ts';
import { conformJson, conformSummary } from './conformReport.ts';
import { runCli } from './testSupport.ts';

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
    const json = conformJson(report, []);
    expect(json.exhaustive.map((x) => x.probesSent)).toEqual(covers.map((c) => c.probes));
  });
});

// ---------------------------------------------------------------------------

describe('J1–J8 at level operator: bounded-exhaustive operator traces, and never a vacuous pass', () => {
  it(
    'an operator-only system gets a real exhaustive verdict with counts: every operator scenario runs in full, every cluster ' +
      'scenario is skipped (text and JSON), and coverage is claimed over the operator traces only',
    async () => {
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
          expect(x.run).toBeGreaterThan(200);
        } else expect([x.verdict, x.run, x.probesSent, x.skipped]).toEqual(['skipped', 0, 0, c.traces.length]);
      }
      // Coverage only over traces that ran: the operator's outcomes, no crash point.
      expect(report.coverage?.required.some(isCrashPoint)).toBe(false);
      expect(report.coverage?.required).toContain('retract:match-with-evicted-endpoint');
      expect(report.coverage?.missing).toEqual([]);
      expect(report.coverage?.taken.some(isCrashPoint)).toBe(false);
      const text = conformSummary(report, []);
      expect(text).toMatch(/^exhaustive operator-every-log: 13,824 of 13,824 logs .* pass/m);
      expect(text).toMatch(/^exhaustive zombie-after-failover: skipped: none of its 1,745 interleavings runs at the levels checked/m);
      expect(text).not.toContain('crash point');
      const json = conformJson(report, []);
      expect(json.exhaustive.filter((x) => x.verdict === 'skipped').map((x) => x.scenario)).toEqual([
        'zombie-after-failover',
        'colliding-ids',
      ]);
    },
  );

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
    expect(r.stdout).toContain('verdict: PASS');
    expect(r.code).toBe(0);
  });

  it('§7: a run in which nothing ran at the levels the system supports (its only scenario of another level, no example, no random trace) is unknown, not a pass; exit 2', async () => {
    const r = await runCli([
      'conform',
      '--sut',
      'node --import tsx conformance/testdata/serveLevels.ts operator',
      '--exhaustive',
      '--scenario',
      'zombie-after-failover',
      '--examples',
      'none',
      '--runs',
      '0',
    ]);
    expect(r.stdout).toMatch(
      /UNKNOWN during the end: nothing was checked: no example, exhaustive trace or random trace runs at the levels checked \(operator\)/,
    );
    expect(r.stdout).toContain('verdict: UNKNOWN');
    expect(r.code).toBe(2);
  });
});

// ---------------------------------------------------------------------------

describe('J3: match ids whose naive concatenation collides (every common separator)', () => {
  // The colliding scenarios' traces are the model's work, the same for every separator: built once.
  let collidingCovers: AnyCover[] | undefined;
  const colliding = (): AnyCover[] =>
    (collidingCovers ??= [...OPERATOR_SCENARIOS, ...CLUSTER_SCENARIOS]
      .filter((s) => s.name.includes('colliding'))
      .map((s) => coverAnyScenario(s)));
  for (const separator of COMMON_SEPARATORS) {
    it(
      `a system that identifies matches by key${separator}left${separator}right fails through random traces alone at every ` +
        `level, and through the exhaustive scenarios alone (separator ${JSON.stringify(separator)})`,
      async () => {
        const system = inProcessSystem(naiveMatchIdSystem(separator), 'naive');
        for (const level of ['operator', 'cluster', 'faults'] as const) {
          const random = await conform(system, { levels: [level], runs: 200 });
          expect(random.verdict, level).toBe('fail');
          expect(random.failures[0]?.origin).toBe('random');
        }
        for (const levels of [['operator'], ['cluster']] as Level[][]) {
          const exhaustive = await conform(system, { levels, exhaustive: colliding() });
          expect(exhaustive.verdict, levels.join()).toBe('fail');
          expect(exhaustive.failures[0]?.origin).toBe('exhaustive');
        }
      },
    );
  }
});
