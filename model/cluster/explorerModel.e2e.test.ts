// The cluster explorer model's slow checks, the end-to-end tier (npm run
// test:e2e): the ci preset (what `streamjoin ci` checks) exhausted key by
// key, and the soundness of the explorer's reductions. The smoke preset and
// necessity are checked in explorerModel.test.ts.
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../spec/index.ts';
import { check, type Invariant, type Model } from '../explorer/index.ts';
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
