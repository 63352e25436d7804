// The killing test of the mutation measurement (`npm run mutate`, StrykerJS
// over impl/; docs/mutation.md): the conformance harness, in-process and at
// its default depth, against the implementation as Stryker mutates it. Only
// Stryker runs this file (vitest.mutation.config.ts); `npm test` never does.
//
// One test per example trace, per exhaustive scenario (operator and cluster) and per level of random
// traces, in the order conform runs them, so that Stryker's per-test coverage
// runs only the parts that reach a mutant and stops at the first that kills
// it. Nothing is shrunk or minimized: a kill is all Stryker needs, and
// `streamjoin conform` shows the counterexample.
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { LEVELS, type AnyTrace, type ClusterTrace, type Level, type OperatorTrace } from '../../spec/index.ts';
import { implSut } from '../adapters/implSut.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { levelOfClusterTrace, runTrace } from '../lockstep/anyTrace.ts';
import { runClusterLockstepPipelined, type PipelinedTrace } from '../lockstep/clusterLockstep.ts';
import { runOperatorLockstepPipelined } from '../lockstep/operatorLockstep.ts';
import type { Divergence } from '../lockstep/divergence.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { EXHAUSTIVE_SCENARIOS, coverAnyScenario, observedSteps, type AnyScenario } from '../generate/exhaustive.ts';
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

/** Every source file the exhaustive traces are built from (the model, the generators, the spec): their hash names the cache. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dir of ['model', join('conformance', 'generate'), 'spec']) {
    const files = readdirSync(join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .sort();
    for (const f of files) hash.update(f).update(readFileSync(join(PROJECT_ROOT, dir, f)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** A scenario's traces as conform sends them: cluster traces with the steps each observes (probes of one state observed once). */
type CachedCover =
  | { readonly kind: 'operator'; readonly traces: readonly OperatorTrace[] }
  | { readonly kind: 'cluster'; readonly traces: readonly { trace: ClusterTrace; unobserved: number[] }[] };

/**
 * A scenario's covering traces. Building them is the model's work (a
 * quarter of a whole harness run), and Stryker mutates only impl/, so they
 * are built once and kept in the temporary directory, named by the hash of
 * the sources they come from: every mutant is judged on the very traces
 * `coverAnyScenario` builds.
 */
function coveringTraces(scenario: AnyScenario): CachedCover {
  const path = join(tmpdir(), `streamjoin-mutation-${scenario.name}-${sourcesHash()}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as CachedCover;
  const cover = coverAnyScenario(scenario);
  const cached: CachedCover =
    cover.kind === 'operator'
      ? { kind: 'operator', traces: cover.traces }
      : {
          kind: 'cluster',
          traces: cover.traces.map((trace, k) => {
            const observed = observedSteps(cover, k);
            return { trace, unobserved: trace.steps.flatMap((_, i) => (observed && !observed(i) ? [i] : [])) };
          }),
        };
  const partial = `${path}.${process.pid}.${threadId}.tmp`;
  writeFileSync(partial, JSON.stringify(cached));
  renameSync(partial, path);
  return cached;
}

describe('exhaustive scenarios', () => {
  for (const scenario of EXHAUSTIVE_SCENARIOS) {
    it(scenario.name, async () => {
      const cover = coveringTraces(scenario);
      let first: string | undefined;
      const onResult = (r: { readonly divergence?: Divergence | undefined; readonly index: number }): boolean => {
        if (!r.divergence) return true;
        first = `trace ${r.index}: ${show(r.divergence)}`;
        return false;
      };
      if (cover.kind === 'operator') await runOperatorLockstepPipelined(cover.traces, system, { onResult });
      else {
        const traces: PipelinedTrace[] = cover.traces.map(({ trace, unobserved }) => {
          const skip = new Set(unobserved);
          const level = levelOfClusterTrace(trace);
          return skip.size === 0 ? { trace, level } : { trace, level, observed: (i: number) => !skip.has(i) };
        });
        await runClusterLockstepPipelined(traces, system, { onResult });
      }
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
