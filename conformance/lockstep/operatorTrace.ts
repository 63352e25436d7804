// Runs an operator trace (SPEC §4) against any single-partition operator and
// reports the first step where it departs from the trace's expectations.
import type { Change, JoinConfig, LogRecord, OperatorTrace, Outcome, RetainedCounts } from '../../spec/index.ts';
import { canonicalChanges, canonicalOutcome } from './divergence.ts';

/** What the harness needs from a single-partition operator. */
export interface OperatorUnderTest {
  apply(record: LogRecord): { outcome: Outcome; changes: readonly Change[] };
  retained(): RetainedCounts;
}

export type OperatorFactory = (config: JoinConfig) => OperatorUnderTest;

/** What an operator did at one step. */
export interface OperatorObservation {
  outcome: Outcome;
  changes: Change[];
  retained: RetainedCounts;
}

export interface OperatorDivergence {
  step: number;
  record: LogRecord;
  field: 'outcome' | 'changes' | 'retained';
  expected: unknown;
  actual: unknown;
}

export interface OperatorTraceResult {
  name: string;
  observations: OperatorObservation[];
  /** The first departure from the expectations, if any. */
  divergence?: OperatorDivergence;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Feeds every record; compares outcome, the change set and (if expected) retained counts. */
export function runOperatorTrace(trace: OperatorTrace, makeOperator: OperatorFactory): OperatorTraceResult {
  const operator = makeOperator(trace.config);
  const observations: OperatorObservation[] = [];
  let divergence: OperatorDivergence | undefined;
  trace.steps.forEach((step, index) => {
    const { outcome, changes } = operator.apply(step.record);
    const seen: OperatorObservation = {
      outcome: canonicalOutcome(outcome),
      changes: canonicalChanges(changes),
      retained: operator.retained(),
    };
    observations.push(seen);
    const want = step.expect;
    if (divergence || !want) return;
    const at = (field: OperatorDivergence['field'], expected: unknown, actual: unknown): void => {
      divergence = { step: index, record: step.record, field, expected, actual };
    };
    if (!sameJson(canonicalOutcome(want.outcome), seen.outcome)) at('outcome', want.outcome, seen.outcome);
    else if (!sameJson(canonicalChanges(want.changes), seen.changes)) at('changes', canonicalChanges(want.changes), seen.changes);
    else if (want.retained && !sameJson(want.retained, seen.retained)) at('retained', want.retained, seen.retained);
  });
  return divergence ? { name: trace.name, observations, divergence } : { name: trace.name, observations };
}

/** A trace whose expectations are the given observations (to turn a log into a golden trace). */
export function withExpectations(trace: OperatorTrace, observations: readonly OperatorObservation[]): OperatorTrace {
  return {
    ...trace,
    steps: trace.steps.map((s, i) => {
      const o = observations[i];
      return o ? { ...s, expect: { outcome: o.outcome, changes: o.changes, retained: o.retained } } : s;
    }),
  };
}
