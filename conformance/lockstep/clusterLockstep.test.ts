import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadClusterTrace } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction, OperatorTrace } from '../../spec/index.ts';
import {
  PrefixSharingModel,
  actionsOf,
  expectedClusterSteps,
  modelClusterSteps,
  judgeClusterTrace,
  runClusterLockstepPipelined,
} from './clusterLockstep.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { operatorTraceArbitrary } from '../generate/logs.ts';
import { PrefixSharingOperatorModel, modelOperatorSteps } from './operatorLockstep.ts';
import { sameJson } from '../sut/jsonDiff.ts';
import { levelOfClusterTrace } from './anyTrace.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { modelSut } from '../sut/modelSut.ts';
import { wrongClusterModel } from '../testdata/wrongSystems.ts';

const clusterDir = join(import.meta.dirname, '..', '..', 'spec', 'examples', 'cluster');
const examples = readdirSync(clusterDir).filter((f) => f.endsWith('.trace.json'));
const load = (name: string): ClusterTrace => loadClusterTrace(join(clusterDir, name));
const model = inProcessSystem(modelSut);

describe('§5/§7 cluster examples: the hand-checked traces agree with the model', () => {
  for (const f of examples) {
    it(f, async () => {
      const trace = load(f);
      // The file's expectations are the model's, step for step and field for field.
      expect(expectedClusterSteps(trace).disagreements).toEqual([]);
      const result = await judgeClusterTrace(trace, model, levelOfClusterTrace(trace));
      expect(result.divergence).toBeUndefined();
      expect(result.replies).toHaveLength(trace.steps.length);
    });
  }

  it('cover a planned migration, an abort, a failover with replay, a fenced zombie, refused installs and a crash between commit parts', () => {
    const all = examples.flatMap((f) => load(f).steps.map((s) => s.action));
    const has = (p: (a: ExternalAction) => boolean) => all.some((a) => p(a as ExternalAction));
    expect(has((a) => a.type === 'release')).toBe(true);
    expect(has((a) => a.type === 'abort')).toBe(true);
    expect(has((a) => a.type === 'failover')).toBe(true);
    expect(has((a) => a.type === 'resume')).toBe(true);
    expect(has((a) => a.type === 'duplicateInstall')).toBe(true);
    expect(has((a) => a.type === 'commit' && a.crashAfterFence === true)).toBe(true);
    const events = examples.flatMap((f) => load(f).steps.flatMap((s) => s.expect?.events ?? []));
    expect(events.some((e) => e.type === 'processed' && e.fenced)).toBe(true);
    expect(events.some((e) => e.type === 'refused')).toBe(true);
  });
});

describe('pipelined runs share the model work of common prefixes', () => {
  it("PrefixSharingModel gives exactly the model's expectations (SPEC §7) for any sequence of traces, whatever they share", () => {
    const arb = fc.tuple(clusterTraceArbitrary('faults'), clusterTraceArbitrary('faults'), fc.nat(), fc.nat());
    fc.assert(
      fc.property(arb, ([a, b, cutA, cutB]) => {
        const n = cutA % (a.steps.length + 1);
        // A prefix of a, then a with b's steps after the prefix (same config), then b (another config), then a again.
        const mixed: ClusterTrace = { ...a, steps: [...a.steps.slice(0, n), ...b.steps.slice(cutB % (b.steps.length + 1))] };
        const sequence = [a, { ...a, steps: a.steps.slice(0, n) }, mixed, b, a];
        const shared = new PrefixSharingModel();
        for (const t of sequence) {
          expect(sameJson(shared.stepsOf(t.config, actionsOf(t)), modelClusterSteps(t))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("§7 probes: PrefixSharingModel gives the model's expectations when refused actions are inserted anywhere, or taken out, between traces that share a prefix", () => {
    const arb = fc.tuple(clusterTraceArbitrary('faults'), fc.array(fc.nat(), { maxLength: 8 }));
    fc.assert(
      fc.property(arb, ([a, spots]) => {
        // Probes: actions the model refuses where they are inserted (a refused action changes nothing, so later steps keep their answers).
        const steps = [...a.steps];
        for (const spot of spots) {
          const at = spot % (steps.length + 1);
          const probe: ExternalAction = { type: 'abort', key: a.config.keys[0].key };
          const prefix: ClusterTrace = { ...a, steps: steps.slice(0, at) };
          const refused = modelClusterSteps({ ...prefix, steps: [...prefix.steps, { action: probe }] }).at(-1);
          if (refused && 'error' in refused) steps.splice(at, 0, { action: probe });
        }
        const probed: ClusterTrace = { ...a, steps };
        const shared = new PrefixSharingModel();
        for (const t of [a, probed, a, { ...probed, steps: probed.steps.slice(0, spots.length) }, probed]) {
          expect(sameJson(shared.stepsOf(t.config, actionsOf(t)), modelClusterSteps(t))).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("PrefixSharingOperatorModel gives exactly the model's expectations (J7, §3) for any sequence of operator logs, whatever they share", () => {
    const arb = fc.tuple(operatorTraceArbitrary(), operatorTraceArbitrary(), fc.nat());
    fc.assert(
      fc.property(arb, ([a, b, cut]) => {
        const n = cut % (a.steps.length + 1);
        const mixed: OperatorTrace = { ...a, steps: [...a.steps.slice(0, n), ...b.steps] };
        const shared = new PrefixSharingOperatorModel();
        for (const t of [a, { ...a, steps: a.steps.slice(0, n) }, mixed, b, a]) {
          const records = t.steps.map((st) => st.record);
          expect(sameJson(shared.stepsOf(t.config, records), modelOperatorSteps(t))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a pipelined run judges every trace in order, and stops when told; a divergence is found in the trace that has it', async () => {
    const traces = examples
      .map((f) => load(f))
      .map((trace) => ({ trace: { ...trace, steps: trace.steps.map(({ action }) => ({ action })) }, level: levelOfClusterTrace(trace) }));
    const seen: number[] = [];
    await runClusterLockstepPipelined(traces, model, { window: 3, onResult: (r) => void seen.push(r.divergence ? -1 : r.index) });
    expect(seen).toEqual(traces.map((_, i) => i));
    const dropsFences = wrongClusterModel((inner) => ({
      ...inner,
      observe: () => ({ ...inner.observe(), sink: { ...inner.observe().sink, fence: {} } }),
    }));
    const judged: { index: number; step?: number }[] = [];
    await runClusterLockstepPipelined(traces, dropsFences, {
      window: 4,
      onResult: (r) => {
        judged.push({ index: r.index, ...(r.divergence ? { step: r.divergence.step } : {}) });
        return r.divergence === undefined;
      },
    });
    expect(judged).toEqual([{ index: 0, step: 0 }]);
  });
});
