// The first place a system under test departs from the model: the verdict
// `fail` of a lockstep run, at either level.
import { compareByMatchId } from '../../spec/index.ts';
import type { Change, ClusterEvent, ExternalAction, Outcome } from '../../spec/index.ts';
import type { PathDiff } from './jsonDiff.ts';
import type { RuleRefs } from '../report/rules.ts';

export interface Divergence {
  /** Index of the step (0-based) in the trace. */
  readonly step: number;
  /** The request of that step; at level `operator` a `record` action. */
  readonly action: ExternalAction;
  /**
   * What differs: `reply` (refused versus carried out, or the wrong error
   * code), `events` (C12), `observation` (§7), or at level `operator`
   * `outcome`, `changes`, `retained` (§3).
   */
  readonly field: 'reply' | 'events' | 'observation' | 'outcome' | 'changes' | 'retained';
  /** One line for people. */
  readonly summary: string;
  readonly expected: unknown;
  readonly actual: unknown;
  /** Only the paths that differ (for `events` and `observation`; one entry otherwise). */
  readonly diff: readonly PathDiff[];
  readonly refs: RuleRefs;
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
