// The mutants job: the conformance job against every mutant of the catalogue
// (mutants/): the example traces, the bounded-exhaustive scenarios, then random traces,
// stopping each mutant at its first divergence (a kill), which is then cut
// and minimized (or shrunk). The unmodified implementation runs first, as
// the control: a kill means something only if the implementation as it is
// passes the very same harness.
import type { Level } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { implSut } from '../adapters/implSut.ts';
import { runConform } from './conform.ts';
import type { ConformReport, TraceSource } from './conformTypes.ts';
import type { Failure } from '../report/failure.ts';
import type { AnyCover } from '../generate/exhaustive.ts';
import type { RuleRefs } from '../report/rules.ts';
import { MUTANTS, type Mutant } from '../mutants/catalogue.ts';
import { MutantPatchError, mutantSut } from '../adapters/mutantSut.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** One mutant's result: killed, survived or unknown, and by what. */
export interface MutantResult {
  /** The mutant. */
  readonly mutant: Mutant;
  /** killed: a divergence was found; survived: the harness found none; unknown: the mutant could not be built or judged. */
  readonly verdict: 'killed' | 'survived' | 'unknown';
  /** The divergence that killed it, its trace shrunk or minimized. */
  readonly failure?: Failure;
  /** What found it: an example, an exhaustive scenario, or random traces. */
  readonly by?: Failure['origin'];
  /** The level the divergence was found at. */
  readonly level?: Level;
  /** Steps of the shrunk counterexample. */
  readonly steps?: number;
  /** Milliseconds until the divergence was first seen; and the whole run, shrinking included. */
  readonly foundAfterMs?: number;
  /** Wall time of the mutant's whole run, in milliseconds. */
  readonly totalMs: number;
  /** The rules and properties the divergence points at (rules.ts). */
  readonly broke?: RuleRefs;
  /** Why the verdict is unknown. */
  readonly note?: string;
  /** The conformance report of its run. */
  readonly report?: ConformReport;
}

/** What the mutants job reports: the control run of the unmodified implementation, then each mutant's result. */
export interface MutantsReport {
  /** pass: every mutant killed; fail: one survived; unknown: one could not be judged, or the unmodified implementation does not pass. */
  readonly verdict: 'pass' | 'fail' | 'unknown';
  /** The unmodified implementation on the same harness. */
  readonly baseline: ConformReport;
  /** Wall time of the control run, in milliseconds. */
  readonly baselineMs: number;
  /** Each mutant's result, in the order run (none when the control run does not pass). */
  readonly results: readonly MutantResult[];
}

/** Options of the mutants job: the seed, the traces and scenarios to run, the mutants. */
export interface MutantsOptions {
  /** Seed of the random traces. */
  readonly seed: number;
  /** Random traces per level. */
  readonly runs: number;
  /** Example and regression traces to run first. */
  readonly examples: readonly TraceSource[];
  /** Bounded-exhaustive covers to run after them. */
  readonly exhaustive: readonly AnyCover[];
  /** Default: the whole catalogue. */
  readonly mutants?: readonly Mutant[];
  /** Progress lines (for stderr). */
  readonly progress?: (line: string) => void;
  /** Aborting it stops the run: the mutants not judged yet are left out, and the verdict is unknown. */
  readonly signal?: AbortSignalLike | undefined;
}

/** One mutant through the harness, stopping at its first divergence. */
export async function runMutant(mutant: Mutant, opts: Omit<MutantsOptions, 'mutants'>): Promise<MutantResult> {
  const t0 = performance.now();
  let sut;
  try {
    sut = await mutantSut(mutant);
  } catch (e) {
    if (!(e instanceof MutantPatchError)) throw e;
    return { mutant, verdict: 'unknown', note: e.message, totalMs: performance.now() - t0 };
  }
  const report = await runConform({
    system: inProcessSystem(sut, `mutant:${mutant.name}`, opts.signal),
    seed: opts.seed,
    runs: opts.runs,
    examples: opts.examples,
    exhaustive: opts.exhaustive,
    stopAtFirstFailure: true,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const totalMs = performance.now() - t0;
  const failure = report.failures[0];
  if (failure) {
    return {
      mutant,
      verdict: 'killed',
      failure,
      by: failure.origin,
      level: failure.level,
      steps: failure.trace.trace.steps.length,
      ...(failure.foundAfterMs !== undefined ? { foundAfterMs: failure.foundAfterMs } : {}),
      totalMs,
      broke: failure.divergence.refs,
      report,
    };
  }
  if (report.verdict === 'unknown')
    return { mutant, verdict: 'unknown', note: report.unknown?.reason ?? 'a budget ran out', totalMs, report };
  return { mutant, verdict: 'survived', totalMs, report };
}

/** The control run, then every mutant. */
export async function runMutants(opts: MutantsOptions): Promise<MutantsReport> {
  const t0 = performance.now();
  const baseline = await runConform({
    system: inProcessSystem(implSut, 'impl', opts.signal),
    seed: opts.seed,
    runs: opts.runs,
    examples: opts.examples,
    exhaustive: opts.exhaustive,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const baselineMs = performance.now() - t0;
  opts.progress?.(
    `${baseline.verdict === 'pass' ? 'pass' : baseline.verdict.toUpperCase()} the unmodified implementation (control) in ${(baselineMs / 1000).toFixed(1)} s`,
  );
  const results: MutantResult[] = [];
  if (baseline.verdict === 'pass') {
    for (const mutant of opts.mutants ?? MUTANTS) {
      if (opts.signal?.aborted) break;
      const r = await runMutant(mutant, opts);
      results.push(r);
      opts.progress?.(
        `${r.verdict === 'killed' ? 'killed' : r.verdict.toUpperCase()} ${mutant.name}` +
          (r.verdict === 'killed'
            ? ` killed by ${r.by} after ${((r.foundAfterMs ?? r.totalMs) / 1000).toFixed(2)} s, ${r.steps} steps`
            : r.note
              ? `: ${r.note}`
              : ''),
      );
    }
  }
  // A survivor is a verdict whatever else happened; a mutant that could not be judged (or a failing control, or an interrupt) leaves it open.
  const verdict =
    baseline.verdict !== 'pass'
      ? 'unknown'
      : results.some((r) => r.verdict === 'survived')
        ? 'fail'
        : results.some((r) => r.verdict === 'unknown') || opts.signal?.aborted
          ? 'unknown'
          : 'pass';
  return { verdict, baseline, baselineMs, results };
}

/** What each part of the harness does to a mutant on its own: the examples, the exhaustive scenarios, the random traces. */
export interface MutantByPart {
  readonly mutant: Mutant;
  readonly examples: MutantResult;
  readonly exhaustive: MutantResult;
  readonly random: MutantResult;
}

/** Runs each part of the harness alone against a mutant (each stopping at its first divergence): which parts kill it. */
export async function runMutantByPart(mutant: Mutant, opts: Omit<MutantsOptions, 'mutants'>): Promise<MutantByPart> {
  const examples = await runMutant(mutant, { ...opts, runs: 0, exhaustive: [] });
  const exhaustive = await runMutant(mutant, { ...opts, runs: 0, examples: [] });
  const random = await runMutant(mutant, { ...opts, examples: [], exhaustive: [] });
  return { mutant, examples, exhaustive, random };
}
