// The conformance job (SPEC §7): at each level the system under test
// supports (or the one asked for), every example trace and then random
// traces with shrinking, each in lockstep with the model. Returns a report;
// writing files and printing is the CLI's business.
import fc from 'fast-check';
import { isAbsolute, relative } from 'node:path';
import { LEVELS, PACKAGE_ROOT } from '../spec/index.ts';
import type { AnyTrace, ClusterTrace, ImplementationInfo, Level, OperatorTrace } from '../spec/index.ts';
import { runClusterLockstepPipelined } from './lockstep/clusterLockstep.ts';
import { levelOfClusterTrace, runTrace, withExpectations, withoutExpectations } from './lockstep/anyTrace.ts';
import { minimizeTrace } from './lockstep/minimize.ts';
import type { ScenarioCover } from './generate/exhaustive.ts';
import { coverageTable, missingCoverage, requiredCoverage } from './generate/exhaustive.ts';
import { clusterTraceArbitrary } from './generate/clusterTraces.ts';
import { operatorTraceArbitrary } from './generate/logs.ts';
import type { Divergence } from './lockstep/divergence.ts';
import { SutUnavailable, type SystemUnderTest } from './adapters/sut.ts';
import { inShard, shardCount, type Shard } from './shard.ts';

/** A trace file given to the job (examples, or a user's). */
export interface TraceSource {
  readonly path: string;
  readonly trace: AnyTrace;
}

export type ConformVerdict = 'pass' | 'fail' | 'unknown';

/** A divergence found, with the trace that shows it (expectations filled in by the model). */
export interface Failure {
  readonly level: Level;
  /** `example` (a file), `exhaustive` (a scenario's trace, minimized) or `random` (a shrunk random trace). */
  readonly origin: 'example' | 'exhaustive' | 'random';
  /** The example's path. */
  readonly path?: string;
  /** The exhaustive scenario. */
  readonly scenario?: string;
  /** fast-check's seed and path of the shrunk counterexample (random traces). */
  readonly seed?: number;
  readonly fcPath?: string;
  readonly trace: AnyTrace;
  readonly divergence: Divergence;
  /** Milliseconds from the start of the job until the divergence was first seen (before shrinking or minimizing). */
  readonly foundAfterMs?: number;
}

/** The system under test could not be judged. */
export interface Unknown {
  readonly reason: string;
  readonly stderrTail: readonly string[];
  /** What the job was doing. */
  readonly during: string;
}

export interface ExampleResult {
  readonly level: Level;
  readonly path: string;
  readonly name: string;
  readonly steps: number;
  readonly verdict: 'pass' | 'fail';
}

/** One bounded-exhaustive scenario as run. */
export interface ExhaustiveResult {
  readonly scenario: string;
  /** Distinct states and transitions of its bounded eager graph: every transition is taken by some trace. */
  readonly states: number;
  readonly transitions: number;
  /** Interleavings: the covering traces, and their steps. */
  readonly traces: number;
  readonly steps: number;
  /** Traces run (up to the first divergence), and traces skipped because they need a level not checked. */
  readonly run: number;
  readonly skipped: number;
  /** Traces per level run. */
  readonly levels: Partial<Record<Level, number>>;
  readonly verdict: ConformVerdict | 'not run';
  readonly ms: number;
}

export interface RandomResult {
  readonly level: Level;
  readonly seed: number;
  readonly requested: number;
  /** Runs before the first failure, or all of them. */
  readonly runs: number;
  readonly shrinks: number;
  readonly verdict: ConformVerdict;
  /** Why it is `unknown` when the budget ran out. */
  readonly note?: string;
}

export interface ConformReport {
  readonly verdict: ConformVerdict;
  readonly sut: string;
  readonly implementation?: ImplementationInfo;
  /** Levels the system supports (from the handshake). */
  readonly supported: readonly Level[];
  /** Levels checked. */
  readonly levels: readonly Level[];
  readonly seed: number;
  readonly examples: readonly ExampleResult[];
  readonly exhaustive: readonly ExhaustiveResult[];
  /** With exhaustive scenarios: the coverage labels (crash points among them) they must take together, and any they missed. */
  readonly coverage?: { readonly required: readonly string[]; readonly missing: readonly string[]; readonly taken: readonly string[] };
  readonly random: readonly RandomResult[];
  readonly failures: readonly Failure[];
  readonly unknown?: Unknown;
  /** Example traces not run, and why. */
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
  /** The shard this run was (shard.ts); absent: the whole job. */
  readonly shard?: Shard;
  readonly ms: number;
}

