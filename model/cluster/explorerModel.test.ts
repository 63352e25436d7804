import { describe, expect, it } from 'vitest';
import { check, evaluateProperty, replayPath } from '../explorer/index.ts';
import { PROTOCOL_ELEMENTS, type ProtocolElement } from './clusterState.ts';
import type { ClusterModelConfig, ExploredState } from './boundedHistories.ts';
import { clusterExplorerModel } from './explorerModel.ts';
import { clusterPreset, withAblation } from './presets.ts';

const preset = (name: string): ClusterModelConfig => {
  const p = clusterPreset(name);
  if (!p) throw new Error(`no preset ${name}`);
  return p.config;
};
const smoke = preset('smoke');

const bounded = (config: ClusterModelConfig, bounds: Partial<ClusterModelConfig['bounds']>): ClusterModelConfig => ({
  ...config,
  bounds: { ...config.bounds, ...bounds },
});

// The ci preset and the reductions' soundness are checked in explorerModel.e2e.test.ts (the end-to-end tier).
describe('SPEC §6: the cluster model holds every property', () => {
  it('smoke: exhausted, ExactlyOnce, Fenced, BoundedState and Progress hold, every goal reached, every crash point taken', () => {
    const report = check(clusterExplorerModel(smoke));
    expect(report.exhausted).toBe(true);
    expect([...report.invariants, report.progress].map((r) => [r?.name, r?.verdict])).toEqual([
      ['ExactlyOnce', 'holds'],
      ['Fenced', 'holds'],
      ['BoundedState', 'holds'],
      ['Progress', 'holds'],
    ]);
    expect(report.goals.filter((g) => g.verdict !== 'holds')).toEqual([]);
    expect(report.unreachedActionKinds).toEqual([]);
    for (const kind of [
      'crash:src@migrate@persisted',
      'crash:dst@migrate@installed',
      'crash:coordinator@migrate@committed',
      'commit+crash-after-fence',
    ]) {
      expect(report.actionKindCounts[kind]).toBeGreaterThan(0);
    }
    expect(report.passed).toBe(true);
  });
});

/**
 * Necessity (SPEC §6): each element switched off, at the smallest budgets
 * that show its verdict. Verdicts and the lengths of the shortest
 * counterexamples are pinned: the table in SPEC.md states them.
 */
const necessity: readonly {
  element: ProtocolElement;
  bounds: Partial<ClusterModelConfig['bounds']>;
  broken?: { property: string; steps: number };
}[] = [
  {
    element: 'sink-dedup',
    bounds: { migrations: 0, pauses: 0, duplicates: 0, checkpoints: 0 },
    broken: { property: 'ExactlyOnce', steps: 8 },
  },
  {
    element: 'terminal-retract',
    bounds: { migrations: 0, pauses: 0, duplicates: 0, checkpoints: 0 },
    broken: { property: 'ExactlyOnce', steps: 10 },
  },
  { element: 'sink-fence', bounds: { migrations: 0, crashes: 0, duplicates: 0, checkpoints: 0 }, broken: { property: 'Fenced', steps: 7 } },
  {
    element: 'install-epoch-check',
    bounds: { failovers: 0, crashes: 0, pauses: 0, checkpoints: 0 },
    broken: { property: 'Progress', steps: 5 },
  },
  { element: 'release-epoch-check', bounds: { pauses: 0, checkpoints: 0 }, broken: { property: 'Progress', steps: 8 } },
  { element: 'persist-before-commit', bounds: { failovers: 0, pauses: 0, duplicates: 0 } },
];

describe('Necessity: each protocol element switched off (SPEC §6 table)', () => {
  it('covers every element', () => {
    expect(necessity.map((n) => n.element).sort()).toEqual([...PROTOCOL_ELEMENTS].sort());
  });

  for (const { element, bounds, broken } of necessity) {
    it(`${element}: ${broken ? `necessary, ${broken.property} broken in ${broken.steps} steps` : 'defence in depth: every property still holds'}`, () => {
      const model = clusterExplorerModel(withAblation(bounded(smoke, bounds), [element]));
      const report = check(model);
      expect(report.exhausted).toBe(true);
      const results = [...report.invariants, ...(report.progress ? [report.progress] : [])];
      if (!broken) {
        expect(results.filter((r) => r.verdict !== 'holds')).toEqual([]);
        // The same bound with the element on explores a different graph: the ablation is not vacuous.
        expect(check(clusterExplorerModel(bounded(smoke, bounds))).distinct).not.toBe(report.distinct);
        return;
      }
      const violated = results.filter((r) => r.verdict === 'violated').map((r) => r.name);
      expect(violated).toContain(broken.property);
      const result = results.find((r) => r.name === broken.property);
      const path = result?.path;
      if (!path) throw new Error('no counterexample');
      expect(path.actions).toHaveLength(broken.steps);
      // The counterexample replays from the initial state, and the property fails where it ends.
      const replay = replayPath(model, path.initialIndex, path.actions);
      expect(replay.ok).toBe(true);
      const end = path.states[path.states.length - 1] as ExploredState;
      const evaluation = evaluateProperty(model, result.kind === 'progress' ? 'progress' : 'invariant', broken.property, end, {
        maxSeconds: 30,
      });
      expect(evaluation).toMatchObject({ found: true, verdict: 'violated' });
      // And with the element on, the same bound passes.
      expect(check(clusterExplorerModel(bounded(smoke, bounds))).passed).toBe(true);
    });
  }
});
