// The Informal Trace Format (ITF) of Apalache and Quint (Apalache ADR-015,
// "Informal Trace Format in JSON"), for streamjoin's documents: typed codecs
// between streamjoin's JSON and ITF values, and the reading of an ITF trace
// back into a cluster trace, an operator trace or a model counterexample.
//
// Facts of the format this module relies on (ADR-015):
// - a trace is an object with `vars` (names set in every state), `states`,
//   and optionally `#meta` (any object), `params` (names set in the initial
//   state) and `loop` (the index where a lasso's loop starts);
// - a state is an object with a value for every name in `vars`, and
//   optionally `#meta`;
// - values are booleans, strings, integers, lists (arrays), records (objects
//   whose field names do not start with `#`), `{"#tup": [...]}`,
//   `{"#set": [...]}`, `{"#map": [[key, value], ...]}`, and
//   `{"#unserializable": "..."}`;
// - since the revision of 2023-09-14 every integer is written
//   `{"#bigint": "<digits>"}` (a plain JSON number is what older traces
//   hold; this reader accepts both, the writers write only `#bigint`).
// Quint adds two conventions this module follows: sum types as
// `{"tag": ..., "value": ...}` (an option is `Some`/`None`), and, for
// model-based testing, the state variables `mbt::actionTaken` (the action's
// name; `init` in the initial state) and `mbt::nondetPicks` (a record of the
// action's parameters, each an option).
import { InputError } from './errors.ts';
import type {
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  ClusterStep,
  ClusterTrace,
  Counterexample,
  JoinConfig,
  LogRecord,
  OperatorStep,
  OperatorTrace,
} from './types.gen.ts';
import { CLUSTER_TRACE_FORMAT, COUNTEREXAMPLE_FORMAT, OPERATOR_TRACE_FORMAT } from './constants.ts';
import { schemaError } from './schemas.ts';

/** An ITF value (ADR-015's expressions, with Quint's variants). */
export type ItfValue = boolean | string | readonly ItfValue[] | { readonly [field: string]: ItfValue };

/** An ITF trace. */
export interface ItfTrace {
  /** Free-form metadata of the trace (ITF `#meta`). */
  readonly '#meta'?: Readonly<Record<string, unknown>>;
  /** Names of the trace's parameters, when it has any. */
  readonly params?: readonly string[];
  /** Names of the state variables every state holds. */
  readonly vars: readonly string[];
  /** The states, in order. */
  readonly states: readonly ItfState[];
  /** Index of the state the trace loops back to, when it is a lasso. */
  readonly loop?: number;
}

/** A state: a value (an `ItfValue`) per variable, and optionally `#meta` (any object). */
export type ItfState = Readonly<Record<string, unknown>>;

/** Where and why an ITF value does not have the shape expected of it. */
export class ItfShapeError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
    this.name = 'ItfShapeError';
  }
}

