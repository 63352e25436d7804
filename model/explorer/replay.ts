// Replaying a path of actions through a model, checking at every step that
// the action is enabled, and describing what each step changed.
import { check } from './checker.ts';
import type { Model, Verdict } from './types.ts';

/** One replayed step: the action and the states before and after it. */
export interface ReplayStep<S, A> {
  /** The action taken. */
  readonly action: A;
  /** The state before the action. */
  readonly before: S;
  /** The state after the action. */
  readonly after: S;
}

/** A replay's result: every step and the final state, or the steps up to the first action that is not enabled and why. */
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

/** The outcome of evaluating a named property at the end of a replayed path. */
export type PropertyEvaluation =
  | { readonly found: false }
  | { readonly found: true; readonly verdict: Verdict; readonly explanation?: string };

/**
 * Evaluates property `name` of `kind` in `state`: an invariant by its check;
 * Progress by exploring every fault-free path from `state` (with `options`'
 * budget) for a quiescent state: `unknown` when that search runs out of budget.
 */
export function evaluateProperty<S, A>(
  model: Model<S, A>,
  kind: 'invariant' | 'progress',
  name: string,
  state: S,
  budget: { readonly maxStates?: number; readonly maxSeconds?: number } = {},
): PropertyEvaluation {
  if (kind === 'invariant') {
    const inv = model.invariants.find((i) => i.name === name);
    if (!inv) return { found: false };
    const why = inv.check(state);
    return why === undefined ? { found: true, verdict: 'holds' } : { found: true, verdict: 'violated', explanation: why };
  }
  const progress = model.progress;
  if (!progress || progress.name !== name) return { found: false };
  const faultFree: Model<S, A> = {
    name: `${model.name} (fault-free from the replayed state)`,
    initialStates: () => [state],
    actions: (s) => model.actions(s).filter((a) => !progress.isFault(a)),
    next: (s, a) => model.next(s, a),
    encode: (s) => model.encode(s),
    actionKind: (a) => model.actionKind(a),
    describeAction: (a) => model.describeAction(a),
    invariants: [],
    goals: [{ name: 'quiescent', reached: (s) => progress.quiescent(s) }],
    ...(model.withinBoundary ? { withinBoundary: (s: S) => (model.withinBoundary as (s: S) => boolean)(s) } : {}),
  };
  const report = check(faultFree, { ...budget, symmetry: false, partialOrder: false });
  const goal = report.goals[0];
  if (goal?.verdict === 'holds')
    return {
      found: true,
      verdict: 'holds',
      explanation: `a quiescent state is reachable without faults in ${goal.path?.actions.length ?? 0} step(s)`,
    };
  if (goal?.verdict === 'violated') {
    return {
      found: true,
      verdict: 'violated',
      explanation: `none of the ${report.distinct} state(s) reachable from here without faults is quiescent`,
    };
  }
  return {
    found: true,
    verdict: 'unknown',
    explanation: `undecided: the fault-free search stopped (${report.stoppedBy ?? 'budget'}) after ${report.distinct} states`,
  };
}
