// Minimizing a divergent trace: cut it at the divergence, then delete runs of
// steps and single steps while some divergence remains and the log stays in
// contract (J9).
import type { AnyTrace, Level } from '../../spec/index.ts';
import { firstContractViolation } from '../../model/index.ts';
import { SutUnavailable, type StderrExcerpt, type SystemUnderTest } from '../sut/sut.ts';
import { runTraceObserved, type TraceOutcome } from './anyTrace.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { clusterContractViolation } from './traceFiles.ts';
import { deleteSteps } from './deleteSteps.ts';

/** The trace with only the steps `keep` says (without step `i`, or only its first `n`). */
export function withSteps(trace: AnyTrace, keep: (index: number) => boolean): AnyTrace {
  return trace.kind === 'cluster'
    ? { kind: 'cluster', trace: { ...trace.trace, steps: trace.trace.steps.filter((_, i) => keep(i)) } }
    : { kind: 'operator', trace: { ...trace.trace, steps: trace.trace.steps.filter((_, i) => keep(i)) } };
}

function inContract(trace: AnyTrace): boolean {
  if (trace.kind === 'cluster') return clusterContractViolation(trace.trace) === undefined;
  return (
    firstContractViolation(
      trace.trace.config,
      trace.trace.steps.map((s) => s.record),
    ) === undefined
  );
}

/**
 * One candidate run; undefined when the system could not judge it (it broke
 * or refused an inspect on this candidate): not this candidate, and the
 * search goes on with the next (a system that broke for good makes every
 * later candidate unknown too, quickly).
 */
async function runCandidate(system: SystemUnderTest, trace: AnyTrace, level: Level): Promise<TraceOutcome | undefined> {
  try {
    return await runTraceObserved(system, trace, level);
  } catch (e) {
    if (e instanceof SutUnavailable) return undefined;
    throw e;
  }
}

/** A minimized counterexample: the trace, its divergence, and the system's stderr while that trace ran. */
export interface Minimized {
  readonly trace: AnyTrace;
  readonly divergence: DivergenceFacts;
  readonly stderr?: () => StderrExcerpt;
}

/**
 * After fast-check's shrinking (which works on the choices a trace was made
 * from): drop the steps after the divergence, then delete steps as long as
 * some divergence remains and the log stays in contract (J9), in at most
 * `maxAttempts` runs of the system: single steps from the end to a fixpoint;
 * first, for a trace longer than half the budget, runs of steps
 * (`deleteSteps`), which one run per step could not pass over. Every step
 * list is a valid trace: an action a deletion disables is simply expected to
 * be refused (§7). A candidate the system cannot be judged on (`unknown`) is
 * not kept, and the search continues.
 *
 * The cut trace is run once more first, alone, so that the stderr kept with
 * the result is that of a run of the very trace returned (a divergence found
 * among pipelined traces has its stderr mixed with its neighbours').
 */
export async function minimizeTrace(
  system: SystemUnderTest,
  level: Level,
  trace: AnyTrace,
  divergence: DivergenceFacts,
  maxAttempts = 300,
  stderr?: () => StderrExcerpt,
): Promise<Minimized> {
  let best = withSteps(trace, (i) => i <= divergence.step);
  let bestDivergence = divergence;
  let bestStderr = stderr;
  const again = await runCandidate(system, best, level);
  if (again?.divergence) {
    best = withSteps(best, (j) => j <= (again.divergence as DivergenceFacts).step);
    bestDivergence = again.divergence;
    bestStderr = again.stderr;
  }
  const without = async (first: number, count: number): Promise<'kept' | 'not kept' | 'not run'> => {
    const candidate = withSteps(best, (j) => j < first || j >= first + count);
    if (!inContract(candidate)) return 'not run';
    const run = await runCandidate(system, candidate, level);
    const d = run?.divergence;
    if (!d) return 'not kept';
    best = withSteps(candidate, (j) => j <= d.step);
    bestDivergence = d;
    bestStderr = run?.stderr;
    return 'kept';
  };
  let attempts = 1;
  // A trace longer than half the budget cannot even be passed over step by step: runs of steps go first (deleteSteps).
  if (best.trace.steps.length - 1 > maxAttempts / 2)
    attempts += await deleteSteps({ length: () => best.trace.steps.length, budget: maxAttempts - attempts, without });
  // Then single steps, from the end, to a fixpoint. The order decides which of the minimal traces is found: from the end,
  // what a divergence needs last goes first, which keeps the steps that explain it (the cited rules the mutant catalogue pins).
  for (let changed = true; changed && attempts < maxAttempts; ) {
    changed = false;
    for (let i = best.trace.steps.length - 1; i >= 0 && attempts < maxAttempts; i--) {
      const tried = await without(i, 1);
      if (tried === 'not run') continue;
      attempts++;
      if (tried !== 'kept') continue;
      changed = true;
      i = Math.min(i, best.trace.steps.length);
    }
  }
  return { trace: best, divergence: bestDivergence, ...(bestStderr ? { stderr: bestStderr } : {}) };
}
