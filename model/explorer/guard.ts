// A user's model (`check --model`) checked against the `Model` contract as the
// explorer calls it. The explorer trusts the models it is given: a preset's
// functions are called on its hot path without a check. A model loaded from a
// user's module is wrapped here instead, so that a function that throws, or
// returns what its contract does not allow (an invariant that returns `true`,
// `actions` that returns no array, no initial state at all), is reported as
// the model's mistake, naming the function and where it threw, and never as
// streamjoin's internal error, a violation the model did not have, or a pass
// of nothing.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../../spec/index.ts';
import type { ByteReader, ByteWriter } from './bytes.ts';
import type { ByteSuccessors, Goal, Invariant, Model, PartialOrderHook, ProgressProperty, StateCodec } from './types.ts';

/** A user's model broke its contract (SJ102 at the module that exported it): bad input, exit 254. */
export class ModelFault extends InputError {
  constructor(origin: string, message: string) {
    super('SJ102', origin, message);
    this.name = 'ModelFault';
  }
}

/**
 * Where `e` was thrown: its first stack frame, and when that is not in the
 * model's own module (`file`), the first frame that is (a throw inside a
 * library the model calls), or ''.
 */
function thrownAt(e: unknown, file: string): string {
  const frames = (e instanceof Error ? (e.stack ?? '') : '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '));
  const first = frames[0];
  if (first === undefined) return '';
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  const own = frames.find((f) => f.includes(url) || f.includes(path));
  return own === undefined || own === first ? ` (${first})` : ` (${first}, called from ${own})`;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null || typeof value !== 'object') return `${String(value)} (${value === null ? 'null' : typeof value})`;
  return 'an object';
}

/**
 * `model` with every function wrapped: a throw becomes a `ModelFault` naming
 * the function, and a result its contract (types.ts) forbids becomes one too.
 * `origin` is where the model came from (its file), which the fault names.
 * `actionFromJson` is left as it is: throwing is its answer to a value it does
 * not recognise. Byte successors of the model's codec stay in use when they
 * stood for the model's own functions (engine.ts `ownSuccessors`).
 */
