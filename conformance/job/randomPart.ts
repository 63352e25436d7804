// The random part of the job: at each level checked, random traces from
// the generators (generate/), each in lockstep with the model; the first
// failure is shrunk by fast-check, then cut at the divergence and
// minimized. A fast-check path replays one counterexample of a seed.
import fc from 'fast-check';
import { InputError, type AnyTrace, type ClusterTrace, type Level, type OperatorTrace } from '../../spec/index.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { abortReason } from '../adapters/process.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { operatorTraceArbitrary } from '../generate/logs.ts';
import { runTraceObserved, type TraceOutcome } from '../lockstep/anyTrace.ts';
import { withSteps } from '../lockstep/minimize.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import type { RandomResult } from './conformTypes.ts';
import type { Failure } from '../report/failure.ts';
import { minimizedCounterexample, namedCounterexample } from './counterexample.ts';
import type { ConformPart, PartJob } from './part.ts';
import { inShard, shardCount } from './shard.ts';
import { stopOnAbort } from '../generate/stopOnAbort.ts';

/** Random traces as a part: `runs` per level (this shard's share of them), or with `path` the one counterexample fast-check reported. */
export function randomTracesPart(runs: number, path?: string): ConformPart {
  return {
    name: 'random',
    async run(job: PartJob): Promise<void> {
      for (const level of job.levels) {
        if (job.stopped()) return;
        job.enter(`random traces at level ${level} (seed ${job.seed})`);
        const r = await randomAtLevel(job, level, runs, path);
        job.report.random.push(r.result);
        const tail = r.result.verdict === 'fail' ? `: shrunk ${r.result.shrinks} times` : r.result.note ? `: ${r.result.note}` : '';
        job.progress(
          `${r.result.verdict === 'pass' ? 'pass' : r.result.verdict.toUpperCase()} ${level.padEnd(8)} ${r.result.runs} random traces (seed ${job.seed})${tail}`,
        );
        if (r.failure) job.report.failures.push(r.failure);
        // The system is gone: the job's verdict is `unknown` (unless a failure stands), and nothing more is judged.
        if (r.unknown) throw r.unknown;
      }
    },
  };
}

function fcDescription(seed: number, path: string | null): string {
  const found = `seed ${seed}${path !== null ? `, fast-check path ${path}` : ''}`;
  return `A random trace found by streamjoin conform (${found}), shrunk by fast-check, then cut at the divergence and minimized by deleting steps.`;
}

/** Random traces at one level, shrinking the first failure. */
async function randomAtLevel(
  job: PartJob,
  level: Level,
  runs: number,
  path: string | undefined,
): Promise<{ result: RandomResult; failure?: Failure; unknown?: SutUnavailable }> {
  const { system, seed } = job;
  const failing = new Map<AnyTrace, TraceOutcome & { divergence: DivergenceFacts }>();
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
  // While shrinking: the step where the trace being shrunk diverges. A candidate is run only that far: one that diverges
  // there or earlier is kept, one that would diverge only later is passed over (a counterexample no shorter, though its
  // values may be smaller; never a wrong verdict). fast-check's array shrinker drops steps from the front first, so a
  // long trace that diverges early was otherwise run in full, tail and all, hundreds of times (a 1,248-step trace
  // diverging at its 81st step: 94 s against a Python system, most of the random part).
  let divergedAt: number | undefined;
  const share = shardCount(runs, job.shard);
  const property = async (trace: AnyTrace): Promise<boolean> => {
    // Once the system is gone, the remaining runs pass vacuously; the verdict is `unknown`.
    if (unavailable || harnessError !== undefined) return true;
    if (job.signal?.aborted) {
      unavailable = new SutUnavailable(`interrupted: ${abortReason(job.signal)}`);
      return true;
    }
    if (!shrinking) {
      const mine = path !== undefined || inShard(index, job.shard);
      index++;
      if (!mine) return true;
      ran++;
      job.onTrace({ part: 'random', level, trace });
    }
    done++;
    job.tick(`${level}: random trace ${shrinking ? `${done} (shrinking)` : `${ran}/${share}`}`);
    try {
      const upTo = divergedAt;
      const run = await runTraceObserved(system, upTo === undefined ? trace : withSteps(trace, (i) => i <= upTo), level);
      const d = run.divergence;
      if (firstSeen === undefined) probes += run.probes;
      if (!d) return true;
      firstSeen ??= job.since();
      failing.set(trace, { ...run, divergence: d });
      shrinking = true;
      divergedAt = d.step;
      return false;
    } catch (e) {
      // While shrinking, a candidate the system cannot be judged on is not this candidate: shrinking goes on.
      if (e instanceof SutUnavailable) {
        if (!shrinking) unavailable = e;
      } else harnessError = e;
      return true;
    }
  };
  const arbitrary: fc.Arbitrary<AnyTrace> =
    level === 'operator'
      ? operatorTraceArbitrary().map((trace: OperatorTrace): AnyTrace => ({ kind: 'operator', trace }))
      : clusterTraceArbitrary(level).map((trace: ClusterTrace): AnyTrace => ({ kind: 'cluster', trace }));
  // A path that is not one of this seed's at this level is the user's to fix, not a bug of streamjoin (fast-check throws
  // at once, before its promise).
  const notAPath = (e: unknown): unknown =>
    path !== undefined && e instanceof Error && e.message.startsWith('Unable to replay')
      ? new InputError('SJ105', 'usage', `--path ${path} is no counterexample of seed ${seed} at level ${level} (${e.message})`)
      : e;
  let details: fc.RunDetails<unknown>;
  try {
    details = await fc.check(fc.asyncProperty(arbitrary, property), {
      seed,
      numRuns: runs,
      ...(path !== undefined ? { path } : {}),
      plugins: [
        ...(job.timeBudgetMs !== undefined ? [fc.interruptAfterTimeLimit(job.timeBudgetMs)] : []),
        ...(job.signal ? [stopOnAbort(job.signal)] : []),
      ],
    });
  } catch (e) {
    throw notAPath(e);
  }
  if (harnessError !== undefined) throw harnessError;
  // fast-check replays a path whose last number is past its shrinks as nothing at all: a pass that checked nothing.
  if (path !== undefined && ran === 0 && !details.failed && unavailable === undefined && !job.signal?.aborted)
    throw new InputError('SJ105', 'usage', `--path ${path} is no counterexample of seed ${seed} at level ${level} (it names no trace)`);
  const base = { level, seed, requested: share, runs: ran, shrinks: details.numShrinks, probes };
  if (details.failed && details.counterexample) {
    const [trace] = details.counterexample as [AnyTrace];
    // The predicate saw this very value; if not (a copy), run it again.
    const seen = failing.get(trace) ?? (await runTraceObserved(system, trace, level).catch(() => undefined));
    const found = seen?.divergence;
    if (found) {
      const minimal = await minimizedCounterexample(system, level, trace, found, seen?.stderr);
      const { divergence } = minimal;
      const description = `${fcDescription(seed, details.counterexamplePath)} It diverged at step ${divergence.step + 1}: ${divergence.summary}`;
      return {
        result: { ...base, verdict: 'fail' },
        failure: {
          level,
          origin: 'random',
          seed,
          ...(details.counterexamplePath !== null ? { fcPath: details.counterexamplePath } : {}),
          trace: namedCounterexample(minimal.trace, `${level}-seed${seed}`, description),
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
