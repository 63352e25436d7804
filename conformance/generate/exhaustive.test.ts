import { describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { schemaError } from '../../spec/index.ts';
import {
  encodeExplored,
  enabledClusterActions,
  initialExplored,
  isQuiescent,
  nextEager,
  type ClusterModelConfig,
  type ExploredState,
} from '../../model/cluster/boundedHistories.ts';
import {
  EXHAUSTIVE_SCENARIOS,
  coverScenario,
  coverageTable,
  exhaustiveScenario,
  isCrashPoint,
  missingCoverage,
  requiredCoverage,
  withoutPrefixes,
  type ExhaustiveScenario,
  type ScenarioCover,
} from './exhaustive.ts';
import { clusterContractViolation } from '../lockstep/traceFiles.ts';
import { runConform } from '../conform.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { modelSut } from '../adapters/modelSut.ts';
import { createModelCluster } from '../adapters/modelCluster.ts';

const seed = inject('fcSeed');
const scenario = (name: string): ExhaustiveScenario => exhaustiveScenario(name) as ExhaustiveScenario;
const configOf = (s: ExhaustiveScenario): ClusterModelConfig => ({ cluster: { ...s.cluster, checkProperties: false }, bounds: s.bounds });

/** Replays a cover's traces through the model: the transitions they take (state encoding + action), and whether each ends settled. */
function replayCover(cover: ScenarioCover): { taken: Set<string>; unsettled: number } {
  const config = configOf(cover.scenario);
  const taken = new Set<string>();
  let unsettled = 0;
  for (const trace of cover.traces) {
    let s: ExploredState = initialExplored(config);
    for (const { action } of trace.steps) {
      if (action.type === 'process') throw new Error('process in a conformance trace');
      const enabled = enabledClusterActions(config, s).some((a) => JSON.stringify(a) === JSON.stringify(action));
      if (!enabled) throw new Error(`${trace.name}: ${JSON.stringify(action)} is not enabled within the budgets`);
      taken.add(`${encodeExplored(config, s, false)} ${JSON.stringify(action)}`);
      s = nextEager(config, s, action).state;
    }
    if (!(isQuiescent(config, s) && s.cluster.log.length === cover.scenario.bounds.script.length)) unsettled++;
  }
  return { taken, unsettled };
}

describe('bounded-exhaustive scenarios: a transition cover of each bounded eager state graph (SPEC §7)', () => {
  const small = [scenario('zombie-after-failover'), scenario('failover-replay-from-older-checkpoint')];
  // The migration scenario with one crash instead of two: the same shape, a fifth of the size.
  const oneCrash: ExhaustiveScenario = {
    ...scenario('migration-under-traffic'),
    bounds: { ...scenario('migration-under-traffic').bounds, crashes: 1 },
  };

  for (const s of [...small, oneCrash]) {
    it(
      `${s.name}${s === oneCrash ? ' (one crash)' : ''}: the traces take every transition of the graph, each ` +
        `ends settled (script appended, quiescent), each enabled within the budgets, valid and in contract (J9)`,
      () => {
        const cover = coverScenario(s);
        const { taken, unsettled } = replayCover(cover);
        expect(taken.size).toBe(cover.transitions);
        expect(unsettled).toBe(0);
        for (const trace of cover.traces) {
          expect(schemaError('cluster-trace', trace)).toBeUndefined();
          expect(clusterContractViolation(trace)).toBeUndefined();
        }
        // Deduplicated: no trace is a prefix of another.
        const keys = cover.traces.map((t) => t.steps.map((st) => JSON.stringify(st.action)));
        const set = new Set(keys.map((k) => k.join('\n')));
        expect(set.size).toBe(keys.length);
        for (const k of keys) for (let n = 1; n < k.length; n++) expect(set.has(k.slice(0, n).join('\n'))).toBe(false);
      },
    );
  }

  it('is deterministic: the same scenario gives the same traces in the same order', () => {
    const [a, b] = [coverScenario(small[0] as ExhaustiveScenario), coverScenario(small[0] as ExhaustiveScenario)];
    expect(JSON.stringify(a.traces)).toBe(JSON.stringify(b.traces));
  });

  it('every scenario has a fault-free way to settle from every state (P7 Progress), and together they take every required crash point and step kind', () => {
    const covers = EXHAUSTIVE_SCENARIOS.map(coverScenario);
    expect(missingCoverage(covers)).toEqual([]);
    const crashPoints = requiredCoverage().filter(isCrashPoint);
    expect(crashPoints).toEqual(
      expect.arrayContaining([
        'crash:src@migrate@frozen',
        'crash:dst@migrate@installed',
        'crash:coordinator@migrate@committed',
        'commit+crash-after-fence',
        'failover+crash-after-fence',
        'crash:coordinator@failover@fenced',
        'crash:idle@steady',
      ]),
    );
    // Each scenario is about what its name says.
    const table = new Map(coverageTable(covers).map((r) => [r.label, r.scenarios]));
    expect(table.get('process:fenced')).toContain('zombie-after-failover');
    expect(table.get('checkpoint')).toEqual(['failover-replay-from-older-checkpoint']);
    expect(table.get('duplicateInstall:refused')).toEqual(['duplicates-and-retractions-across-a-handoff']);
    // A subset of the scenarios misses crash points, and says which.
    expect(missingCoverage(covers.slice(1, 3)).filter(isCrashPoint).length).toBeGreaterThan(0);
  });

  it('withoutPrefixes keeps exactly the sequences no other extends, and every dropped one is a prefix of a kept one', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat({ max: 2 }), { maxLength: 4 }), { maxLength: 12 }), (seqs) => {
        const kept = withoutPrefixes(seqs);
        const isPrefix = (p: readonly number[], q: readonly number[]): boolean => p.length <= q.length && p.every((x, i) => x === q[i]);
        for (const k of kept) expect(kept.filter((o) => isPrefix(k, o)).length).toBe(1);
        for (const s of seqs) expect(kept.some((k) => isPrefix(s, k))).toBe(true);
      }),
    );
  });
});

