// Either kind of trace (operator or cluster), run in lockstep at a level:
// the level a cluster trace needs, its expectations from the model, and one
// lockstep run.
import { levelOfAction } from '../../spec/index.ts';
import type { AnyTrace, ClusterTrace, Level } from '../../spec/index.ts';
import type { SystemUnderTest } from '../adapters/sut.ts';
import { actionsOf, runClusterLockstep, withClusterExpectations } from './clusterLockstep.ts';
import type { Divergence } from './divergence.ts';
import { runOperatorLockstep, withOperatorExpectations } from './operatorLockstep.ts';

/** The weakest cluster level of a trace: `faults` if any action needs it (PROTOCOL.md, "Levels"). */
export function levelOfClusterTrace(trace: ClusterTrace): 'cluster' | 'faults' {
  return actionsOf(trace).some((a) => levelOfAction(a) === 'faults') ? 'faults' : 'cluster';
}

/** The trace a counterexample file holds: the model's expectations filled in. */
export function withExpectations(trace: AnyTrace): AnyTrace {
  return trace.kind === 'cluster'
    ? { kind: 'cluster', trace: withClusterExpectations(trace.trace) }
    : { kind: 'operator', trace: withOperatorExpectations(trace.trace) };
}

/** Runs one trace in lockstep at a level; the divergence or undefined. Rejects with SutUnavailable. */
export async function runTrace(system: SystemUnderTest, trace: AnyTrace, level: Level): Promise<Divergence | undefined> {
  return (await runTraceCounted(system, trace, level)).divergence;
}

/** `runTrace`, and the probes the trace sent: actions the model refuses (cluster), invalid records (operator). */
export async function runTraceCounted(
  system: SystemUnderTest,
  trace: AnyTrace,
  level: Level,
): Promise<{ divergence?: Divergence; probes: number }> {
  const result =
    trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, level) : await runOperatorLockstep(trace.trace, system);
  return result.divergence ? { divergence: result.divergence, probes: result.probes } : { probes: result.probes };
}

/** The trace with no expectations: what each step must produce is then the model's. */
export function withoutExpectations(trace: AnyTrace): AnyTrace {
  return trace.kind === 'cluster'
    ? { kind: 'cluster', trace: { ...trace.trace, steps: trace.trace.steps.map(({ action }) => ({ action })) } }
    : { kind: 'operator', trace: { ...trace.trace, steps: trace.trace.steps.map(({ record }) => ({ record })) } };
}
