// The conformance job (SPEC §7): at each level the system under test
// supports (or the one asked for), every example trace and then random
// traces with shrinking, each in lockstep with the model. Returns a report;
// writing files and printing is the CLI's business.
// The bounded-exhaustive part is exhaustivePart.ts; the options and the
// report's shape are conformTypes.ts.
import fc from 'fast-check';
import { isAbsolute, relative } from 'node:path';
import { LEVELS, PACKAGE_ROOT } from '../spec/index.ts';
import type { AnyTrace, ClusterTrace, ImplementationInfo, Level, OperatorTrace } from '../spec/index.ts';
import { levelOfClusterTrace, runTraceObserved, withExpectations, withoutExpectations, type TraceOutcome } from './lockstep/anyTrace.ts';
import { minimizeTrace } from './lockstep/minimize.ts';
import type { AnyCover } from './generate/exhaustive.ts';
import { coverageTable, missingCoverage, requiredCoverage } from './generate/exhaustive.ts';
import { clusterTraceArbitrary } from './generate/clusterTraces.ts';
import { operatorTraceArbitrary } from './generate/logs.ts';
import type { Divergence } from './lockstep/divergence.ts';
import { SutUnavailable } from './adapters/sut.ts';
import { abortReason } from './adapters/process.ts';
import { inShard, shardCount } from './shard.ts';
import type { ConformOptions, ConformReport, ExampleResult, ExhaustiveResult, Failure, RandomResult, Unknown } from './conformTypes.ts';
import { runExhaustiveScenario } from './exhaustivePart.ts';
import { stopOnAbort } from './generate/stopOnAbort.ts';