/** Encodes a value of type `T` as ITF and decodes it back (throwing ItfShapeError with a JSON pointer). */
export interface Codec<T> {
  encode(value: T): ItfValue;
  decode(value: unknown, at: string): T;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const fail = (at: string, message: string): never => {
  throw new ItfShapeError(at || '/', message);
};
const escapePointer = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

export const itfInt: Codec<number> = {
  encode: (n) => ({ '#bigint': String(n) }),
  decode: (x, at) => {
    if (typeof x === 'number') return Number.isSafeInteger(x) ? x : fail(at, `${x} is not an integer in the safe range`);
    if (isPlainObject(x) && typeof x['#bigint'] === 'string' && Object.keys(x).length === 1) {
      const text = x['#bigint'];
      if (!/^-?[0-9]+$/.test(text)) return fail(`${at}/#bigint`, `"${text}" is not an integer`);
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : fail(`${at}/#bigint`, `${text} is outside the range streamjoin handles (SPEC §0)`);
    }
    return fail(at, 'expected an integer ({"#bigint": "..."})');
  },
};

export const itfString: Codec<string> = {
  encode: (s) => s,
  decode: (x, at) => (typeof x === 'string' ? x : fail(at, 'expected a string')),
};

export const itfBool: Codec<boolean> = {
  encode: (b) => b,
  decode: (x, at) => (typeof x === 'boolean' ? x : fail(at, 'expected a Boolean')),
};

export function itfList<T>(item: Codec<T>): Codec<T[]> {
  return {
    encode: (xs) => xs.map((x) => item.encode(x)),
    decode: (x, at) => (Array.isArray(x) ? x.map((v, i) => item.decode(v, `${at}/${i}`)) : fail(at, 'expected a list')),
  };
}

/** A map with string keys (TLA+ functions; ITF `#map`): keys are data (worker ids, keys, match ids), never record fields. */
export function itfMap<T>(value: Codec<T>): Codec<Record<string, T>> {
  return {
    encode: (m) => ({ '#map': Object.entries(m).map(([k, v]) => [k, value.encode(v)]) }),
    decode: (x, at) => {
      if (!isPlainObject(x) || !Array.isArray(x['#map'])) return fail(at, 'expected a map ({"#map": [[key, value], ...]})');
      const entries = (x['#map'] as unknown[]).map((pair, i): [string, T] => {
        const where = `${at}/#map/${i}`;
        if (!Array.isArray(pair) || pair.length !== 2) return fail(where, 'expected a [key, value] pair');
        return [itfString.decode(pair[0], `${where}/0`), value.decode(pair[1], `${where}/1`)];
      });
      return Object.fromEntries(entries);
    },
  };
}

const UNIT: ItfValue = { '#tup': [] };

/** An optional value as Quint's `Option`: `{"tag": "Some", "value": v}` or `{"tag": "None", "value": {"#tup": []}}`. */
export function itfOption<T>(value: Codec<T>): Codec<T | null> {
  return {
    encode: (v) => (v === null ? { tag: 'None', value: UNIT } : { tag: 'Some', value: value.encode(v) }),
    decode: (x, at) => {
      if (!isPlainObject(x) || (x['tag'] !== 'Some' && x['tag'] !== 'None'))
        return fail(at, 'expected an option ({"tag": "Some" | "None", "value": ...})');
      return x['tag'] === 'None' ? null : value.decode(x['value'], `${at}/value`);
    },
  };
}

type Fields = Readonly<Record<string, Codec<unknown>>>;

/**
 * A record with fixed fields. Fields named in `optional` may be absent from
 * the JSON value; in ITF every field is present (records have one type in
 * every state), an optional one as an option.
 */
export function itfRecord<T>(fields: Fields, optional: readonly string[] = []): Codec<T> {
  return {
    encode: (r) => {
      const out: Record<string, ItfValue> = {};
      const value = r as Record<string, unknown>;
      for (const [name, codec] of Object.entries(fields)) {
        if (optional.includes(name)) out[name] = itfOption(codec).encode(value[name] === undefined ? null : value[name]);
        else out[name] = codec.encode(value[name]);
      }
      return out;
    },
    decode: (x, at) => {
      if (!isPlainObject(x)) return fail(at, 'expected a record');
      const out: Record<string, unknown> = {};
      for (const [name, codec] of Object.entries(fields)) {
        if (!(name in x)) return fail(at, `missing field "${name}"`);
        const where = `${at}/${escapePointer(name)}`;
        if (optional.includes(name)) {
          const v = itfOption(codec).decode(x[name], where);
          if (v !== null) out[name] = v;
        } else out[name] = codec.decode(x[name], where);
      }
      const extra = Object.keys(x).find((k) => !(k in fields) && k !== '#meta');
      if (extra !== undefined) return fail(at, `unknown field "${extra}"`);
      return out as T;
    },
  };
}

/** A union told apart by one field (`type`, `kind`): a Quint variant whose tag is that field and whose value is a record of the rest. */
export function itfVariant<T>(discriminator: string, cases: Readonly<Record<string, Codec<unknown>>>): Codec<T> {
  return {
    encode: (v) => {
      const { [discriminator]: tag, ...rest } = v as Record<string, unknown>;
      const codec = cases[String(tag)];
      if (!codec) throw new Error(`no ITF encoding for ${discriminator} "${String(tag)}"`);
      return { tag: String(tag), value: codec.encode(rest) };
    },
    decode: (x, at) => {
      if (!isPlainObject(x) || typeof x['tag'] !== 'string') return fail(at, `expected a variant ({"tag": ..., "value": ...})`);
      const codec = cases[x['tag']];
      if (!codec) return fail(`${at}/tag`, `unknown ${discriminator} "${x['tag']}" (expected one of ${Object.keys(cases).join(', ')})`);
      return { [discriminator]: x['tag'], ...(codec.decode(x['value'], `${at}/value`) as object) } as T;
    },
  };
}

// ---------------------------------------------------------------------------
// streamjoin's documents as ITF values (schemas in spec/schemas/)

const rowFields = { key: itfString, side: itfString, id: itfString, ts: itfInt, start: itfInt, end: itfInt };

export const ITF_RECORD: Codec<LogRecord> = itfVariant('kind', {
  insert: itfRecord(rowFields),
  retract: itfRecord(rowFields),
  watermark: itfRecord({ side: itfString, wm: itfInt }),
});

const outcome = itfRecord({ code: itfString, reason: itfString }, ['reason']);
const change = itfRecord({ op: itfString, match: itfString, key: itfString, left: itfString, right: itfString });

export const ITF_EVENT: Codec<ClusterEvent> = itfVariant('type', {
  appended: itfRecord({ index: itfInt }),
  rejected: itfRecord({ outcome }),
  processed: itfRecord({
    worker: itfString,
    key: itfString,
    index: itfInt,
    epoch: itfInt,
    outcome,
    changes: itfList(change),
    fenced: itfBool,
  }),
  dropped: itfRecord({ worker: itfString, key: itfString, reason: itfString }),
  refused: itfRecord({ worker: itfString, key: itfString, reason: itfString }),
  restored: itfRecord({ worker: itfString, key: itfString, cursor: itfInt, epoch: itfInt }),
});

const retained = itfRecord({ live: itfInt, tombstones: itfInt, matches: itfInt });
const handoff = itfRecord({ kind: itfString, key: itfString, src: itfString, dst: itfString, from: itfInt, phase: itfString });

/** The observation (SPEC §7), one ITF variable per top-level field. */
export const ITF_OBSERVATION_FIELDS = {
  log: itfInt,
  coordinator: itfRecord({
    up: itfBool,
    handoff: itfOption(handoff),
    keys: itfMap(itfRecord({ owner: itfString, epoch: itfInt })),
  }),
  workers: itfMap(
    itfRecord({
      status: itfString,
      keys: itfMap(itfRecord({ epoch: itfInt, cursor: itfInt, frozen: itfBool, retained })),
    }),
  ),
  store: itfMap(itfRecord({ epoch: itfInt, cursor: itfInt, retained })),
  sink: itfRecord({ fence: itfMap(itfInt), matches: itfMap(itfString), applied: itfInt, deduped: itfInt, fenced: itfInt }),
} as const;

export const ITF_JOIN_CONFIG: Codec<JoinConfig> = itfRecord({ allowedLateness: itfInt, maxIntervalLength: itfInt });

export const ITF_CLUSTER_CONFIG: Codec<ClusterConfig> = itfRecord({
  join: ITF_JOIN_CONFIG,
  workers: itfList(itfString),
  keys: itfList(itfRecord({ key: itfString, owner: itfString })),
});

/** The parameters of every action kind (SPEC §5, cluster-action.schema.json), each an option in `mbt::nondetPicks`. */
const PICKS = { key: itfString, to: itfString, worker: itfString, node: itfString, record: ITF_RECORD, crashAfterFence: itfBool } as const;
type PickName = keyof typeof PICKS;
const PICK_NAMES = Object.keys(PICKS) as PickName[];

export const ACTION_TAKEN = 'mbt::actionTaken';
export const NONDET_PICKS = 'mbt::nondetPicks';

/** The action of a state, as `mbt::actionTaken` and `mbt::nondetPicks` (every parameter name present, unused ones `None`). */
export function encodeAction(action: ClusterAction | { readonly type: 'init' }): { actionTaken: string; picks: ItfValue } {
  const a = action as Record<string, unknown>;
  const picks: Record<string, ItfValue> = {};
  for (const name of PICK_NAMES) {
    const codec = itfOption(PICKS[name] as Codec<unknown>);
    picks[name] = codec.encode(a[name] === undefined ? null : a[name]);
  }
  return { actionTaken: String(a['type']), picks };
}

/**
 * The order in which streamjoin's models write each action's parameters
 * (model/cluster/boundedHistories.ts): a decoded action has its fields in this
 * order, so that it equals, as JSON text, the action the model enables.
 */
const PARAMETER_ORDER: readonly PickName[] = ['worker', 'node', 'key', 'to', 'record', 'crashAfterFence'];

/** The inverse of `encodeAction`: `{type: actionTaken, ...the picks that are Some}`. */
export function decodeAction(actionTaken: unknown, picks: unknown, at: string): Record<string, unknown> {
  const type = itfString.decode(actionTaken, `${at}/${ACTION_TAKEN}`);
  if (!isPlainObject(picks)) return fail(`${at}/${NONDET_PICKS}`, 'expected a record of options');
  const found: Partial<Record<PickName, unknown>> = {};
  for (const [name, value] of Object.entries(picks)) {
    const codec = PICKS[name as PickName] as Codec<unknown> | undefined;
    if (!codec) return fail(`${at}/${NONDET_PICKS}/${escapePointer(name)}`, `unknown action parameter "${name}"`);
    const v = itfOption(codec).decode(value, `${at}/${NONDET_PICKS}/${escapePointer(name)}`);
    if (v !== null) found[name as PickName] = v;
  }
  const out: Record<string, unknown> = { type };
  for (const name of PARAMETER_ORDER) if (name in found) out[name] = found[name];
  return out;
}

/** The variables of an operator trace's states (SPEC §3): the last record's outcome and changes, and the retained counts. */
export const ITF_OPERATOR_FIELDS = {
  outcome: itfOption(outcome),
  changes: itfList(change),
  retained,
} as const;

/** What streamjoin writes in a trace's `#meta.streamjoin`, so that it can read its own traces back exactly. */
export interface StreamjoinItfMeta {
  /** `streamjoin/itf@1`. */
  readonly format: string;
  readonly kind: 'cluster-trace' | 'operator-trace' | 'counterexample';
  readonly name?: string;
  readonly description?: string;
  /**
   * For a counterexample: everything of it but the path, which the states
   * hold; for a user's model (`actions` `json`) with its actions, whose form
   * only the model knows.
   */
  readonly counterexample?: Omit<Counterexample, 'actions' | 'steps'> & { readonly actions?: readonly unknown[] };
  /** For a counterexample: what an action is (`cluster-action`, a log `record` for the join model, or a user's model's own `json`). */
  readonly actions?: 'cluster-action' | 'record' | 'json';
  /** The streamjoin and spec versions that wrote it. */
  readonly versions?: { readonly streamjoin: string; readonly spec: string };
  /** For a conformance trace: where and how the system departed from the model (informative; replay judges anew). */
  readonly divergence?: unknown;
}

export const STREAMJOIN_ITF_FORMAT = 'streamjoin/itf@1';

// ---------------------------------------------------------------------------
// Reading

/** Is this JSON value an ITF trace (rather than a streamjoin document)? */
export function isItfTrace(value: unknown): boolean {
  return isPlainObject(value) && Array.isArray(value['vars']) && Array.isArray(value['states']) && !('format' in value);
}

/**
 * The structural rules of ADR-015 that a JSON Schema cannot state: every
 * state sets every name of `vars`, the initial state every name of
 * `params`, and `loop` is the index of a state. The first broken one, or
 * undefined.
 */
export function itfStructureProblem(t: ItfTrace): { pointer: string; message: string } | undefined {
  for (const [i, s] of t.states.entries()) {
    for (const v of t.vars) if (!(v in s)) return { pointer: `/states/${i}`, message: `state ${i} sets no value for the variable "${v}"` };
  }
  for (const p of t.params ?? []) {
    if (t.states.length > 0 && !(p in (t.states[0] as object)))
      return { pointer: '/states/0', message: `the initial state sets no value for the parameter "${p}"` };
  }
  if (t.loop !== undefined && (t.loop < 0 || t.loop >= t.states.length))
    return { pointer: '/loop', message: `loop ${t.loop} is not the index of a state` };
  return undefined;
}

function meta(t: ItfTrace): StreamjoinItfMeta | undefined {
  const m = t['#meta']?.['streamjoin'];
  return isPlainObject(m) && m['format'] === STREAMJOIN_ITF_FORMAT ? (m as unknown as StreamjoinItfMeta) : undefined;
}

/** Which streamjoin document an ITF trace holds: from its `#meta`, else from its variables. */
export function itfKind(t: ItfTrace): StreamjoinItfMeta['kind'] | undefined {
  const m = meta(t);
  if (m) return m.kind;
  if (t.vars.includes('coordinator') && t.vars.includes('sink')) return 'cluster-trace';
  if (t.vars.includes('outcome') && t.vars.includes('retained')) return 'operator-trace';
  return undefined;
}

const inputError = (where: string, e: unknown): never => {
  if (e instanceof ItfShapeError) throw new InputError('SJ102', where, `${e.pointer}: ${e.message}`);
  throw e;
};

/** A trace step's note, which streamjoin keeps in the state's `#meta`. */
function noteOf(s: ItfState): { note?: string } {
  const m = s['#meta'];
  const note = isPlainObject(m) ? m['note'] : undefined;
  return typeof note === 'string' ? { note } : {};
}

function traceName(t: ItfTrace, where: string): string {
  const m = meta(t);
  if (m?.name) return m.name;
  const source = t['#meta']?.['source'];
  if (typeof source === 'string' && source !== '') return source;
  return (
    where
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.itf\.json$|\.json$/, '') || 'itf-trace'
  );
}

