// The killing test of the mutation measurement (`npm run mutate`, StrykerJS
// over impl/; docs/mutation.md): the conformance harness, in-process and at
// its default depth, against the implementation as Stryker mutates it. Only
// Stryker runs this file (vitest.mutation.config.ts); `npm test` never does.
//
// One test per example trace, per level of random traces and per part of an
// exhaustive scenario (a few tenths of a second of its traces), cheapest
// first: Stryker's per-test coverage then runs, for each mutant, only the
// parts that reach it, stops at the first that kills it, and times it out on
// the time of those parts. Every part of conform's default run is here; only
// the order differs. Nothing is shrunk or minimized: a kill is all Stryker
// needs, and `streamjoin conform` shows the counterexample.
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
import type { DivergenceFacts } from '../sut/divergence.ts';
import { explainDivergence } from '../report/divergence.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { EXHAUSTIVE_SCENARIOS, coverAnyScenario, observedSteps, type AnyCover, type AnyScenario } from '../generate/exhaustive.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { operatorTraceArbitrary } from '../generate/logs.ts';
import { regressionTracePaths, specExamplePaths } from '../job/traceFilesPart.ts';
import { MUTATION_RANDOM_RUNS, MUTATION_SEED } from './settings.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..');
const system = inProcessSystem(implSut, 'impl');

/** The first divergence, as a message that names where (a failed expectation is a kill). */
const show = (d: DivergenceFacts | undefined): string | undefined =>
  d ? `step ${d.step + 1}: ${explainDivergence(d).summary}` : undefined;