export interface ConformOptions {
  readonly system: SystemUnderTest;
  /** Levels to check; default every level the system supports. */
  readonly levels?: readonly Level[];
  readonly seed: number;
  /** Random traces per level. */
  readonly runs: number;
  /** fast-check path to replay one random counterexample (with its seed). */
  readonly path?: string;
  readonly examples: readonly TraceSource[];
  /** Bounded-exhaustive scenarios to run after the examples (exhaustive.ts `coverScenario`). */
  readonly exhaustive?: readonly ScenarioCover[];
  /** Stop the whole job at the first divergence (what `streamjoin mutants` wants); default: each part stops at its own first. */
  readonly stopAtFirstFailure?: boolean;
  /** Traces in flight at once in the exhaustive part (default 32). */
  readonly window?: number;
  /** Stop random runs after this long; runs not reached make the verdict `unknown`. */
  readonly timeBudgetMs?: number;
  /** Run only this shard's share of every part (shard.ts): the examples, each scenario's interleavings, each level's random traces. */
  readonly shard?: Shard;
  /** Called with every trace run (not the shrinking or minimizing ones): what a shard ran, for tests and tools. */
  readonly onTrace?: (run: TraceRun) => void;
  /** Progress lines (for stderr). */
  readonly progress?: (line: string) => void;
  /** `true` for a live counter: called with a line to overwrite (for an interactive stderr). */
  readonly tick?: (line: string) => void;
}

/** One trace the job runs: which part, at which level. */
export interface TraceRun {
  readonly part: 'example' | 'exhaustive' | 'random';
  readonly level: Level;
  readonly trace: AnyTrace;
}

/** Where an example runs: its level among those checked, or why it is skipped. */
function exampleLevel(trace: AnyTrace, levels: readonly Level[]): Level | string {
  if (trace.kind === 'operator') return levels.includes('operator') ? 'operator' : 'needs level operator';
  const need = levelOfClusterTrace(trace.trace);
  if (need === 'cluster' && levels.includes('cluster')) return 'cluster';
  if (levels.includes('faults')) return 'faults';
  return `needs level ${need}`;
}

/** One exhaustive scenario: its traces pipelined, each at the weakest checked level that has all its actions; the first divergence minimized. */
async function runExhaustiveScenario(
  opts: ConformOptions,
  cover: ScenarioCover,
  levels: readonly Level[],
  since: () => number,
): Promise<{ result: ExhaustiveResult; failure?: Failure }> {
  const t0 = performance.now();
  const runnable: { trace: ClusterTrace; level: Level }[] = [];
  let skipped = 0;
  let steps = 0;
  let traces = 0;
  for (const [i, trace] of cover.traces.entries()) {
    if (!inShard(i, opts.shard)) continue;
    traces++;
    steps += trace.steps.length;
    const level = exampleLevel({ kind: 'cluster', trace }, levels);
    if (LEVELS.includes(level as Level)) runnable.push({ trace, level: level as Level });
    else skipped++;
  }
  const perLevel: Partial<Record<Level, number>> = {};
  let run = 0;
  let first: { trace: ClusterTrace; level: Level; divergence: Divergence; at: number } | undefined;
  await runClusterLockstepPipelined(runnable, opts.system, {
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    onResult: (r) => {
      run++;
      perLevel[r.level] = (perLevel[r.level] ?? 0) + 1;
      opts.onTrace?.({ part: 'exhaustive', level: r.level, trace: { kind: 'cluster', trace: r.trace } });
      if (run % 200 === 0) opts.tick?.(`exhaustive ${cover.scenario.name}: ${run}/${runnable.length} interleavings`);
      if (!r.divergence) return true;
      first = { trace: r.trace, level: r.level, divergence: r.divergence, at: since() };
      return false;
    },
  });
  const base = {
    scenario: cover.scenario.name,
    states: cover.states,
    transitions: cover.transitions,
    traces,
    steps,
    run,
    skipped,
    levels: perLevel,
  };
  if (!first) return { result: { ...base, verdict: 'pass', ms: performance.now() - t0 } };
  const found: { trace: ClusterTrace; level: Level; divergence: Divergence; at: number } = first;
  // A system that dies while being minimized still leaves the divergence found, unminimized.
  const whole: AnyTrace = { kind: 'cluster', trace: found.trace };
  const minimal = await minimizeTrace(opts.system, found.level, whole, found.divergence).catch(() => ({
    trace: whole,
    divergence: found.divergence,
  }));
  const small = minimal.trace.trace as ClusterTrace;
  const name = `exhaustive-${cover.scenario.name}`;
  const description =
    `Interleaving ${found.trace.name} of the bounded-exhaustive scenario ${cover.scenario.name} (${cover.scenario.description}), ` +
    `cut at the divergence and minimized by deleting steps. It diverged at step ${minimal.divergence.step}: ${minimal.divergence.summary}`;
  const trace: AnyTrace = { kind: 'cluster', trace: { format: small.format, name, description, config: small.config, steps: small.steps } };
  return {
    result: { ...base, verdict: 'fail', ms: performance.now() - t0 },
    failure: {
      level: found.level,
      origin: 'exhaustive',
      scenario: cover.scenario.name,
      trace: withExpectations(trace),
      divergence: minimal.divergence,
      foundAfterMs: found.at,
    },
  };
}

