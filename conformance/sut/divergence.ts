// The first place a system under test departs from the model, as lockstep
// finds it: the verdict `fail` of a lockstep run, at either level, as facts
// (the step, the action, the field that differs with what was expected and
// what came, and both sides of the whole step). Which rules a divergence
// breaks, and the line that tells it, are report/'s (report/divergence.ts).
import { compareByMatchId } from '../../spec/index.ts';
import type { Change, ClusterEvent, ClusterObservation, ExternalAction, LogRecord, Outcome, RetainedCounts } from '../../spec/index.ts';
import { SutUnavailable, type ClusterStepReply, type RecordReply } from './sut.ts';
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
  | {
      readonly level: 'operator';
      readonly record: LogRecord;
      readonly expected: ExpectedOperatorStep;
      /** Absent when the system died before answering (`died`). */
      readonly actual?: RecordReply;
      /** How the system died handling this step, both times it ran up to it (lockstep/deaths.ts). */
      readonly died?: string;
      /** The session's init was refused, before this step (the first): why, as the harness saw it (its config is valid, J0). */
      readonly initRefused?: string;
    }
  | {
      readonly level: 'cluster';
      readonly expected: ExpectedClusterStep;
      /** Absent when the system died before answering (`died`); without its observation when it died before that. */
      readonly actual?: ClusterStepReply;
      /** How the system died handling this step, both times it ran up to it (lockstep/deaths.ts). */
      readonly died?: string;
      /** The log records the step's `processed` events (expected or actual) apply, by log index. */
      readonly records: Readonly<Record<number, LogRecord>>;
      /**
       * For an observation whose store differs: per key that differs there,
       * the step (at or before this one) whose action last wrote that key's
       * checkpoint in the model, and that action; absent for a key the model
       * never wrote (the system wrote what nobody should have).
       */
      readonly storeWriters?: Readonly<Record<string, StoreWrite>>;
      /** The system answered this step as the model does when this install restores an empty copy, ignoring its checkpoint's state (freshInstall.ts). */
      readonly freshInstall?: FreshInstall;
      /**
       * Kill mode: the system could not re-attach after the kill at this step
       * (its error reply, or how it died, as the harness saw it): it did not
       * resume what its directory holds (PROTOCOL.md, "Kill mode"; C2, C10).
       */
      readonly reattachFailed?: string;
      /** The session's init was refused, before this step (the first): why, as the harness saw it (its config is valid, J0, C1). */
      readonly initRefused?: string;
    };

/** An install whose restore without (part of) the checkpoint's join state explains a divergence found later (C6). */
export interface FreshInstall {
  readonly step: number;
  readonly action: ExternalAction;
  readonly worker: string;
  readonly key: string;
  /** What the restored copy lacked: the whole join state (an empty copy), or only its watermarks (C2: they are part of it). */
  readonly lost: 'state' | 'watermarks';
}

/** A step whose action wrote a key's checkpoint into the store (C4: a periodic checkpoint; C5: persist). */
export interface StoreWrite {
  readonly step: number;
  readonly action: ExternalAction;
}

export interface DivergenceFacts {
  /**
   * Index of the step in the trace (from 0); reports count from 1 and call it step `step + 1`.
   * In kill mode, -1 is the trace's `init` killed inside its own writes (before any step).
   */
  readonly step: number;
  /** The request of that step; at level `operator` a `record` action; at step -1 the crash of the coordinator (the kill: a crash of every node, C10). */
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

/**
 * How a death reason (`died`) says the system died before its session's
 * init was answered: the trace's config, valid (J0, C1), is what it died on.
 */
export const DIED_BEFORE_INIT = "before the session's init was answered";

/** Whether a death reason says the system died before its session's init was answered (DIED_BEFORE_INIT). */
export const diedBeforeInit = (reason: string): boolean => reason.includes(DIED_BEFORE_INIT);

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

/**
 * A session's replies, or those it got before the system became unavailable
 * with why (SutUnavailable.answered). The caller judges them in order and
 * throws `broken` only if they conform: an error reply to a valid request is
 * a divergence (PROTOCOL.md), which a refused inspect or a death after it
 * must never hide as `unknown`.
 */
export async function clusterRepliesSoFar(
  answered: Promise<readonly ClusterStepReply[]>,
): Promise<{ replies: readonly ClusterStepReply[]; broken?: SutUnavailable }> {
  try {
    return { replies: await answered };
  } catch (e) {
    if (!(e instanceof SutUnavailable) || e.answered?.level !== 'cluster') throw e;
    return { replies: e.answered.steps, broken: e };
  }
}

/** clusterRepliesSoFar at level operator. */
export async function recordRepliesSoFar(
  answered: Promise<readonly RecordReply[]>,
): Promise<{ replies: readonly RecordReply[]; broken?: SutUnavailable }> {
  try {
    return { replies: await answered };
  } catch (e) {
    if (!(e instanceof SutUnavailable) || e.answered?.level !== 'operator') throw e;
    return { replies: e.answered.records, broken: e };
  }
}
