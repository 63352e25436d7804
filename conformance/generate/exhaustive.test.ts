import { describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { coverScenario, withoutPrefixes } from './exhaustive.ts';
import { RESTORED_QUEUE_SIZES, exhaustiveScenario, type ExhaustiveScenario } from './clusterScenarios.ts';
import { applyExternal, initialClusterState, observeCluster, type ClusterSetup } from '../../model/index.ts';
import type { ExternalAction } from '../../spec/index.ts';
import { COVER_CHECKS, checkCover } from '../testdata/coverChecks.ts';
import { runConform } from '../job/conform.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { modelSut } from '../sut/modelSut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';

const seed = inject('fcSeed');
const scenario = (name: string): ExhaustiveScenario => exhaustiveScenario(name) as ExhaustiveScenario;
describe('bounded-exhaustive scenarios: a transition cover of each bounded eager state graph (SPEC §7)', () => {
  const small = [scenario('zombie-after-failover'), scenario('failover-replay-from-older-checkpoint')];
  // The two smallest scenarios here; the others in exhaustive.e2e.test.ts.
  for (const s of [scenario('zombie-after-failover'), scenario('colliding-ids')]) {
    it(`${s.name}: ${COVER_CHECKS}`, () => {
      checkCover(s);
    });
  }

  it('is deterministic: the same scenario gives the same traces in the same order', () => {
    const [a, b] = [coverScenario(small[0] as ExhaustiveScenario), coverScenario(small[0] as ExhaustiveScenario)];
    expect(JSON.stringify(a.traces)).toBe(JSON.stringify(b.traces));
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

describe('restored-eviction-queue-of-every-size (J8, C6, C8, C10)', () => {
  it('restores a queue of every size from 3 to 36 entries by each kind of restore, and then evicts one instant per step, in the model', () => {
    const s = scenario('restored-eviction-queue-of-every-size');
    const setup: ClusterSetup = { ...s.cluster, checkProperties: false };
    const restored = new Set<string>();
    for (const script of s.scripts ?? []) {
      let state = initialClusterState(setup);
      const run = (a: ExternalAction): void => {
        state = applyExternal(setup, state, a).state;
      };
      for (const record of s.prelude ?? []) run({ type: 'record', record });
      const retained = (): number => {
        const keys = Object.values(observeCluster(setup, state).workers).flatMap((w) => Object.values(w.keys));
        return keys.reduce((n, k) => n + k.retained.live + k.retained.tombstones, 0);
      };
      let kind: string | undefined;
      const evicted: number[] = [];
      for (const a of script) {
        const before = retained();
        if (a.type === 'install' || a.type === 'failover' || a.type === 'restart') kind = a.type;
        // At the first tick the copy holds what was restored and the two rows inserted since.
        if (a.type === 'record' && a.record.kind === 'watermark' && a.record.side === 'R' && evicted.length === 0)
          restored.add(`${kind}:${before - 2}`);
        run(a);
        if (a.type === 'record' && a.record.kind === 'watermark' && a.record.side === 'R') evicted.push(before - retained());
      }
      // The first tick evicts the three held entries (instant -1) and the row at 0; each later one the row of one instant.
      expect(evicted.slice(1).every((n) => n === 1) && (evicted[0] ?? 0) >= 1, `${kind}: ${evicted.join(',')}`).toBe(true);
      expect(retained()).toBe(0);
    }
    const sizes = Array.from({ length: RESTORED_QUEUE_SIZES }, (_, n) => n + 3);
    expect([...restored].sort()).toEqual(['failover', 'install', 'restart'].flatMap((k) => sizes.map((n) => `${k}:${n}`)).sort());
  });
});