/**
 * An ITF trace of a cluster run as a cluster trace (SPEC §7): the config from
 * the parameter `config`, each later state's action and, as its expectation,
 * its events (or refusal) and observation.
 */
export function itfToClusterTrace(t: ItfTrace, where: string): ClusterTrace {
  try {
    const first = t.states[0];
    if (!first) return fail('/states', 'a trace needs an initial state');
    const config = ITF_CLUSTER_CONFIG.decode(first['config'], '/states/0/config');
    const steps: ClusterStep[] = t.states.slice(1).map((s, j) => {
      const i = j + 1;
      const at = `/states/${i}`;
      const action = decodeAction(s[ACTION_TAKEN], s[NONDET_PICKS], at) as unknown as ClusterAction;
      const observation = Object.fromEntries(
        Object.entries(ITF_OBSERVATION_FIELDS).map(([name, codec]) => [name, (codec as Codec<unknown>).decode(s[name], `${at}/${name}`)]),
      ) as unknown as ClusterObservation;
      const refused = 'refused' in s ? itfOption(itfString).decode(s['refused'], `${at}/refused`) : null;
      const note = noteOf(s);
      if (refused !== null) return { action, expect: { error: refused, observation }, ...note };
      const events = 'events' in s ? itfList(ITF_EVENT).decode(s['events'], `${at}/events`) : undefined;
      return { action, expect: { ...(events ? { events } : {}), observation }, ...note };
    });
    const m = meta(t);
    return {
      format: CLUSTER_TRACE_FORMAT,
      name: traceName(t, where),
      ...(m?.description !== undefined ? { description: m.description } : {}),
      config,
      steps,
    };
  } catch (e) {
    return inputError(where, e);
  }
}

