// The killing test of the mutation measurement (`npm run mutate`, StrykerJS
// over impl/; docs/mutation.md): the conformance harness, in-process and at
// its default depth, against the implementation as Stryker mutates it. Only
// Stryker runs this file (vitest.mutation.config.ts); `npm test` never does.
//
// One test per example trace, per exhaustive scenario and per level of random
// traces, in the order conform runs them, so that Stryker's per-test coverage
// runs only the parts that reach a mutant and stops at the first that kills
// it. Nothing is shrunk or minimized: a kill is all Stryker needs, and
// `streamjoin conform` shows the counterexample.
import fc from 'fast-check';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEVELS, type AnyTrace, type ClusterTrace, type Level, type OperatorTrace } from '../../spec/index.ts';
import { implSut } from '../adapters/implSut.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { levelOfClusterTrace, runTrace } from '../lockstep/anyTrace.ts';
import { runClusterLockstepPipelined } from '../lockstep/clusterLockstep.ts';
import type { Divergence } from '../lockstep/divergence.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { EXHAUSTIVE_SCENARIOS, coverScenario } from '../generate/exhaustive.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { operatorTraceArbitrary } from '../generate/logs.ts';
import { conformExamplePaths } from '../../cli/harnessArgs.ts';
import { MUTATION_RANDOM_RUNS, MUTATION_SEED } from './settings.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..');
const system = inProcessSystem(implSut, 'impl');

/** The first divergence, as a message that names where (a failed expectation is a kill). */
const show = (d: Divergence | undefined): string | undefined => (d ? `step ${d.step}: ${d.summary}` : undefined);

describe('examples and regression traces', () => {
  for (const path of conformExamplePaths()) {
    // Loaded by the test itself: Stryker runs only the tests that reach a mutant, and each run starts afresh.
    it(relative(PROJECT_ROOT, path), async () => {
      const trace = loadCheckedTrace(path);
      const level: Level = trace.kind === 'operator' ? 'operator' : levelOfClusterTrace(trace.trace);
      expect(show(await runTrace(system, trace, level))).toBeUndefined();
    });
  }
});

describe('exhaustive scenarios', () => {
  for (const scenario of EXHAUSTIVE_SCENARIOS) {
    it(scenario.name, async () => {
      const cover = coverScenario(scenario);
      const traces = cover.traces.map((trace) => ({ trace, level: levelOfClusterTrace(trace) }));
      let first: string | undefined;
      await runClusterLockstepPipelined(traces, system, {
        onResult: (r) => {
          if (!r.divergence) return true;
          first = `${r.trace.name}: ${show(r.divergence)}`;
          return false;
        },
      });
      expect(first).toBeUndefined();
    });
  }
});

describe('random traces', () => {
  for (const level of LEVELS) {
    it(`${level}: ${MUTATION_RANDOM_RUNS} traces, seed ${MUTATION_SEED}`, async () => {
      const arbitrary: fc.Arbitrary<AnyTrace> =
        level === 'operator'
          ? operatorTraceArbitrary().map((trace: OperatorTrace): AnyTrace => ({ kind: 'operator', trace }))
          : clusterTraceArbitrary(level).map((trace: ClusterTrace): AnyTrace => ({ kind: 'cluster', trace }));
      for (const [i, trace] of fc.sample(arbitrary, { seed: MUTATION_SEED, numRuns: MUTATION_RANDOM_RUNS }).entries()) {
        const d = await runTrace(system, trace, level);
        expect(d ? `trace ${i}: ${show(d)}` : undefined).toBeUndefined();
      }
    });
  }
});