export function guardModel<S, A>(model: Model<S, A>, origin: string): Model<S, A> {
  const fault = (message: string): ModelFault => new ModelFault(origin, `the model ${JSON.stringify(model.name)} ${message}`);
  /** What a throw `e` in `what` is: the model's fault (a fault already made passes through). */
  const thrown = (what: string, e: unknown): ModelFault => {
    if (e instanceof ModelFault) return e;
    const text = e instanceof Error ? `${e.name}: ${e.message.split('\n')[0] ?? ''}` : String(e);
    const f = fault(`threw in ${what}: ${text}${thrownAt(e, origin)}`);
    // The whole error stays with it, for a debugger or a library user (the CLI prints the one line).
    f.cause = e;
    return f;
  };
  /** Calls `f`; a throw is the model's fault in `what`. */
  const call = <R>(what: string, f: () => R): R => {
    try {
      return f();
    } catch (e) {
      throw thrown(what, e);
    }
  };
  const expect = <R>(what: string, value: R, ok: boolean, wanted: string): R => {
    if (!ok) throw fault(`broke its contract: ${what} returned ${shown(value)}; it must return ${wanted}`);
    return value;
  };
  /** Calls `f`, which must return a boolean. */
  const bool = (what: string, f: () => unknown): boolean => {
    const r = call(what, f);
    return expect(what, r, typeof r === 'boolean', 'a boolean') as boolean;
  };
  /** Calls `f`, which must return a string. */
  const text = (what: string, f: () => unknown): string => {
    const r = call(what, f);
    return expect(what, r, typeof r === 'string', 'a string') as string;
  };

  const invariants: readonly Invariant<S>[] = model.invariants.map((inv) => ({
    name: inv.name,
    check: (s: S) => {
      const what = `invariant ${JSON.stringify(inv.name)}`;
      const r: unknown = call(what, () => inv.check(s));
      return expect(
        what,
        r,
        r === undefined || typeof r === 'string',
        'undefined when the state satisfies it, or a string saying why it does not',
      ) as string | undefined;
    },
  }));
  const goals: readonly Goal<S>[] | undefined = model.goals?.map((g) => ({
    name: g.name,
    reached: (s: S) => bool(`goal ${JSON.stringify(g.name)}`, () => g.reached(s)),
  }));
  const p = model.progress;
  const progress: ProgressProperty<S, A> | undefined =
    p === undefined
      ? undefined
      : {
          name: p.name,
          quiescent: (s) => bool('progress.quiescent', () => p.quiescent(s)),
          isFault: (a) => bool('progress.isFault', () => p.isFault(a)),
        };
  const actions = (s: S): readonly A[] => {
    const r: unknown = call('actions', () => model.actions(s));
    return expect('actions', r, Array.isArray(r), 'an array of the actions enabled in the state') as readonly A[];
  };
  const next = (s: S, a: A): S => {
    const r = call('next', () => model.next(s, a));
    return expect('next', r, r !== undefined, 'the successor state');
  };
  // Each member by name, not by spreading `model`: a model may be a class instance, whose methods a spread would lose.
  const guarded: { -readonly [K in keyof Model<S, A>]: Model<S, A>[K] } = {
    name: model.name,
    initialStates: () => {
      const r: unknown = call('initialStates', () => model.initialStates());
      expect('initialStates', r, Array.isArray(r), 'an array of states');
      return expect('initialStates', r as readonly S[], (r as readonly S[]).length > 0, 'at least one state: there is nothing to explore');
    },
    actions,
    next,
    encode: (s) => text('encode', () => model.encode(s)),
    actionKind: (a) => text('actionKind', () => model.actionKind(a)),
    describeAction: (a) => text('describeAction', () => model.describeAction(a)),
    invariants,
    ...(goals === undefined ? {} : { goals }),
    ...(progress === undefined ? {} : { progress }),
  };
  if (model.fingerprint) guarded.fingerprint = (s, out) => call('fingerprint', () => model.fingerprint?.(s, out));
  if (model.representative)
    guarded.representative = (s) => {
      const r = call('representative', () => model.representative?.(s));
      return expect('representative', r, r !== undefined, 'a state') as S;
    };
  if (model.withinBoundary) guarded.withinBoundary = (s) => bool('withinBoundary', () => model.withinBoundary?.(s));
  if (model.weight)
    guarded.weight = (s, a) => {
      const r: unknown = call('weight', () => model.weight?.(s, a));
      return expect('weight', r, typeof r === 'number' && Number.isFinite(r) && r >= 0, 'a finite number, 0 or more') as number;
    };
  if (model.expectedActionKinds) guarded.expectedActionKinds = model.expectedActionKinds;
  if (model.actionFromJson)
    guarded.actionFromJson = (json) => (model.actionFromJson as NonNullable<typeof model.actionFromJson>).call(model, json);
  if (model.substitute) guarded.substitute = (s, wanted) => call('substitute', () => model.substitute?.(s, wanted));
  if (model.actionToJson) guarded.actionToJson = (a) => call('actionToJson', () => model.actionToJson?.(a));
  if (model.stateToJson) guarded.stateToJson = (s) => call('stateToJson', () => model.stateToJson?.(s));
  if (model.partialOrder) guarded.partialOrder = guardPartialOrder(model.partialOrder, text, bool);
  if (model.rendering) {
    const r = model.rendering;
    guarded.rendering = {
      lanes: r.lanes,
      step: (before, action, after) => call('rendering.step', () => r.step(before, action, after)),
      ...(r.observe ? { observe: (s: S) => call('rendering.observe', () => r.observe?.(s)) } : {}),
    };
  }
  if (model.codec) guarded.codec = guardCodec(model, guarded, fault, thrown, expect);
  return guarded;
}

function guardPartialOrder<A>(
  hook: PartialOrderHook<A>,
  text: (what: string, f: () => unknown) => string,
  bool: (what: string, f: () => unknown) => boolean,
): PartialOrderHook<A> {
  return {
    component: (a) => text('partialOrder.component', () => hook.component(a)),
    visible: (a) => bool('partialOrder.visible', () => hook.visible(a)),
  };
}