/** An ITF trace of an operator run as an operator trace (SPEC §4). */
export function itfToOperatorTrace(t: ItfTrace, where: string): OperatorTrace {
  try {
    const first = t.states[0];
    if (!first) return fail('/states', 'a trace needs an initial state');
    const config = ITF_JOIN_CONFIG.decode(first['config'], '/states/0/config');
    const steps: OperatorStep[] = t.states.slice(1).map((s, j) => {
      const at = `/states/${j + 1}`;
      const action = decodeAction(s[ACTION_TAKEN], s[NONDET_PICKS], at);
      if (action['type'] !== 'record' || action['record'] === undefined)
        return fail(`${at}/${ACTION_TAKEN}`, 'an operator trace appends records only');
      const o = ITF_OPERATOR_FIELDS.outcome.decode(s['outcome'], `${at}/outcome`);
      const expect = {
        ...(o !== null ? { outcome: o } : {}),
        changes: ITF_OPERATOR_FIELDS.changes.decode(s['changes'], `${at}/changes`),
        retained: ITF_OPERATOR_FIELDS.retained.decode(s['retained'], `${at}/retained`),
      };
      return { record: action['record'] as LogRecord, ...(o !== null ? { expect } : {}), ...noteOf(s) } as OperatorStep;
    });
    const m = meta(t);
    return {
      format: OPERATOR_TRACE_FORMAT,
      name: traceName(t, where),
      ...(m?.description !== undefined ? { description: m.description } : {}),
      config,
      steps,
    };
  } catch (e) {
    return inputError(where, e);
  }
}

