// A system that dies while it handles a step of a trace, and dies again at
// that step when the trace is run once more up to it, in a process started
// afresh, broke on that step: the verdict is fail there, with the trace as
// its counterexample, not unknown (PROTOCOL.md, "What the harness checks").
// A death that does not come back at the same step came from elsewhere (a
// signal from outside, memory the earlier traces of the process used up, a
// count of lines read): that stays unknown, and its reason says it did not
// come back. A death before a session's init was answered counts as one at
// the trace's first step (the init and that step go out together; the
// process adapter says so in its reason, and the report cites J0).
import { diedBeforeInit } from '../sut/divergence.ts';
import type { SystemUnderTest } from '../sut/sut.ts';
import { isDeath, SutUnavailable } from '../sut/sut.ts';

/** Where a death cut a trace: the first step it left without its reply, or (cluster) without the observation after it. */
export interface DeathPlace {
  readonly step: number;
  readonly missing: 'reply' | 'observation';
}

/**
 * The place a death left a cluster trace of `steps` steps, from the replies
 * it got first; undefined if every step was answered (the death came after
 * the trace: nothing of it is to blame).
 */
export function clusterDeathPlace(
  replies: readonly { readonly observation?: unknown }[],
  steps: number,
  observed?: (index: number) => boolean,
): DeathPlace | undefined {
  const last = replies.length - 1;
  if (last >= 0 && replies[last]?.observation === undefined && (!observed || observed(last))) return { step: last, missing: 'observation' };
  return replies.length < steps ? { step: replies.length, missing: 'reply' } : undefined;
}

/** The place at level operator: the first record left unanswered. */
export function operatorDeathPlace(replies: readonly unknown[], steps: number): DeathPlace | undefined {
  return replies.length < steps ? { step: replies.length, missing: 'reply' } : undefined;
}

/** What a run of the trace up to a death's step came to: the death and its place, or none. */
export type Rerun = { readonly died: SutUnavailable; readonly place: DeathPlace | undefined } | { readonly died?: undefined };

/**
 * The death `broken` at `place`, if it comes back: the system is started
 * afresh (`revive`) and `rerun` runs the trace up to and including that
 * step. Resolves with the place and the second death's reason if it came
 * there again. Otherwise rejects with the verdict, unknown: `broken` with
 * what the rerun did instead, or the rerun's interrupt; `broken` unchanged
 * for a system that cannot be started again (in-process, not dead, or the
 * run interrupted) or a death after every step was answered. (The rerun has
 * no handshake before it: a death that needs one does not come back, and
 * stays unknown.)
 */
export async function deathThatComesBack(
  system: SystemUnderTest,
  broken: SutUnavailable,
  place: DeathPlace | undefined,
  rerun: (place: DeathPlace) => Promise<Rerun>,
): Promise<{ readonly place: DeathPlace; readonly died: string }> {
  if (place === undefined || !isDeath(broken) || !system.revive || !(await system.revive())) {
    // Dead with no step to blame (a trace with no step, or every step answered): unknown, and the system is started
    // afresh for whatever runs next all the same (a minimizer's next candidate, fast-check's next shrink).
    if (place === undefined && isDeath(broken)) await system.revive?.();
    throw broken;
  }
  let again: Rerun;
  try {
    again = await rerun(place);
  } catch (e) {
    // Dead before the trace's first step this time (at its init): not the same place.
    if (!(e instanceof SutUnavailable)) throw e;
    again = { died: e, place: undefined };
  }
  // The system is started afresh for whatever runs next, as after any death.
  await system.revive();
  // The same place: the same step and part of it, and, at the first step, both before the session's init was answered
  // or both after (a process that dies at its Nth line dies at the init once and at the first record in a fresh one).
  if (
    again.died !== undefined &&
    isDeath(again.died) &&
    again.place?.step === place.step &&
    again.place.missing === place.missing &&
    diedBeforeInit(again.died.reason) === diedBeforeInit(broken.reason)
  )
    return { place, died: again.died.reason };
  // An interrupted rerun is the interrupt's verdict; any other outcome says what the rerun did instead.
  if (again.died?.reason.startsWith('interrupted: ')) throw again.died;
  throw deathNotBack(broken, place.step, again.died, 'it answered every step');
}

/**
 * The unknown verdict of a death `broken` at `step` that a rerun in a fresh
 * process did not bring back: `broken` with what the rerun did instead (its
 * own break, or `answered` when it answered).
 */
export function deathNotBack(broken: SutUnavailable, step: number, again: SutUnavailable | undefined, answered: string): SutUnavailable {
  const then =
    again === undefined ? answered : isDeath(again) ? `it ${again.reason.replace(/^dead: /, 'died elsewhere: ')}` : `it ${again.reason}`;
  return new SutUnavailable(
    `${broken.reason}; run again up to step ${step + 1} in a fresh process, ${then}: the death did not come back at that step`,
    broken.stderrTail,
  );
}