/** The codec of `model` with its functions guarded; its byte successors stand for `guarded`'s functions where they stood for `model`'s. */
function guardCodec<S, A>(
  model: Model<S, A>,
  guarded: Model<S, A>,
  fault: (message: string) => ModelFault,
  thrown: (what: string, e: unknown) => ModelFault,
  expect: <R>(what: string, value: R, ok: boolean, wanted: string) => R,
): StateCodec<S> {
  // These run once or more per successor: a try block each, without a closure per call.
  const codec = model.codec as StateCodec<S>;
  /** `out` after a write: the identifying bytes must be marked (StateCodec). */
  const keyed = (what: string, out: ByteWriter): void => {
    if (out.keyEnd < 0) throw fault(`broke its contract: ${what} never called out.endKey() after the identifying bytes (StateCodec)`);
  };
  const guardedCodec: { -readonly [K in keyof StateCodec<S>]: StateCodec<S>[K] } = {
    symmetric: codec.symmetric,
    write(state, out, symmetric) {
      try {
        codec.write(state, out, symmetric);
      } catch (e) {
        throw thrown('codec.write', e);
      }
      keyed('codec.write', out);
    },
    read(input) {
      let state: S;
      try {
        state = codec.read(input);
      } catch (e) {
        throw thrown('codec.read', e);
      }
      return expect('codec.read', state, state !== undefined, 'the state its bytes encode');
    },
  };
  const byteSuccessors = codec.successors;
  if (byteSuccessors === undefined) return guardedCodec;
  const own = byteSuccessors.standsFor;
  const isBoolean = (what: string, value: boolean): boolean => expect(what, value, typeof value === 'boolean', 'a boolean');
  const guardedSuccessors: { -readonly [K in keyof ByteSuccessors]: ByteSuccessors[K] } = {
    load(input: ByteReader) {
      let n: number;
      try {
        n = byteSuccessors.load(input);
      } catch (e) {
        throw thrown('codec.successors.load', e);
      }
      return expect('codec.successors.load', n, Number.isInteger(n) && n >= -1, 'the number of actions enabled, or -1');
    },
    standsFor: {
      actions: own.actions === model.actions ? guarded.actions : own.actions,
      next: own.next === model.next ? guarded.next : own.next,
      invariants: own.invariants === model.invariants ? guarded.invariants : own.invariants,
      progress: own.progress === model.progress ? guarded.progress : own.progress,
      ...(own.goals === undefined ? {} : { goals: own.goals === model.goals ? guarded.goals : own.goals }),
    },
    write(k: number, out: ByteWriter, symmetric: boolean) {
      let kind: string;
      try {
        kind = byteSuccessors.write(k, out, symmetric);
      } catch (e) {
        throw thrown('codec.successors.write', e);
      }
      keyed('codec.successors.write', out);
      return expect('codec.successors.write', kind, typeof kind === 'string', "the action's kind");
    },
    isFault(k: number) {
      try {
        return isBoolean('codec.successors.isFault', byteSuccessors.isFault(k));
      } catch (e) {
        throw thrown('codec.successors.isFault', e);
      }
    },
    judged(k: number) {
      try {
        return isBoolean('codec.successors.judged', byteSuccessors.judged(k));
      } catch (e) {
        throw thrown('codec.successors.judged', e);
      }
    },
    quiescent() {
      try {
        return isBoolean('codec.successors.quiescent', byteSuccessors.quiescent());
      } catch (e) {
        throw thrown('codec.successors.quiescent', e);
      }
    },
  };
  const { kindNames, writeNumbered, reaches } = byteSuccessors;
  if (kindNames !== undefined && writeNumbered !== undefined) {
    guardedSuccessors.kindNames = kindNames;
    guardedSuccessors.writeNumbered = (k: number, out: ByteWriter, symmetric: boolean) => {
      let kind: number;
      try {
        kind = writeNumbered.call(byteSuccessors, k, out, symmetric);
      } catch (e) {
        throw thrown('codec.successors.writeNumbered', e);
      }
      keyed('codec.successors.writeNumbered', out);
      return expect(
        'codec.successors.writeNumbered',
        kind,
        Number.isInteger(kind) && kind >= 0 && kind < kindNames.length,
        'an index into kindNames',
      );
    };
  }
  if (reaches !== undefined)
    guardedSuccessors.reaches = (goal: number) => {
      try {
        return isBoolean('codec.successors.reaches', reaches.call(byteSuccessors, goal));
      } catch (e) {
        throw thrown('codec.successors.reaches', e);
      }
    };
  guardedCodec.successors = guardedSuccessors;
  return guardedCodec;
}