/** An ITF trace written by `streamjoin check --itf` as the counterexample it holds: the model, the property, and the path from the states' actions. */
export function itfToCounterexample(t: ItfTrace, where: string): Counterexample {
  const m = meta(t);
  if (m?.kind !== 'counterexample' || !m.counterexample) {
    throw new InputError(
      'SJ103',
      where,
      'this ITF trace is not a streamjoin model counterexample (no #meta.streamjoin with kind "counterexample")',
    );
  }
  if (m.actions === 'json')
    return { ...m.counterexample, format: COUNTEREXAMPLE_FORMAT, actions: [...(m.counterexample.actions ?? [])] } as Counterexample;
  try {
    const actions = t.states.slice(1).map((s, j) => {
      const action = decodeAction(s[ACTION_TAKEN], s[NONDET_PICKS], `/states/${j + 1}`);
      return m.actions === 'record' ? action['record'] : action;
    });
    return { ...m.counterexample, format: COUNTEREXAMPLE_FORMAT, actions } as Counterexample;
  } catch (e) {
    return inputError(where, e);
  }
}

/**
 * Reading hook for spec/documents.ts: if `text` is an ITF trace, the
 * streamjoin document it holds (a trace, or with `want` `counterexample` a
 * model counterexample) as JSON text, which the caller then reads like any
 * other document; otherwise `text` unchanged. The ITF itself is checked
 * first: its schema (itf.schema.json, SJ102) and ADR-015's structure.
 */
