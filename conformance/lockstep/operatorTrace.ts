// Runs an operator trace (SPEC §4) against any single-partition operator and
// reports the first step where it departs from the trace's expectations.
import type { Change, JoinConfig, LogRecord, OperatorStep, OperatorTrace, Outcome, RetainedCounts } from '../../spec/index.ts';
import type { OperatorFactory, OperatorUnderTest } from '../sut/sut.ts';
import { canonicalChanges, canonicalOutcome } from '../sut/divergence.ts';

/** What an operator did at one step. */
export interface OperatorObservation {
  /** The record's outcome (J7). */
  outcome: Outcome;
  /** The record's changes, in canonical order (J7). */
  changes: Change[];
  /** Retained counts after the record (J8). */
  retained: RetainedCounts;
}

/** The first step where an operator departs from the trace's expectations. */
export interface OperatorDivergence {
  /** Index of the step. */
  step: number;
  /** The step's record. */
  record: LogRecord;
  /** Which part of the expectation it departs from. */
  field: 'outcome' | 'changes' | 'retained';
  /** What the trace expects. */
  expected: unknown;
  /** What the operator did. */
  actual: unknown;
}

/** An operator trace run against an operator: what it did at each step, and where it first departed. */
export interface OperatorTraceResult {
  /** The trace's name. */
  name: string;
  /** What the operator did at each step. */
  observations: OperatorObservation[];
  /** The first departure from the expectations, if any. */
  divergence?: OperatorDivergence;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Checks a trace step by step, holding nothing per step: the operator, the
 * first divergence. `runOperatorTrace` (a trace in memory) and the trace
 * file runner (a trace read step by step) share it.
 */
export class OperatorTraceChecker {
  private readonly operator: OperatorUnderTest;
  private first: OperatorDivergence | undefined;

  constructor(config: JoinConfig, makeOperator: OperatorFactory) {
    this.operator = makeOperator(config);
  }

  /** Applies one step; what the operator did. Compares it with the step's expectation until the first divergence. */
  step(index: number, step: OperatorStep): OperatorObservation {
    const { outcome, changes } = this.operator.apply(step.record);
    const seen: OperatorObservation = {
      outcome: canonicalOutcome(outcome),
      changes: canonicalChanges(changes),
      retained: this.operator.retained(),
    };
    const want = step.expect;
    if (this.first || !want) return seen;
    const at = (field: OperatorDivergence['field'], expected: unknown, actual: unknown): void => {
      this.first = { step: index, record: step.record, field, expected, actual };
    };
    if (!sameJson(canonicalOutcome(want.outcome), seen.outcome)) at('outcome', want.outcome, seen.outcome);
    else if (!sameJson(canonicalChanges(want.changes), seen.changes)) at('changes', canonicalChanges(want.changes), seen.changes);
    else if (want.retained && !sameJson(want.retained, seen.retained)) at('retained', want.retained, seen.retained);
    return seen;
  }

  /** The first departure from the expectations so far. */
  divergence(): OperatorDivergence | undefined {
    return this.first;
  }
}

/** Feeds every record; compares outcome, the change set and (if expected) retained counts. */
export function runOperatorTrace(trace: OperatorTrace, makeOperator: OperatorFactory): OperatorTraceResult {
  const checker = new OperatorTraceChecker(trace.config, makeOperator);
  const observations = trace.steps.map((step, index) => checker.step(index, step));
  const divergence = checker.divergence();
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
