// The kill-mode job (`conform --kill`, `replay --kill`; PROTOCOL.md, "Kill
// mode"): the cluster examples with a crash point, then seeded random
// traces at level `faults`, each with kills at its crash points and one or
// two in flight (killTraces.ts), and some killed inside their first `init`,
// each run on a fresh data directory (killRun.ts). The first divergence is minimized by deleting steps while it
// remains (a bounded number of reruns, each of which restarts the system),
// and reported with where it was killed. Writing files and printing are the
// CLI's.
import fc from 'fast-check';
import type { ClusterTrace } from '../../spec/index.ts';
import { abortReason, type ProcessOptions } from '../adapters/process.ts';
import { SutUnavailable } from '../sut/sut.ts';
import type { StderrExcerpt } from '../sut/sut.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { type ClusterDomain, collidingClusterDomain, lineBreakClusterDomain, oddClusterDomain } from '../generate/clusterDomains.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { clusterContractViolation } from '../lockstep/traceFiles.ts';
import { addKills, NO_KILLS, runKillTrace, totalKills, type KillCounts, type KillTraceResult } from './killRun.ts';
import { inFlightCandidates, killsIn, withInitKill, withKills, type InFlightChoice } from './killTraces.ts';
import { type ExhaustiveKill, killAtEveryWritePoint, killInitAtEveryWritePoint } from './everyWritePoint.ts';
import type { AbortSignalLike } from '../../spec/index.ts';
import { deleteSteps } from '../lockstep/deleteSteps.ts';

export interface KillJobOptions {
  /** The system under test: a command with `{data}` where its data directory goes. */
  readonly command: string;
  readonly seed: number;
  /** Random traces. */
  readonly runs: number;
  /** Traces run first, as given (kills marked: killTraces.ts `withKills`), e.g. the cluster examples or a file to replay. */
  readonly examples?: readonly { readonly path: string; readonly trace: ClusterTrace }[];
  /**
   * The exhaustive part (`--exhaustive`), run before the examples: each a
   * trace's first `init` or one of its steps, killed at every durable write
   * point in turn (everyWritePoint.ts `exhaustiveKills`).
   */
  readonly exhaustive?: readonly ExhaustiveKill[];
  /**
   * Steps killed at every durable write point likewise, after the examples
   * and before the random traces (everyWritePoint.ts `messageKills`, in
   * every run with the examples): a system the examples already fail (its
   * durable parts in memory) fails there first.
   */
  readonly afterExamples?: readonly ExhaustiveKill[];
  /** How each incarnation of the system is run (timeouts). */
  readonly process?: ProcessOptions;
  /** Kills at crash points per random trace, at most (default 4): later crash points are sent as plain requests. */
  readonly maxKillsPerTrace?: number;
  /** Reruns the minimization may spend (default 40). */
  readonly maxShrinkRuns?: number;
  /**
   * Whether item i (from 0) of each list (the exhaustive part's steps, the
   * examples, the random traces) is this run's: one shard of a job
   * (`--shard K/N`, conformance/job/shard.ts `inShard`, which sits a floor
   * above this folder and is the caller's); all of them when absent. The
   * random traces are drawn for the whole run from the seed, so the shards
   * of one seed run each trace once.
   */
  readonly inShard?: (index: number) => boolean;
  /** Aborting it (an interrupt, a time budget) stops the job between traces (the system at once): verdict unknown, with the abort's reason. */
  readonly signal?: AbortSignalLike;
  readonly progress?: (line: string) => void;
}