/** Random traces at one level, shrinking the first failure. */
async function randomAtLevel(
  opts: ConformOptions,
  level: Level,
  since: () => number,
): Promise<{ result: RandomResult; failure?: Failure; unknown?: SutUnavailable }> {
  const { system, seed, runs } = opts;
  const failing = new Map<AnyTrace, Divergence>();
  let firstSeen: number | undefined;
  let unavailable: SutUnavailable | undefined;
  let harnessError: unknown;
  let done = 0;
  // The fast-check run index of each initial trace: a shard runs the indices that are its share (shard.ts);
  // once one of them fails, every later call is a shrinking step, which runs.
  let index = 0;
  let ran = 0;
  let shrinking = false;
  const share = shardCount(runs, opts.shard);
  const property = async (trace: AnyTrace): Promise<boolean> => {
    // Once the system is gone, the remaining runs pass vacuously; the verdict is `unknown`.
    if (unavailable || harnessError !== undefined) return true;
    if (!shrinking) {
      const mine = opts.path !== undefined || inShard(index, opts.shard);
      index++;
      if (!mine) return true;
      ran++;
      opts.onTrace?.({ part: 'random', level, trace });
    }
    done++;
    opts.tick?.(`${level}: random trace ${shrinking ? `${done} (shrinking)` : `${ran}/${share}`}`);
    try {
      const d = await runTrace(system, trace, level);
      if (!d) return true;
      firstSeen ??= since();
      failing.set(trace, d);
      shrinking = true;
      return false;
    } catch (e) {
      if (e instanceof SutUnavailable) unavailable = e;
      else harnessError = e;
      return true;
    }
  };
  const arbitrary: fc.Arbitrary<AnyTrace> =
    level === 'operator'
      ? operatorTraceArbitrary().map((trace: OperatorTrace): AnyTrace => ({ kind: 'operator', trace }))
      : clusterTraceArbitrary(level).map((trace: ClusterTrace): AnyTrace => ({ kind: 'cluster', trace }));
  const details = await fc.check(fc.asyncProperty(arbitrary, property), {
    seed,
    numRuns: runs,
    ...(opts.path !== undefined ? { path: opts.path } : {}),
    ...(opts.timeBudgetMs !== undefined ? { plugins: [fc.interruptAfterTimeLimit(opts.timeBudgetMs)] } : {}),
  });
  if (harnessError !== undefined) throw harnessError;
  const base = { level, seed, requested: share, runs: ran, shrinks: details.numShrinks };
  if (details.failed && details.counterexample) {
    const [trace] = details.counterexample as [AnyTrace];
    // The predicate saw this very value; if not (a copy), run it again.
    const found = failing.get(trace) ?? (await runTrace(system, trace, level).catch(() => undefined));
    const minimal = found ? await minimizeTrace(system, level, trace, found).catch(() => ({ trace, divergence: found })) : undefined;
    if (minimal) {
      const { divergence } = minimal;
      const small = minimal.trace;
      const name = `${level}-seed${seed}`;
      const description = `${fcDescription(seed, details.counterexamplePath)} It diverged at step ${divergence.step}: ${divergence.summary}`;
      // Key order is what a reader sees first in the file: what it is, then the config, then the steps.
      const named: AnyTrace =
        small.kind === 'cluster'
          ? {
              kind: 'cluster',
              trace: { format: small.trace.format, name, description, config: small.trace.config, steps: small.trace.steps },
            }
          : {
              kind: 'operator',
              trace: { format: small.trace.format, name, description, config: small.trace.config, steps: small.trace.steps },
            };
      return {
        result: { ...base, verdict: 'fail' },
        failure: {
          level,
          origin: 'random',
          seed,
          ...(details.counterexamplePath !== null ? { fcPath: details.counterexamplePath } : {}),
          trace: withExpectations(named),
          divergence,
          ...(firstSeen !== undefined ? { foundAfterMs: firstSeen } : {}),
        },
        ...(unavailable ? { unknown: unavailable } : {}),
      };
    }
  }
  if (unavailable) return { result: { ...base, verdict: 'unknown' }, unknown: unavailable };
  if (details.interrupted && details.numRuns < runs) {
    return { result: { ...base, verdict: 'unknown', note: `budget exhausted after ${ran} of ${share} random traces` } };
  }
  return { result: { ...base, verdict: 'pass' } };
}