/** SutUnavailable `interrupted: ...` if the job was aborted: the system can no longer be judged. */
function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(signal)}`);
}

/** Whether any trace of a scenario of this kind can run at these levels. */
function runsAt(kind: 'operator' | 'cluster', levels: readonly Level[]): boolean {
  return kind === 'operator' ? levels.includes('operator') : levels.includes('cluster') || levels.includes('faults');
}

/** Where an example runs: its level among those checked, or why it is skipped. */
function exampleLevel(trace: AnyTrace, levels: readonly Level[]): Level | string {
  if (trace.kind === 'operator') return levels.includes('operator') ? 'operator' : 'needs level operator';
  const need = levelOfClusterTrace(trace.trace);
  if (need === 'cluster' && levels.includes('cluster')) return 'cluster';
  if (levels.includes('faults')) return 'faults';
  return `needs level ${need}`;
}

/** Random traces at one level, shrinking the first failure. */
async function randomAtLevel(
  opts: ConformOptions,
  level: Level,
  since: () => number,
): Promise<{ result: RandomResult; failure?: Failure; unknown?: SutUnavailable }> {
  const { system, seed, runs } = opts;
  const failing = new Map<AnyTrace, TraceOutcome & { divergence: Divergence }>();
  let firstSeen: number | undefined;
  let unavailable: SutUnavailable | undefined;
  let harnessError: unknown;
  let done = 0;
  let probes = 0;
  // The fast-check run index of each initial trace: a shard runs the indices that are its share (shard.ts);
  // once one of them fails, every later call is a shrinking step, which runs.
  let index = 0;
  let ran = 0;
  let shrinking = false;
  const share = shardCount(runs, opts.shard);
  const property = async (trace: AnyTrace): Promise<boolean> => {
    // Once the system is gone, the remaining runs pass vacuously; the verdict is `unknown`.
    if (unavailable || harnessError !== undefined) return true;
    if (opts.signal?.aborted) {
      unavailable = new SutUnavailable(`interrupted: ${abortReason(opts.signal)}`);
      return true;
    }
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
      const run = await runTraceObserved(system, trace, level);
      const d = run.divergence;
      if (firstSeen === undefined) probes += run.probes;
      if (!d) return true;
      firstSeen ??= since();
      failing.set(trace, { ...run, divergence: d });
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
    plugins: [
      ...(opts.timeBudgetMs !== undefined ? [fc.interruptAfterTimeLimit(opts.timeBudgetMs)] : []),
      ...(opts.signal ? [stopOnAbort(opts.signal)] : []),
    ],
  });
  if (harnessError !== undefined) throw harnessError;
  const base = { level, seed, requested: share, runs: ran, shrinks: details.numShrinks, probes };
  if (details.failed && details.counterexample) {
    const [trace] = details.counterexample as [AnyTrace];
    // The predicate saw this very value; if not (a copy), run it again.
    const seen = failing.get(trace) ?? (await runTraceObserved(system, trace, level).catch(() => undefined));
    const found = seen?.divergence;
    const minimal = found
      ? await minimizeTrace(system, level, trace, found, undefined, seen?.stderr).catch(() => ({
          trace,
          divergence: found,
          stderr: seen?.stderr,
        }))
      : undefined;
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
          ...(minimal.stderr ? { stderr: minimal.stderr } : {}),
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

/** An example's divergence in both numberings: the example's step, and the minimized counterexample's. */
export function exampleStepText(exampleStep: number, step: number, steps: number): string {
  return `step ${exampleStep} of the example (step ${step} of the ${steps}-step counterexample)`;
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
  // Per exhaustive scenario, the traces that ran: coverage is claimed over these only.
  const ran: Set<number>[] = [];
  // The covers built, in the order of opts.exhaustive (a scenario that cannot run at the levels checked is never built).
  const covers: AnyCover[] = [];
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
            required: requiredCoverage(levels),
            missing: missingCoverage(covers, levels, ran),
            taken: coverageTable(covers, ran).map((r) => r.label),
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
      throwIfInterrupted(opts.signal);
      opts.onTrace?.({ part: 'example', level: level as Level, trace: ex.trace });
      const run = await runTraceObserved(system, ex.trace, level as Level);
      const d = run.divergence;
      examples.push({
        level: level as Level,
        path: ex.path,
        name: ex.trace.trace.name,
        steps: ex.trace.trace.steps.length,
        verdict: d ? 'fail' : 'pass',
      });
      if (!d) opts.progress?.(`ok   ${level.padEnd(8)} ${ex.trace.trace.name}`);
      if (d) {
        const foundAfterMs = since();
        // Cut at the divergence and minimized, like every other counterexample; it keeps the example's name.
        // Without the file's expectations: a deleted step would make them stale; the model's are the same (the examples are checked against it).
        // A system that dies while being minimized still leaves the divergence found, unminimized.
        const plain = withoutExpectations(ex.trace);
        const minimal = await minimizeTrace(system, level as Level, plain, d, undefined, run.stderr).catch(() => ({
          trace: plain,
          divergence: d,
          stderr: run.stderr,
        }));
        const t = minimal.trace;
        // Both numberings: the example's own step (what its file shows) and the counterexample's.
        opts.progress?.(
          `FAIL ${level.padEnd(8)} ${ex.trace.trace.name}: ${exampleStepText(d.step, minimal.divergence.step, t.trace.steps.length)}: ${minimal.divergence.summary}`,
        );
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
          exampleStep: d.step,
          ...(minimal.stderr ? { stderr: minimal.stderr } : {}),
        });
      }
      if (done()) return report();
    }
    for (const part of opts.exhaustive ?? []) {
      const { scenario } = part;
      const unbuilt = {
        scenario: scenario.name,
        kind: scenario.kind,
        states: 0,
        transitions: 0,
        traces: 0,
        steps: 0,
        probes: 0,
        run: 0,
        skipped: 0,
        probesSent: 0,
        levels: {},
        ms: 0,
      };
      if (!runsAt(scenario.kind, levels) && 'build' in part) {
        // Never a vacuous pass: a scenario with no trace at the levels checked is skipped, and not even built.
        exhaustive.push({ ...unbuilt, verdict: 'skipped' });
        opts.progress?.(
          `skip exhaustive ${scenario.name}: it needs level ${scenario.kind === 'operator' ? 'operator' : 'cluster or faults'}`,
        );
        continue;
      }
      if (done()) {
        // This shard's share of a cover built already; nothing of one not built.
        const share =
          'build' in part
            ? {}
            : {
                traces: shardCount(part.traces.length, opts.shard),
                steps: part.traces.filter((_, i) => inShard(i, opts.shard)).reduce((n, t) => n + t.steps.length, 0),
              };
        exhaustive.push({ ...unbuilt, ...share, verdict: 'not run' });
        continue;
      }
      during = `exhaustive scenario ${scenario.name}`;
      throwIfInterrupted(opts.signal);
      const cover = 'build' in part ? await part.build() : part;
      const r = await runExhaustiveScenario(opts, cover, levels, since);
      covers.push(cover);
      ran.push(r.ran);
      exhaustive.push(r.result);
      const x = r.result;
      opts.progress?.(
        x.verdict === 'skipped'
          ? `skip exhaustive ${x.scenario}: no trace at the levels checked (needs level ${x.kind === 'operator' ? 'operator' : 'cluster or faults'})`
          : `${x.verdict === 'pass' ? 'ok  ' : 'FAIL'} exhaustive ${x.scenario}: ${x.run} of ${x.traces} ${x.kind === 'operator' ? 'logs' : 'interleavings'}, ` +
              `${x.probesSent} probes, ${x.transitions} transitions of ${x.states} states` +
              `${x.skipped > 0 ? ` (${x.skipped} skipped: level not checked)` : ''}` +
              `${r.failure ? `: step ${r.failure.divergence.step}: ${r.failure.divergence.summary}` : ''}`,
      );
      if (r.failure) failures.push(r.failure);
      throwIfInterrupted(opts.signal);
    }
    for (const level of levels) {
      if (done()) break;
      during = `random traces at level ${level} (seed ${seed})`;
      throwIfInterrupted(opts.signal);
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