describe('examples and regression traces', () => {
  for (const path of [...specExamplePaths(), ...regressionTracePaths()]) {
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

/**
 * A scenario's traces as conform sends them, as the cache file keeps them:
 * every distinct step and configuration once (`values`), each
 * trace a list of their indexes, and for cluster traces the steps it does not
 * observe (probes of one state observed once). The exhaustive traces share
 * most of their steps, so the file is a tenth of the traces' JSON, and the
 * traces rebuilt from it share their step objects as `coverAnyScenario`'s do
 * (the lockstep's shared-prefix memo keys on them).
 */
interface CachedCover {
  readonly kind: 'operator' | 'cluster';
  readonly values: readonly unknown[];
  readonly traces: readonly {
    readonly name: string;
    readonly description?: string;
    readonly config: number;
    readonly steps: readonly number[];
    readonly unobserved: readonly number[];
  }[];
}

/** The traces of a cached cover, with their steps shared between traces. */
type Cover =
  | { readonly kind: 'operator'; readonly traces: readonly OperatorTrace[] }
  | { readonly kind: 'cluster'; readonly traces: readonly { trace: ClusterTrace; unobserved: readonly number[] }[] };

function interned(cover: AnyCover): CachedCover {
  const values: unknown[] = [];
  const index = new Map<string, number>();
  const intern = (value: unknown): number => {
    const json = JSON.stringify(value);
    let i = index.get(json);
    if (i === undefined) index.set(json, (i = values.push(value) - 1));
    return i;
  };
  const traces = cover.traces.map((trace: OperatorTrace | ClusterTrace, k) => {
    const observed = cover.kind === 'cluster' ? observedSteps(cover, k) : undefined;
    const steps: readonly object[] = trace.steps;
    return {
      name: trace.name,
      ...(trace.description === undefined ? {} : { description: trace.description }),
      config: intern(trace.config),
      steps: steps.map(intern),
      unobserved: steps.flatMap((_, i) => (observed && !observed(i) ? [i] : [])),
    };
  });
  return { kind: cover.kind, values, traces };
}

function rebuilt(cached: CachedCover): Cover {
  const { values } = cached;
  if (cached.kind === 'operator')
    return {
      kind: 'operator',
      traces: cached.traces.map(
        (t): OperatorTrace => ({
          format: 'streamjoin/operator-trace@1',
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          config: values[t.config] as OperatorTrace['config'],
          steps: t.steps.map((i) => values[i] as OperatorTrace['steps'][number]),
        }),
      ),
    };
  return {
    kind: 'cluster',
    traces: cached.traces.map((t) => ({
      trace: {
        format: 'streamjoin/cluster-trace@1',
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        config: values[t.config] as ClusterTrace['config'],
        steps: t.steps.map((i) => values[i] as ClusterTrace['steps'][number]),
      },
      unobserved: t.unobserved,
    })),
  };
}

/** The cache file of a scenario's covering traces. */
/**
 * The cache files' format: part of their names, so that a file another
 * version of this harness left behind is never read as this one's.
 */
const CACHE_FORMAT = 2;

/** A cache file of this harness, named by its format, what it holds, and the hash of the sources it comes from. */
const cachePath = (what: string): string => join(tmpdir(), `streamjoin-mutation-v${CACHE_FORMAT}-${what}-${sourcesHash()}.json`);

/** The cache file of a scenario's covering traces. */
const coverPath = (scenario: AnyScenario): string => cachePath(`cover-${scenario.name}`);

/**
 * A scenario's covering traces. Building them is the model's work, and
 * Stryker mutates only impl/, so they are built once and kept in the
 * temporary directory, named by the hash of the sources they come from:
 * every mutant is judged on the very traces `coverAnyScenario` builds.
 */
function cachedCover(scenario: AnyScenario): CachedCover {
  const path = coverPath(scenario);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as CachedCover;
  const cached = interned(coverAnyScenario(scenario));
  const partial = `${path}.${process.pid}.${threadId}.tmp`;
  writeFileSync(partial, JSON.stringify(cached));
  renameSync(partial, path);
  return cached;
}

/** Steps per test of an exhaustive scenario: a few tenths of a second of the harness each. */
const STEPS_PER_PART = 20_000;

/**
 * Where a scenario's traces are cut into tests: consecutive traces of about
 * STEPS_PER_PART steps each. Finer tests let Stryker's per-test coverage run,
 * for each mutant, only the parts of a scenario that reach it, and time it
 * out on their time, not the scenario's. The cuts depend only on the cover,
 * so the tests' names are stable from run to run (incremental runs rely on it).
 */
function partsOf(cached: CachedCover): number[] {
  const starts = [0];
  let steps = 0;
  cached.traces.forEach((t, i) => {
    if (steps >= STEPS_PER_PART) {
      starts.push(i);
      steps = 0;
    }
    steps += t.steps.length;
  });
  return [...starts, cached.traces.length];
}

/** The covers of one test run, parsed once for all the parts of a scenario. */
const covers = new Map<string, Cover>();
const coverOf = (scenario: AnyScenario): Cover => {
  let cover = covers.get(scenario.name);
  if (!cover) covers.set(scenario.name, (cover = rebuilt(cachedCover(scenario))));
  return cover;
};

async function runPart(scenario: AnyScenario, from: number, to: number): Promise<string | undefined> {
  const cover = coverOf(scenario);
  let first: string | undefined;
  const onResult = (r: { readonly divergence?: DivergenceFacts | undefined; readonly index: number }): boolean => {
    if (!r.divergence) return true;
    first = `trace ${from + r.index}: ${show(r.divergence)}`;
    return false;
  };
  if (cover.kind === 'operator') await runOperatorLockstepPipelined(cover.traces.slice(from, to), system, { onResult });
  else {
    const traces: PipelinedTrace[] = cover.traces.slice(from, to).map(({ trace, unobserved }) => {
      const skip = new Set(unobserved);
      const level = levelOfClusterTrace(trace);
      return skip.size === 0 ? { trace, level } : { trace, level, observed: (i: number) => !skip.has(i) };
    });
    await runClusterLockstepPipelined(traces, system, { onResult });
  }
  return first;
}

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

/** Where a scenario's traces are cut into parts, and how many steps it has in all. */
interface ScenarioParts {
  readonly cuts: readonly number[];
  readonly steps: number;
}

/**
 * The parts of every scenario, kept beside the covers: every test run collects
 * the tests, and reading the cuts must not cost parsing every cover.
 */
function partsOfScenarios(): Record<string, ScenarioParts> {
  const path = cachePath(`parts-${STEPS_PER_PART}`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as Record<string, ScenarioParts>;
  const parts = Object.fromEntries(
    EXHAUSTIVE_SCENARIOS.map((scenario) => {
      const cover = cachedCover(scenario);
      return [scenario.name, { cuts: partsOf(cover), steps: cover.traces.reduce((n, t) => n + t.steps.length, 0) }];
    }),
  );
  const partial = `${path}.${process.pid}.${threadId}.tmp`;
  writeFileSync(partial, JSON.stringify(parts));
  renameSync(partial, path);
  return parts;
}

// After the cheap parts: the exhaustive scenarios, operator level first, the
// smaller scenarios of each level before the larger (a mutant stops at its
// first failing part, and the larger scenarios reach few mutants the smaller
// ones miss), each cut into parts named `[K/N]` (a bracket ends the number, so
// no part's name is a prefix of another's: Stryker selects tests by name).
describe('exhaustive scenarios', () => {
  const partsOf = partsOfScenarios();
  const size = (scenario: AnyScenario): number => partsOf[scenario.name]?.steps ?? 0;
  const levelFirst = (scenario: AnyScenario): number => (scenario.kind === 'operator' ? 0 : 1);
  const ordered = [...EXHAUSTIVE_SCENARIOS].sort((a, b) => levelFirst(a) - levelFirst(b) || size(a) - size(b));
  for (const scenario of ordered) {
    const cuts = partsOf[scenario.name]?.cuts ?? [];
    // A scenario without parts would drop its traces from the killing test without a word.
    if (cuts.length < 2)
      throw new Error(`no parts for the exhaustive scenario ${scenario.name} in ${cachePath(`parts-${STEPS_PER_PART}`)}`);
    const parts = cuts.length - 1;
    for (let k = 0; k < parts; k++) {
      const from = cuts[k] as number;
      const to = cuts[k + 1] as number;
      it(`${scenario.name} [${k + 1}/${parts}]`, async () => {
        expect(await runPart(scenario, from, to)).toBeUndefined();
      });
    }
  }
});