/** A path inside the project relative to its root (so that a written trace names no machine's directories). */
function projectRelative(path: string): string {
  const r = relative(PACKAGE_ROOT, path);
  return r.startsWith('..') || isAbsolute(r) ? path : r;
}

function fcDescription(seed: number, path: string | null): string {
  const found = `seed ${seed}${path !== null ? `, fast-check path ${path}` : ''}`;
  return `A random trace found by streamjoin conform (${found}), shrunk by fast-check, then cut at the divergence and minimized by deleting steps.`;
}

/** Runs the whole job. Never rejects for a broken system (that is verdict `unknown`); rejects on a harness bug. */
export async function runConform(opts: ConformOptions): Promise<ConformReport> {
  const { system, seed } = opts;
  const started = performance.now();
  const since = (): number => performance.now() - started;
  const examples: ExampleResult[] = [];
  const exhaustive: ExhaustiveResult[] = [];
  const random: RandomResult[] = [];
  const failures: Failure[] = [];
  const skipped: { path: string; why: string }[] = [];
  let implementation: ImplementationInfo | undefined;
  let supported: readonly Level[] = [];
  let levels: readonly Level[] = [];
  let unknown: Unknown | undefined;
  let during = 'the handshake';
  const report = (): ConformReport => ({
    verdict: failures.length > 0 ? 'fail' : unknown || random.some((r) => r.verdict === 'unknown') ? 'unknown' : 'pass',
    sut: system.label,
    ...(implementation ? { implementation } : {}),
    supported,
    levels,
    seed,
    examples,
    exhaustive,
    ...(opts.exhaustive !== undefined
      ? {
          coverage: {
            required: requiredCoverage(),
            missing: missingCoverage(opts.exhaustive),
            taken: coverageTable(opts.exhaustive).map((r) => r.label),
          },
        }
      : {}),
    random,
    failures,
    ...(unknown ? { unknown } : {}),
    skipped,
    ...(opts.shard ? { shard: opts.shard } : {}),
    ms: since(),
  });
  const done = (): boolean => opts.stopAtFirstFailure === true && failures.length > 0;
  try {
    const info = await system.info();
    implementation = info.implementation;
    supported = LEVELS.filter((l) => info.levels.includes(l));
    opts.progress?.(`system under test: ${info.implementation.name} ${info.implementation.version}; levels ${supported.join(', ')}`);
    const wanted = opts.levels ?? supported;
    const missing = wanted.filter((l) => !supported.includes(l));
    if (missing.length > 0) {
      unknown = { reason: `it does not support level ${missing.join(', ')} (it supports ${supported.join(', ')})`, stderrTail: [], during };
      return report();
    }
    levels = LEVELS.filter((l) => wanted.includes(l));
    for (const [i, ex] of opts.examples.entries()) {
      if (!inShard(i, opts.shard)) continue;
      const level = exampleLevel(ex.trace, levels);
      if (!LEVELS.includes(level as Level)) {
        skipped.push({ path: ex.path, why: level });
        continue;
      }
      during = `example ${ex.path} at level ${level}`;
      opts.onTrace?.({ part: 'example', level: level as Level, trace: ex.trace });
      const d = await runTrace(system, ex.trace, level as Level);
      examples.push({
        level: level as Level,
        path: ex.path,
        name: ex.trace.trace.name,
        steps: ex.trace.trace.steps.length,
        verdict: d ? 'fail' : 'pass',
      });
      opts.progress?.(`${d ? 'FAIL' : 'ok  '} ${level.padEnd(8)} ${ex.trace.trace.name}${d ? `: step ${d.step}: ${d.summary}` : ''}`);
      if (d) {
        const foundAfterMs = since();
        // Cut at the divergence and minimized, like every other counterexample; it keeps the example's name.
        // Without the file's expectations: a deleted step would make them stale; the model's are the same (the examples are checked against it).
        // A system that dies while being minimized still leaves the divergence found, unminimized.
        const plain = withoutExpectations(ex.trace);
        const minimal = await minimizeTrace(system, level as Level, plain, d).catch(() => ({ trace: plain, divergence: d }));
        const t = minimal.trace;
        const description =
          `Cut from the example ${projectRelative(ex.path)} at its divergence and minimized by deleting steps ` +
          `(${t.trace.steps.length} of ${ex.trace.trace.steps.length} steps). It diverged at step ${minimal.divergence.step}: ${minimal.divergence.summary}`;
        const named: AnyTrace =
          t.kind === 'cluster'
            ? {
                kind: 'cluster',
                trace: { format: t.trace.format, name: t.trace.name, description, config: t.trace.config, steps: t.trace.steps },
              }
            : {
                kind: 'operator',
                trace: { format: t.trace.format, name: t.trace.name, description, config: t.trace.config, steps: t.trace.steps },
              };
        failures.push({
          level: level as Level,
          origin: 'example',
          path: ex.path,
          trace: withExpectations(named),
          divergence: minimal.divergence,
          foundAfterMs,
        });
      }
      if (done()) return report();
    }
    for (const cover of opts.exhaustive ?? []) {
      if (done()) {
        exhaustive.push({
          scenario: cover.scenario.name,
          states: cover.states,
          transitions: cover.transitions,
          traces: shardCount(cover.traces.length, opts.shard),
          steps: cover.traces.filter((_, i) => inShard(i, opts.shard)).reduce((n, t) => n + t.steps.length, 0),
          run: 0,
          skipped: 0,
          levels: {},
          verdict: 'not run',
          ms: 0,
        });
        continue;
      }
      during = `exhaustive scenario ${cover.scenario.name}`;
      const r = await runExhaustiveScenario(opts, cover, levels, since);
      exhaustive.push(r.result);
      const x = r.result;
      opts.progress?.(
        `${x.verdict === 'pass' ? 'ok  ' : 'FAIL'} exhaustive ${x.scenario}: ${x.run} of ${x.traces} interleavings, ` +
          `${x.transitions} transitions of ${x.states} states${x.skipped > 0 ? ` (${x.skipped} skipped: level not checked)` : ''}` +
          `${r.failure ? `: step ${r.failure.divergence.step}: ${r.failure.divergence.summary}` : ''}`,
      );
      if (r.failure) failures.push(r.failure);
    }
    for (const level of levels) {
      if (done()) break;
      during = `random traces at level ${level} (seed ${seed})`;
      const r = await randomAtLevel(opts, level, since);
      random.push(r.result);
      const tail = r.result.verdict === 'fail' ? `: shrunk ${r.result.shrinks} times` : r.result.note ? `: ${r.result.note}` : '';
      opts.progress?.(
        `${r.result.verdict === 'pass' ? 'ok  ' : r.result.verdict.toUpperCase()} ${level.padEnd(8)} ${r.result.runs} random traces (seed ${seed})${tail}`,
      );
      if (r.failure) failures.push(r.failure);
      if (r.unknown) {
        unknown = { reason: r.unknown.reason, stderrTail: r.unknown.stderrTail, during };
        break;
      }
    }
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    unknown = { reason: e.reason, stderrTail: e.stderrTail, during };
  }
  return report();
}
