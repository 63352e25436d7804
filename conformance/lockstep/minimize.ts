// Minimizing a divergent trace: cut it at the divergence, then delete single
// steps while some divergence remains and the log stays in contract (J9).
import type { AnyTrace, Level } from '../../spec/index.ts';
import { firstContractViolation } from '../../model/index.ts';
import type { SystemUnderTest } from '../adapters/sut.ts';
import { runTrace } from './anyTrace.ts';
import type { Divergence } from './divergence.ts';
import { clusterContractViolation } from './traceFiles.ts';

/** The trace without step `i` (or with only its first `n` steps). */
function withSteps(trace: AnyTrace, keep: (index: number) => boolean): AnyTrace {
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
 * After fast-check's shrinking (which works on the choices a trace was made
 * from): drop the steps after the divergence, then delete single steps as
 * long as some divergence remains and the log stays in contract (J9), to a
 * fixpoint. Every step list is a valid trace: an action a deletion disables
 * is simply expected to be refused (§7).
 */
export async function minimizeTrace(
  system: SystemUnderTest,
  level: Level,
  trace: AnyTrace,
  divergence: Divergence,
  maxAttempts = 300,
): Promise<{ trace: AnyTrace; divergence: Divergence }> {
  let best = withSteps(trace, (i) => i <= divergence.step);
  let bestDivergence = divergence;
  let attempts = 0;
  for (let changed = true; changed && attempts < maxAttempts; ) {
    changed = false;
    for (let i = best.trace.steps.length - 1; i >= 0 && attempts < maxAttempts; i--) {
      const candidate = withSteps(best, (j) => j !== i);
      if (!inContract(candidate)) continue;
      attempts++;
      const d = await runTrace(system, candidate, level);
      if (!d) continue;
      best = withSteps(candidate, (j) => j <= d.step);
      bestDivergence = d;
      changed = true;
      i = Math.min(i, best.trace.steps.length);
    }
  }
  return { trace: best, divergence: bestDivergence };
}
