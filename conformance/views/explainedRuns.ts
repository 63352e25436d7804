// One trace in lockstep, as the library offers it (index.ts): judged by
// lockstep/ (the facts of its first divergence), then explained here
// (report/divergence.ts: its summary and the rules it breaks).
import type { ClusterTrace, Level, OperatorTrace } from '../../spec/index.ts';
import type { ClusterStepReply, RecordReply, StderrExcerpt, SystemUnderTest } from '../sut/sut.ts';
import { judgeClusterTrace, type ModelDisagreement } from '../lockstep/clusterLockstep.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { judgeOperatorTrace } from '../lockstep/operatorLockstep.ts';
import { explainDivergence, type Divergence } from '../report/divergence.ts';

/** A cluster trace run in lockstep: the first divergence, the replies, and where the trace disagrees with the model. */
export interface ClusterRunResult {
  /** The first divergence; absent if the system conforms on this trace. */
  readonly divergence?: Divergence;
  /** What the system answered, step by step. */
  readonly replies: readonly ClusterStepReply[];
  /** Steps where the trace's own expectations disagree with the model. */
  readonly disagreements: readonly ModelDisagreement[];
  /** Steps the model refuses (§7): refusal probes sent. */
  readonly probes: number;
  /** The system's stderr while this trace ran (a process); read it late, it may trail the replies. */
  readonly stderr?: () => StderrExcerpt;
}

/** An operator trace run in lockstep: the first divergence, the replies, and where the trace disagrees with the model. */
export interface OperatorRunResult {
  /** The first divergence; absent if the system conforms on this trace. */
  readonly divergence?: Divergence;
  /** What the system answered, record by record. */
  readonly replies: readonly RecordReply[];
  /** Steps where the trace's own expectations disagree with the model. */
  readonly disagreements: readonly ModelDisagreement[];
  /** Records the model rejects as invalid (J1): probes sent. */
  readonly probes: number;
  /** The system's stderr while this trace ran (a process); read it late, it may trail the replies. */
  readonly stderr?: () => StderrExcerpt;
}

/** A judgement with its divergence explained. */
function explained<R extends { readonly divergence?: DivergenceFacts }>({
  divergence,
  ...rest
}: R): Omit<R, 'divergence'> & { divergence?: Divergence } {
  return divergence ? { divergence: explainDivergence(divergence), ...rest } : rest;
}

/**
 * Runs a cluster trace against a system at `level` (`cluster` or `faults`).
 * Rejects with SutUnavailable if the system cannot be judged.
 */
export async function runClusterLockstep(trace: ClusterTrace, system: SystemUnderTest, level: Level): Promise<ClusterRunResult> {
  return explained(await judgeClusterTrace(trace, system, level));
}

/** Runs an operator trace against a system at level `operator`. Rejects with SutUnavailable if it cannot be judged. */
export async function runOperatorLockstep(trace: OperatorTrace, system: SystemUnderTest): Promise<OperatorRunResult> {
  return explained(await judgeOperatorTrace(trace, system));
}