/** Times of the kills: from SIGKILL to the re-attached system's first observation. */
export interface RestartTimes {
  readonly count: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

export interface KillFailure {
  /** The minimized trace, kills marked (in-flight ones resolved). */
  readonly trace: ClusterTrace;
  readonly divergence: DivergenceFacts;
  /** The divergence is the observation right after a kill and restart. */
  readonly killed: boolean;
  /** Where it came from: an example's path, or the random trace's number. */
  readonly source: string;
  /** Steps of the trace that first diverged, and reruns spent minimizing. */
  readonly originalSteps: number;
  readonly shrinks: number;
  readonly stderr?: () => StderrExcerpt;
}

/** One trace of the job (one write point's run, in the exhaustive part), as a CI report lists it. */
export interface KillTraceOutcome {
  readonly kind: 'exhaustive' | 'example' | 'random';
  /** An example's path, `random trace N of M (seed S)`, or `PATH, step I killed at write W` (`PATH, init killed at write W`). */
  readonly source: string;
  readonly steps: number;
  readonly kills: number;
  /** `not run`: the job stopped before it (a failure, the system unavailable, an interrupt or the time budget). */
  readonly verdict: 'pass' | 'fail' | 'unknown' | 'not run';
  readonly ms: number;
}

export interface KillJobReport {
  readonly verdict: 'pass' | 'fail' | 'unknown';
  readonly sut: string;
  readonly seed: number;
  readonly examples: number;
  /** Runs of the exhaustive part: one per write point of each step killed (and of each init). */
  readonly exhaustiveRuns: number;
  /**
   * Of those, the runs whose system killed itself at the write point set (STREAMJOIN_KILL_AT_WRITE); the
   * others answered first (no write point left, or a system without the hook: then every run answered).
   */
  readonly exhaustiveDiedAtWrite: number;
  readonly requested: number;
  /** Random traces run (up to the failure). */
  readonly runs: number;
  readonly steps: number;
  readonly kills: KillCounts;
  readonly restarts: RestartTimes;
  readonly failure?: KillFailure;
  readonly unknown?: { readonly reason: string; readonly stderrTail: readonly string[] };
  /** Every trace of the job (of its shard), in the order run, those it did not reach included. */
  readonly traces: readonly KillTraceOutcome[];
  readonly ms: number;
}

/** Ends the job's loop once the exhaustive part found a divergence. */
class StopJob extends Error {}

/** About one random kill trace in this many also has its first `init` killed (at a random write point). */
export const INIT_KILL_ONE_IN = 8;

/** The write points an init kill of a random trace is drawn from: 1 up to this (past the last, the system answers init). */
export const INIT_KILL_MAX_WRITE = 4;

/**
 * Per random kill trace of `seed`, the write point its `init` is killed at,
 * or undefined (about INIT_KILL_ONE_IN - 1 in INIT_KILL_ONE_IN). Drawn apart
 * from the traces: a seed's traces stay what they were without init kills.
 */
export function initKillWrites(seed: number, runs: number): (number | undefined)[] {
  if (runs === 0) return [];
  // Unbiased: fast-check leans towards small values, which would make the kill far more frequent than one in INIT_KILL_ONE_IN.
  const draw = fc.noBias(
    fc.record({ pick: fc.nat({ max: INIT_KILL_ONE_IN - 1 }), write: fc.integer({ min: 1, max: INIT_KILL_MAX_WRITE }) }),
  );
  return fc.sample(draw, { seed: seed ^ 0x1717, numRuns: runs }).map((d) => (d.pick === 0 ? d.write : undefined));
}

/**
 * An in-flight kill as drawn: `kind` picks the type of action killed (among
 * the types of the trace's steps an in-flight kill can go to), `pick` one
 * step of that type; `write` the durable write point of an `at-write` kill.
 */
interface InFlightDraw {
  readonly kind: number;
  readonly pick: number;
  readonly timing: InFlightChoice['timing'];
  readonly write: number;
}

/** The write points an in-flight `at-write` kill is drawn from: 1 up to this (a commit of serve --data makes 11). */
const IN_FLIGHT_MAX_WRITE = 12;

/**
 * In-flight kills, drawn so that every kind of step gets them: uniform over
 * the action types the trace can be killed in flight at, then over the steps
 * of the type (uniform over steps, nearly all are `record`: at seeds 1–30,
 * 637 of 678 in-flight kills went to a record and 4 to an install). Half
 * are `at-write`, at write point w of 1..IN_FLIGHT_MAX_WRITE with
 * probability proportional to 1/w: a step whose parts go in two writes
 * shows it at a kill between them, which is write 1 for a system that makes
 * one write point per write, and later for one that makes several (a temp
 * file written, synced, renamed: 3 per write); 1/w gives the first points
 * most and still 6 % or more to each of 2..5.
 */
const inFlightDraw: fc.Arbitrary<InFlightDraw> = fc.noBias(
  fc.record({
    kind: fc.nat(),
    pick: fc.nat(),
    timing: fc.oneof(
      { weight: 2, arbitrary: fc.constant('at-write' as const) },
      { weight: 1, arbitrary: fc.constant('unread' as const) },
      { weight: 1, arbitrary: fc.constant('answered' as const) },
    ),
    // P(w) ∝ 1/w: 27,720 is the least common multiple of 1..12, so every weight is an integer.
    write: fc.oneof(
      ...Array.from({ length: IN_FLIGHT_MAX_WRITE }, (_, i) => ({ weight: 27_720 / (i + 1), arbitrary: fc.constant(i + 1) })),
    ),
  }),
);

/** The steps the draws go to (killTraces.ts `inFlightCandidates`); none when the trace has no step to kill in flight. */
function inFlightChoices(trace: ClusterTrace, draws: readonly InFlightDraw[]): InFlightChoice[] {
  const candidates = inFlightCandidates(trace);
  const types = [...new Set(candidates.map((c) => c.type))].sort();
  if (types.length === 0) return [];
  return draws.map((d) => {
    const type = types[d.kind % types.length];
    const steps = candidates.filter((c) => c.type === type);
    const at = (steps[d.pick % steps.length] as { at: number }).at;
    return { at, timing: d.timing, ...(d.timing === 'at-write' ? { write: d.write } : {}) };
  });
}

/**
 * The name domains whose names a durable format must carry whole: line
 * breaks (a journal split as text), odd names (`__proto__`, `/`, `%`, `|R:`:
 * a table keyed or split naively) and names that collide under a naive
 * match-id encoding. Drawn from the whole mix, a run of 20 traces has none
 * over one of them about one seed in ten; here the first traces of every
 * run are one over each, in this order.
 */
export const KILL_NAME_DOMAINS: readonly ClusterDomain[] = [lineBreakClusterDomain, oddClusterDomain, collidingClusterDomain];

/**
 * Seeded random kill traces: random `faults` traces, each with kills at its
 * crash points and one or two in flight (`inFlightChoices`); about one in
 * INIT_KILL_ONE_IN also killed inside its first `init`, at write point
 * 1..INIT_KILL_MAX_WRITE (drawn from the seed apart from the traces, which
 * stay those of the seed). The first ones are over KILL_NAME_DOMAINS, one
 * each (each drawn from the seed too).
 */
export function randomKillTraces(seed: number, runs: number, maxKillsPerTrace = 4): ClusterTrace[] {
  if (runs === 0) return [];
  const inFlightDraws = fc.array(inFlightDraw, { minLength: 1, maxLength: 2 });
  const arbitrary = fc.tuple(clusterTraceArbitrary('faults'), inFlightDraws);
  const initKills = initKillWrites(seed, runs);
  const named = KILL_NAME_DOMAINS.slice(0, runs).map(
    (domain, i) => fc.sample(fc.tuple(clusterTraceArbitrary('faults', domain), inFlightDraws), { seed: (seed + i + 1) | 0, numRuns: 1 })[0],
  );
  return fc.sample(arbitrary, { seed, numRuns: runs }).map((drawn, n) => {
    const [trace, draws] = named[n] ?? drawn;
    const write = initKills[n];
    const initKilled = write === undefined ? trace : withInitKill(trace, write);
    const killed = withKills(initKilled, inFlightChoices(initKilled, draws), { crashPointKills: maxKillsPerTrace, finalKill: true });
    return { ...killed, name: `kill-${seed}-${n}` };
  });
}

/** The trace without the steps `drop` says. */
const without = (trace: ClusterTrace, drop: (index: number) => boolean): ClusterTrace => ({
  ...trace,
  steps: trace.steps.filter((_, i) => !drop(i)),
});

/**
 * Deletes steps while some divergence remains and the log stays in contract
 * (J9); each try reruns the trace in kill mode (in-flight kills with the
 * timing they had). The step that diverged is kept; before it, runs of steps
 * go first, from the front (`deleteSteps`): all of them, then halves, down
 * to single steps (a divergence at a kill often needs little of what came
 * before).
 */
async function minimize(
  first: KillTraceResult & { divergence: DivergenceFacts },
  options: KillJobOptions,
): Promise<{ best: KillTraceResult & { divergence: DivergenceFacts }; shrinks: number }> {
  let best = first;
  const cut = (r: KillTraceResult & { divergence: DivergenceFacts }): ClusterTrace => without(r.trace, (i) => i > r.divergence.step);
  let trace = cut(best);
  const shrinks = await deleteSteps({
    length: () => trace.steps.length,
    budget: options.maxShrinkRuns ?? 30,
    stopped: () => options.signal?.aborted === true,
    without: async (start, size) => {
      const candidate = without(trace, (i) => i >= start && i < start + size);
      if (clusterContractViolation(candidate) !== undefined) return 'not run';
      let run: KillTraceResult;
      try {
        run = await runKillTrace(unresolved(candidate), runOptions(options));
      } catch (e) {
        // A candidate the system cannot be judged on is no smaller counterexample; the one in hand stands, an interrupt
        // included (the search then stops, `stopped`): the divergence found is kept, as between two runs.
        if (e instanceof SutUnavailable) return 'not kept';
        throw e;
      }
      if (run.divergence === undefined) return 'not kept';
      best = run as KillTraceResult & { divergence: DivergenceFacts };
      trace = cut(best);
      return 'kept';
    },
  });
  return { best: { ...best, trace: cut(best) }, shrinks };
}

/** A trace to rerun: the in-flight kills' resolutions are the run's to find again. */
function unresolved(trace: ClusterTrace): ClusterTrace {
  return {
    ...trace,
    steps: trace.steps.map((s) => {
      if (s.kill?.resolved === undefined) return s;
      const { resolved: _resolved, ...kill } = s.kill;
      return { ...s, kill };
    }),
  };
}

function runOptions(options: KillJobOptions): { command: string; process: ProcessOptions } {
  return { command: options.command, process: { ...options.process, ...(options.signal ? { signal: options.signal } : {}) } };
}

/** Runs the job. Never rejects for a broken system (verdict unknown); rejects on a harness bug. */
export async function runKillJob(options: KillJobOptions): Promise<KillJobReport> {
  const started = performance.now();
  const inShard = options.inShard ?? ((): boolean => true);
  const examples = (options.examples ?? [])
    .filter((_, i) => inShard(i))
    .map((e) => ({ kind: 'example' as const, source: e.path, trace: unresolved(e.trace) }));
  const random = randomKillTraces(options.seed, options.runs, options.maxKillsPerTrace).flatMap((trace, n) =>
    inShard(n) ? [{ kind: 'random' as const, source: `random trace ${n + 1} of ${options.runs} (seed ${options.seed})`, trace }] : [],
  );
  const exhaustiveSteps = (options.exhaustive ?? []).filter((_, i) => inShard(i));
  const afterExamplesSteps = (options.afterExamples ?? []).filter((_, i) => inShard(i));
  /** How the exhaustive part names what it kills: `init`, or `step I`. */
  const killedPart = (at: number | 'init'): string => (at === 'init' ? 'init' : `step ${at + 1}`);
  const outcomes: KillTraceOutcome[] = [];
  let kills = NO_KILLS;
  const restartMs: number[] = [];
  let steps = 0;
  let runs = 0;
  let examplesRun = 0;
  let exhaustiveRuns = 0;
  let exhaustiveDiedAtWrite = 0;
  let failure: KillFailure | undefined;
  let unknown: KillJobReport['unknown'];
  const found = async (first: KillTraceResult & { divergence: DivergenceFacts }, source: string, steps: number): Promise<void> => {
    const { best, shrinks } = await minimize(first, options);
    failure = {
      trace: best.trace,
      divergence: best.divergence,
      killed: best.killed === true,
      source,
      originalSteps: steps,
      shrinks,
      ...(best.stderr ? { stderr: best.stderr } : {}),
    };
  };
  /** Each step of `list` killed at every write point in turn; throws StopJob at the first divergence (after minimizing it). */
  const killEachWritePoint = async (list: readonly ExhaustiveKill[]): Promise<void> => {
    for (const { path, trace, at } of list) {
      if (options.signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(options.signal)}`);
      const began = performance.now();
      const tries =
        at === 'init'
          ? (await killInitAtEveryWritePoint(trace, runOptions(options))).runs.map((r) => ({
              ...r,
              resolved: r.divergence ? undefined : r.answered ? ('answered init' as const) : ('died in init' as const),
            }))
          : (await killAtEveryWritePoint(trace, at, runOptions(options))).runs;
      exhaustiveRuns += tries.length;
      exhaustiveDiedAtWrite += tries.filter((t) => t.result.answeredAtWrite === 0).length;
      const each = (performance.now() - began) / Math.max(1, tries.length);
      for (const t of tries) {
        steps += t.result.trace.steps.length;
        kills = addKills(kills, t.result.kills);
        restartMs.push(...t.result.restartMs);
        outcomes.push({
          kind: 'exhaustive',
          source: `${path}, ${killedPart(at)} killed at write ${t.write}`,
          steps: t.result.trace.steps.length,
          kills: totalKills(t.result.kills),
          verdict: t.divergence ? 'fail' : 'pass',
          ms: each,
        });
      }
      options.progress?.(
        `${path}: ${killedPart(at)} killed at each of its ${tries.length} write points: ${tries.map((t) => t.resolved ?? 'diverges').join(', ')}`,
      );
      const bad = tries.find((t) => t.divergence);
      if (bad) {
        await found(
          bad.result as KillTraceResult & { divergence: DivergenceFacts },
          `${path}, ${killedPart(at)} killed at write ${bad.write}`,
          bad.result.trace.steps.length,
        );
        throw new StopJob();
      }
    }
  };
  /** The traces of `list` in turn; throws StopJob at the first divergence (after minimizing it). */
  const runTraces = async (list: readonly { kind: 'example' | 'random'; source: string; trace: ClusterTrace }[]): Promise<void> => {
    for (const { kind, source, trace } of list) {
      if (options.signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(options.signal)}`);
      const began = performance.now();
      let result: KillTraceResult;
      try {
        result = await runKillTrace(trace, runOptions(options));
      } catch (e) {
        if (e instanceof SutUnavailable)
          outcomes.push({ kind, source, steps: trace.steps.length, kills: 0, verdict: 'unknown', ms: performance.now() - began });
        throw e;
      }
      if (kind === 'example') examplesRun++;
      else runs++;
      steps += trace.steps.length;
      kills = addKills(kills, result.kills);
      restartMs.push(...result.restartMs);
      const k = killsIn(trace);
      const verdict = result.divergence ? 'fail' : 'pass';
      outcomes.push({ kind, source, steps: trace.steps.length, kills: totalKills(result.kills), verdict, ms: performance.now() - began });
      options.progress?.(
        `${source}: ${trace.steps.length} steps, ${k.afterReply + k.inFlight} kills: ${result.divergence ? 'FAIL' : 'pass'}`,
      );
      if (result.divergence) {
        await found(result as KillTraceResult & { divergence: DivergenceFacts }, source, trace.steps.length);
        throw new StopJob();
      }
    }
  };
  try {
    await killEachWritePoint(exhaustiveSteps);
    await runTraces(examples);
    await killEachWritePoint(afterExamplesSteps);
    await runTraces(random);
  } catch (e) {
    // StopJob: a part found a divergence (minimized already), and what comes after it is not run.
    if (e instanceof SutUnavailable) {
      // An abort (an interrupt, the time budget) names its cause, whatever the system was doing when it came.
      const reason =
        options.signal?.aborted && !e.reason.startsWith('interrupted') ? `interrupted: ${abortReason(options.signal)}` : e.reason;
      unknown = { reason, stderrTail: e.stderrTail };
    } else if (!(e instanceof StopJob)) throw e;
  }
  // What the job did not reach, so that a report lists every trace of the run (of its shard).
  const reached = new Set(outcomes.map((o) => o.source));
  for (const { kind, source, trace } of [...examples, ...random])
    if (!reached.has(source)) outcomes.push({ kind, source, steps: trace.steps.length, kills: 0, verdict: 'not run', ms: 0 });
  // The exhaustive part runs first: the steps it did not reach go before the rest.
  const exhaustiveNotRun: KillTraceOutcome[] = exhaustiveSteps
    .filter(({ path, at }) => ![...reached].some((r) => r.startsWith(`${path}, ${killedPart(at)} killed`)))
    .map(({ path, trace, at }) => ({
      kind: 'exhaustive',
      source: `${path}, ${killedPart(at)}`,
      steps: trace.steps.length,
      kills: 0,
      verdict: 'not run',
      ms: 0,
    }));
  const firstOther = outcomes.findIndex((o) => o.kind !== 'exhaustive');
  outcomes.splice(firstOther < 0 ? outcomes.length : firstOther, 0, ...exhaustiveNotRun);
  const total = restartMs.reduce((a, b) => a + b, 0);
  return {
    verdict: failure ? 'fail' : unknown ? 'unknown' : 'pass',
    sut: options.command,
    seed: options.seed,
    examples: examplesRun,
    exhaustiveRuns,
    exhaustiveDiedAtWrite,
    requested: random.length,
    runs,
    steps,
    kills,
    restarts: { count: restartMs.length, meanMs: restartMs.length ? total / restartMs.length : 0, maxMs: Math.max(0, ...restartMs) },
    ...(failure ? { failure } : {}),
    ...(unknown ? { unknown } : {}),
    traces: outcomes,
    ms: performance.now() - started,
  };
}
