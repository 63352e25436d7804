import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../spec/index.ts';
import { check, evaluateProperty, replayPath, type Invariant, type Model } from '../explorer/index.ts';
import { PROTOCOL_ELEMENTS, type ProtocolElement } from './clusterState.ts';
import { stepJoin, encodeJoinState, initialJoinState, type JoinState } from '../join/join.ts';
import type { ClusterModelConfig, ExploredState } from './boundedHistories.ts';
import { clusterExplorerModel, type LabelledAction } from './explorerModel.ts';
import { clusterPreset, projectOntoKey, withAblation } from './presets.ts';

const preset = (name: string): ClusterModelConfig => {
  const p = clusterPreset(name);
  if (!p) throw new Error(`no preset ${name}`);
  return p.config;
};
const smoke = preset('smoke');
const ci = preset('ci');

const bounded = (config: ClusterModelConfig, bounds: Partial<ClusterModelConfig['bounds']>): ClusterModelConfig => ({
  ...config,
  bounds: { ...config.bounds, ...bounds },
});

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

  it('ci (2 keys, checked key by key): every part exhausts and passes', () => {
    for (const { key } of ci.cluster.keys) {
      const report = check(clusterExplorerModel(projectOntoKey(ci, key)));
      expect({ key, exhausted: report.exhausted, passed: report.passed, unreached: report.unreachedActionKinds }).toEqual({
        key,
        exhausted: true,
        passed: true,
        unreached: [],
      });
    }
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

describe('reductions are sound', () => {
  const small = bounded(smoke, { duplicates: 0, checkpoints: 0 });

  it('symmetry over workers: the same verdicts, fewer states; exact and fingerprint visited sets count the same states', () => {
    const model = clusterExplorerModel(small);
    const on = check(model, { symmetry: true });
    const off = check(model, { symmetry: false });
    const exact = check(model, { symmetry: true, visited: 'exact' });
    expect(on.passed && off.passed && exact.passed).toBe(true);
    expect(on.distinct).toBeLessThan(off.distinct);
    expect(exact.distinct).toBe(on.distinct);
    // Under an ablation both find the violation, at the same depth.
    const broken = clusterExplorerModel(withAblation(small, ['sink-dedup']));
    const a = check(broken, { symmetry: true }).invariants.find((r) => r.name === 'ExactlyOnce');
    const b = check(broken, { symmetry: false }).invariants.find((r) => r.name === 'ExactlyOnce');
    expect(a?.verdict).toBe('violated');
    expect(b?.verdict).toBe('violated');
    expect(a?.path?.actions.length).toBe(b?.path?.actions.length);
  });

  it('key independence: the joint 2-key model and its single-key parts agree, with and without an element', () => {
    const twoKeys = bounded(ci, { script: ci.bounds.script.slice(0, 4), pauses: 0, checkpoints: 0 });
    for (const ablate of [undefined, 'sink-dedup', 'install-epoch-check'] as const) {
      const config = ablate ? withAblation(twoKeys, [ablate]) : twoKeys;
      const verdicts = (r: ReturnType<typeof check<ExploredState, LabelledAction>>): string[] =>
        [...r.invariants, ...(r.progress ? [r.progress] : [])]
          .filter((x) => x.verdict === 'violated')
          .map((x) => x.name)
          .sort();
      const joint = verdicts(check(clusterExplorerModel(config)));
      const parts = [
        ...new Set(config.cluster.keys.flatMap(({ key }) => verdicts(check(clusterExplorerModel(projectOntoKey(config, key)))))),
      ].sort();
      expect({ ablate, parts }).toEqual({ ablate, parts: joint });
    }
  });

  it("a copy's join state is a function of (key, cursor), which the encoding relies on (SPEC C3)", () => {
    // The join state every copy of `key` must have after reading the script up to `cursor`.
    const expected = (key: string, cursor: number, script: readonly LogRecord[]): string => {
      let s: JoinState = initialJoinState;
      for (const r of script.slice(0, cursor)) if (r.kind === 'watermark' || r.key === key) s = stepJoin(smoke.cluster.join, s, r).state;
      return encodeJoinState(s);
    };
    // Join states are shared objects: judge each once.
    const judged = new WeakMap<JoinState, string>();
    const encoded = (j: JoinState): string => {
      let e = judged.get(j);
      if (e === undefined) judged.set(j, (e = encodeJoinState(j)));
      return e;
    };
    const base = clusterExplorerModel(smoke);
    const cursorDetermines: Invariant<ExploredState> = {
      name: 'JoinStateOfCursor',
      check: (s) => {
        for (const [w, ws] of Object.entries(s.cluster.workers)) {
          for (const [key, copy] of Object.entries(ws.keys)) {
            if (encoded(copy.join) !== expected(key, copy.cursor, smoke.bounds.script)) return `${w}'s copy of ${key} at ${copy.cursor}`;
          }
        }
        for (const [key, cp] of Object.entries(s.cluster.store)) {
          if (encoded(cp.join) !== expected(key, cp.cursor, smoke.bounds.script)) return `checkpoint of ${key} at ${cp.cursor}`;
        }
        return undefined;
      },
    };
    const model: Model<ExploredState, LabelledAction> = { ...base, invariants: [cursorDetermines] };
    const report = check(model);
    expect(report.exhausted).toBe(true);
    expect(report.invariants[0]?.verdict).toBe('holds');
  });
});
