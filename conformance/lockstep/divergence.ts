// The first place a system under test departs from the model, as lockstep
// finds it: the verdict `fail` of a lockstep run, at either level, as facts
// (the step, the action, the field that differs with what was expected and
// what came, and both sides of the whole step). Which rules a divergence
// breaks, and the line that tells it, are report/'s (report/divergence.ts).
import { compareByMatchId } from '../../spec/index.ts';
import type { Change, ClusterEvent, ClusterObservation, ExternalAction, LogRecord, Outcome, RetainedCounts } from '../../spec/index.ts';
import type { ClusterStepReply, RecordReply } from '../adapters/sut.ts';
import type { PathDiff } from './jsonDiff.ts';

/** What one record must produce (§3). */
export interface ExpectedOperatorStep {
  readonly outcome: Outcome;
  readonly changes: readonly Change[];
  readonly retained: RetainedCounts;
}

/** What one cluster step must produce: the events, or the reason it is not enabled; then the observation. */
export type ExpectedClusterStep =
  | { readonly events: readonly ClusterEvent[]; readonly observation: ClusterObservation }
  | { readonly error: string; readonly observation: ClusterObservation };

/** Both sides of the step that diverged, whole: what the model expected and what the system answered. */
export type DivergentStep =
  | { readonly level: 'operator'; readonly record: LogRecord; readonly expected: ExpectedOperatorStep; readonly actual: RecordReply }
  | {
      readonly level: 'cluster';
      readonly expected: ExpectedClusterStep;
      readonly actual: ClusterStepReply;
      /** The log records the step's `processed` events (expected or actual) apply, by log index. */
      readonly records: Readonly<Record<number, LogRecord>>;
    };

export interface DivergenceFacts {
  /** Index of the step in the trace (from 0); reports count from 1 and call it step `step + 1`. */
  readonly step: number;
  /** The request of that step; at level `operator` a `record` action. */
  readonly action: ExternalAction;
  /**
   * What differs: `reply` (refused versus carried out, or the wrong error
   * code), `events` (C12), `observation` (§7), or at level `operator`
   * `outcome`, `changes`, `retained` (§3).
   */
  readonly field: 'reply' | 'events' | 'observation' | 'outcome' | 'changes' | 'retained';
  readonly expected: unknown;
  readonly actual: unknown;
  /** Only the paths that differ (for `events` and `observation`; one entry otherwise). */
  readonly diff: readonly PathDiff[];
  readonly at: DivergentStep;
}

/** J7: outcomes compare by code, and by reason only when rejected. */
export function canonicalOutcome(o: Outcome): Outcome {
  return o.code === 'rejected' && o.reason !== undefined ? { code: o.code, reason: o.reason } : { code: o.code };
}

/** J7: the changes of one record are a set; canonical order is by match id. */
export function canonicalChanges(cs: readonly Change[]): Change[] {
  return cs.map(({ op, match, key, left, right }) => ({ op, match, key, left, right })).sort(compareByMatchId);
}

/** Events with each record's changes in canonical order (C12 lists events in order; changes are sets). */
export function canonicalEvents(events: readonly ClusterEvent[]): ClusterEvent[] {
  return events.map((e) =>
    e.type === 'processed' ? { ...e, outcome: canonicalOutcome(e.outcome), changes: canonicalChanges(e.changes) } : e,
  );
}