describe('conform with exhaustive scenarios', () => {
  it(
    'the model conforms to itself on the zombie scenario; with the sink fence switched off (C9) it diverges ' +
      'there, minimized to a short trace that shows a fenced write applied',
    async () => {
      const covers = [coverScenario(scenario('zombie-after-failover'))];
      const ok = await runConform({
        system: inProcessSystem(modelSut),
        seed,
        runs: 0,
        examples: [],
        exhaustive: covers,
        levels: ['cluster', 'faults'],
      });
      expect(ok.verdict).toBe('pass');
      expect(ok.exhaustive.map((x) => [x.scenario, x.run, x.verdict])).toEqual([
        ['zombie-after-failover', covers[0]?.traces.length, 'pass'],
      ]);
      const broken = inProcessSystem({ ...modelSut, cluster: (c) => createModelCluster({ ...c, ablate: ['sink-fence'] }) }, 'broken');
      const bad = await runConform({
        system: broken,
        seed,
        runs: 0,
        examples: [],
        exhaustive: covers,
        levels: ['faults'],
        stopAtFirstFailure: true,
      });
      expect(bad.verdict).toBe('fail');
      const f = bad.failures[0];
      expect(f?.origin).toBe('exhaustive');
      expect(f?.scenario).toBe('zombie-after-failover');
      expect(f?.trace.trace.steps.length).toBeLessThanOrEqual(8);
      expect(f?.divergence.refs.rules).toContain('C9');
      expect(bad.exhaustive[0]?.run).toBeLessThan(covers[0]?.traces.length ?? 0);
      // The minimized trace replays to a divergence on its own.
      expect(
        f && (await runConform({ system: broken, seed, runs: 0, examples: [{ path: 'cx', trace: f.trace }], levels: ['faults'] })).verdict,
      ).toBe('fail');
    },
  );
});