export function itfAsDocument(text: string, where: string, want: 'trace' | 'counterexample'): string {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return text;
  }
  const document = itfDocumentValue(value, where, want);
  return document === value ? text : JSON.stringify(document);
}

/**
 * The same on a parsed value (spec/documents.ts reads and checks the text
 * first): the streamjoin document an ITF trace holds, or `value` itself when
 * it is not an ITF trace.
 */
export function itfDocumentValue(value: unknown, where: string, want: 'trace' | 'counterexample'): unknown {
  if (!isItfTrace(value)) return value;
  const err = schemaError('itf', value);
  if (err) throw new InputError('SJ102', where, `${err.pointer || '/'}: ${err.text} (not a valid ITF trace)`);
  const t = value as ItfTrace;
  const problem = itfStructureProblem(t);
  if (problem) throw new InputError('SJ102', where, `${problem.pointer}: ${problem.message}`);
  if (want === 'counterexample') return itfToCounterexample(t, where);
  const kind = itfKind(t);
  if (kind === 'cluster-trace') return itfToClusterTrace(t, where);
  if (kind === 'operator-trace') return itfToOperatorTrace(t, where);
  throw new InputError(
    'SJ103',
    where,
    kind === 'counterexample'
      ? 'this ITF trace is a model counterexample: replay it with streamjoin check --replay'
      : 'this ITF trace is not a streamjoin trace (neither #meta.streamjoin nor the variables of a cluster or operator trace)',
  );
}
