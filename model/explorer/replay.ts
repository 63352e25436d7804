// Replaying a path of actions through a model, checking at every step that
// the action is enabled, and describing what each step changed.
import type { Model } from './types.ts';

export interface ReplayStep<S, A> {
  readonly action: A;
  readonly before: S;
  readonly after: S;
}

export type ReplayResult<S, A> =
  | { readonly ok: true; readonly steps: readonly ReplayStep<S, A>[]; readonly final: S }
  | { readonly ok: false; readonly steps: readonly ReplayStep<S, A>[]; readonly failedStep: number; readonly reason: string };

/** The identity of an action for matching: its JSON form when the model has one, else its description. */
function actionKey<S, A>(model: Model<S, A>, action: A): string {
  return model.actionToJson ? JSON.stringify(model.actionToJson(action)) : model.describeAction(action);
}

/**
 * Replays `actions` from `initialStates()[initialIndex]`. Each action must
 * equal (by JSON form) one enabled in the state it is applied to; the enabled
 * one is the one applied.
 */
export function replayPath<S, A>(model: Model<S, A>, initialIndex: number, actions: readonly A[]): ReplayResult<S, A> {
  const initial = model.initialStates();
  const steps: ReplayStep<S, A>[] = [];
  if (!Number.isInteger(initialIndex) || initialIndex < 0 || initialIndex >= initial.length) {
    return { ok: false, steps, failedStep: -1, reason: `initial state ${initialIndex} does not exist (the model has ${initial.length})` };
  }
  let state = initial[initialIndex] as S;
  for (let i = 0; i < actions.length; i++) {
    const wanted = actionKey(model, actions[i] as A);
    const enabled = model.actions(state).find((a) => actionKey(model, a) === wanted);
    if (enabled === undefined) {
      return { ok: false, steps, failedStep: i, reason: `action ${model.describeAction(actions[i] as A)} is not enabled here` };
    }
    const after = model.next(state, enabled);
    steps.push({ action: enabled, before: state, after });
    state = after;
  }
  return { ok: true, steps, final: state };
}

/**
 * What changed between two JSON values, one line per change. Objects are
 * compared by key (`a.b.c: before → after`); arrays as multisets of their
 * elements (`rows: + [...]`, `rows: - [...]`), since the models' arrays are
 * sets in some order.
 */
export function jsonDiff(before: unknown, after: unknown, at = ''): string[] {
  const label = at === '' ? '(state)' : at;
  if (Array.isArray(before) && Array.isArray(after)) {
    const count = new Map<string, number>();
    for (const x of before) count.set(JSON.stringify(x), (count.get(JSON.stringify(x)) ?? 0) + 1);
    const added: string[] = [];
    for (const x of after) {
      const k = JSON.stringify(x);
      const n = count.get(k) ?? 0;
      if (n > 0) count.set(k, n - 1);
      else added.push(k);
    }
    const removed: string[] = [];
    for (const [k, n] of count) for (let i = 0; i < n; i++) removed.push(k);
    return [...removed.map((k) => `${label}: - ${k}`), ...added.map((k) => `${label}: + ${k}`)];
  }
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => jsonDiff(before[k], after[k], at === '' ? k : `${at}.${k}`));
  }
  const a = JSON.stringify(before);
  const b = JSON.stringify(after);
  return a === b ? [] : [`${label}: ${a ?? '(none)'} → ${b ?? '(none)'}`];
}
