// Counterexamples in the Informal Trace Format of Apalache and Quint
// (`--itf`, `NAME.itf.json`), so that ITF viewers and libraries read them:
// a conformance trace as the states the model goes through (the
// observation, SPEC §7, one variable per field, and each step's events), a
// model counterexample as the states of its path. Each state names its
// action the way Quint's model-based testing does (`mbt::actionTaken`,
// `mbt::nondetPicks`); `#meta.streamjoin` holds what streamjoin needs to read
// the file back (`replay FILE.itf.json`, `check --replay FILE.itf.json`).
// The codecs are in spec/itf.ts.
import {
  ACTION_TAKEN,
  ITF_CLUSTER_CONFIG,
  ITF_EVENT,
  ITF_JOIN_CONFIG,
  ITF_OBSERVATION_FIELDS,
  ITF_OPERATOR_FIELDS,
  NONDET_PICKS,
  STREAMJOIN_ITF_FORMAT,
  encodeAction,
  itfBool,
  itfInt,
  itfList,
  itfOption,
  itfRecord,
  itfString,
  type Codec,
  type ItfState,
  type ItfTrace,
  type ItfValue,
  type StreamjoinItfMeta,
} from '../../spec/itf.ts';
import type { ClusterAction, ClusterConfig, ClusterEvent, Counterexample, JoinConfig, LogRecord } from '../../spec/index.ts';
import type { AnyTrace } from '../../spec/index.ts';
import { expectedOperatorSteps } from '../lockstep/operatorLockstep.ts';
import type { Divergence } from '../report/divergence.ts';
import type { CounterexampleView } from './view.ts';

const OBSERVATION_VARS = Object.keys(ITF_OBSERVATION_FIELDS) as (keyof typeof ITF_OBSERVATION_FIELDS)[];

function observationValues(observation: unknown): Record<string, ItfValue> {
  const o = observation as Record<string, unknown>;
  return Object.fromEntries(OBSERVATION_VARS.map((name) => [name, (ITF_OBSERVATION_FIELDS[name] as Codec<unknown>).encode(o[name])]));
}

const INIT = { type: 'init' } as const;

function actionValues(action: ClusterAction | typeof INIT): Record<string, ItfValue> {
  const { actionTaken, picks } = encodeAction(action);
  return { [ACTION_TAKEN]: actionTaken, [NONDET_PICKS]: picks };
}

const eventsCodec = itfList(ITF_EVENT);

/** A step's `#meta`: its index among the states (0 the initial one), its step number (from 1, as every report counts), the trace's note for it, and whether the system departs there. */
function stepMeta(step: number, note: string | undefined, divergence: boolean): Record<string, unknown> {
  return { index: step + 1, step: step + 1, ...(note !== undefined ? { note } : {}), ...(divergence ? { divergence: true } : {}) };
}
const refusedCodec = itfOption(itfString);

function baseMeta(view: CounterexampleView, extra: Partial<StreamjoinItfMeta> & Pick<StreamjoinItfMeta, 'kind'>): Record<string, unknown> {
  return {
    format: 'ITF',
    source: `streamjoin ${view.versions.streamjoin} (spec ${view.versions.spec})`,
    description: view.description ?? view.name,
    streamjoin: {
      format: STREAMJOIN_ITF_FORMAT,
      name: view.name,
      ...(view.description !== undefined ? { description: view.description } : {}),
      versions: view.versions,
      ...extra,
    },
  };
}

/** A JSON value as ITF: integers as `#bigint`, arrays as lists, objects as records, null as the unit tuple, other numbers as text. */
function jsonItf(v: unknown): ItfValue {
  if (typeof v === 'number') return Number.isInteger(v) ? { '#bigint': String(v) } : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(jsonItf);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonItf(x)]));
  return { '#tup': [] };
}

/**
 * A counterexample to a user's model (`check --model`) as ITF: the state as
 * the view shows it, one variable `state`, each step's action by name and
 * what it did as the state's note; the actions themselves in
 * `#meta.streamjoin.counterexample` (`check --replay` reads them back).
 */
export function userModelItf(cx: Counterexample, view: CounterexampleView): ItfTrace {
  const { steps: _steps, ...rest } = cx;
  const meta = baseMeta(view, { kind: 'counterexample', counterexample: rest, actions: 'json' });
  return {
    '#meta': { ...meta, status: 'violation', violation: cx.property },
    vars: ['state', ACTION_TAKEN],
    states: [
      { '#meta': { index: 0 }, state: jsonItf(view.initialState), [ACTION_TAKEN]: 'init' },
      ...view.steps.map(
        (s, i): ItfState => ({
          '#meta': { ...stepMeta(i, s.events.join('; '), false) },
          state: jsonItf(s.state),
          [ACTION_TAKEN]: s.action,
        }),
      ),
    ],
  };
}

/**
 * A conformance counterexample as ITF: the initial state and one state per
 * step, as the model (the expectation) has it; the divergence (expected
 * versus actual, with the rules) in `#meta.streamjoin.divergence`.
 */
export function conformanceItf(trace: AnyTrace, view: CounterexampleView, d: Divergence): ItfTrace {
  const divergence = {
    step: d.step,
    field: d.field,
    summary: d.summary,
    expected: d.expected,
    actual: d.actual,
    diff: d.diff,
    rules: d.refs.rules,
    properties: d.refs.properties,
  };
  if (trace.kind === 'cluster') {
    const t = trace.trace;
    const states: ItfState[] = [
      {
        '#meta': { index: 0 },
        config: ITF_CLUSTER_CONFIG.encode(t.config),
        ...observationValues(view.initialState),
        events: [],
        refused: refusedCodec.encode(null),
        ...actionValues(INIT),
      },
      ...view.steps.map(
        (s, i): ItfState => ({
          '#meta': stepMeta(i, t.steps[i]?.note, d.step === i),
          ...observationValues(s.state),
          events: eventsCodec.encode([...(s.clusterEvents ?? [])] as ClusterEvent[]),
          refused: refusedCodec.encode(s.refused ?? null),
          ...actionValues(s.actionJson as ClusterAction),
        }),
      ),
    ];
    return {
      '#meta': { ...baseMeta(view, { kind: 'cluster-trace', divergence }), status: 'divergence' },
      params: ['config'],
      vars: [...OBSERVATION_VARS, 'events', 'refused', ACTION_TAKEN, NONDET_PICKS],
      states,
    };
  }
  const t = trace.trace;
  const expected = expectedOperatorSteps(t).steps;
  const states: ItfState[] = [
    {
      '#meta': { index: 0 },
      config: ITF_JOIN_CONFIG.encode(t.config),
      outcome: ITF_OPERATOR_FIELDS.outcome.encode(null),
      changes: [],
      retained: ITF_OPERATOR_FIELDS.retained.encode({ live: 0, tombstones: 0, matches: 0 }),
      ...actionValues(INIT),
    },
    ...t.steps.map((s, i): ItfState => {
      const e = expected[i];
      return {
        '#meta': stepMeta(i, s.note, d.step === i),
        outcome: ITF_OPERATOR_FIELDS.outcome.encode(e ? e.outcome : null),
        changes: ITF_OPERATOR_FIELDS.changes.encode(e ? [...e.changes] : []),
        retained: ITF_OPERATOR_FIELDS.retained.encode(e?.retained ?? { live: 0, tombstones: 0, matches: 0 }),
        ...actionValues({ type: 'record', record: s.record }),
      };
    }),
  ];
  return {
    '#meta': { ...baseMeta(view, { kind: 'operator-trace', divergence }), status: 'divergence' },
    params: ['config'],
    vars: ['outcome', 'changes', 'retained', ACTION_TAKEN, NONDET_PICKS],
    states,
  };
}

const budgets = itfRecord({
  migrations: itfInt,
  failovers: itfInt,
  crashes: itfInt,
  pauses: itfInt,
  duplicates: itfInt,
  checkpoints: itfInt,
});

const joinState = itfRecord(
  {
    length: itfInt,
    last: itfString,
    mismatch: itfString,
    outOfContract: itfBool,
    watermarks: itfRecord({ L: itfOption(itfInt), R: itfOption(itfInt) }),
    rows: itfList(itfString),
    matches: itfList(itfString),
    oracleRows: itfList(itfString),
  },
  ['mismatch', 'outOfContract'],
);
const JOIN_VARS = ['length', 'last', 'mismatch', 'outOfContract', 'watermarks', 'rows', 'matches', 'oracleRows'] as const;

/**
 * A model counterexample (`streamjoin check`) as ITF: the states of its path
 * (for the cluster model the observation, the budgets used and the ghost's
 * violation; for the join model its state), each with the action that led
 * to it; the counterexample's model, bounds and property in
 * `#meta.streamjoin`, so that `check --replay FILE.itf.json` rebuilds it.
 */
export function modelItf(cx: Counterexample, view: CounterexampleView): ItfTrace {
  const { actions: _actions, steps: _steps, ...rest } = cx;
  const isCluster = view.nodes.includes('coordinator');
  const meta = baseMeta(view, { kind: 'counterexample', counterexample: rest, actions: isCluster ? 'cluster-action' : 'record' });
  const status = { ...meta, status: 'violation', violation: cx.property };
  if (isCluster) {
    const config = (view.configJson as { cluster: ClusterConfig }).cluster;
    const stateValues = (state: unknown): Record<string, ItfValue> => {
      const s = state as { budgetsUsed: unknown; violation?: string };
      return {
        ...observationValues(state),
        budgetsUsed: budgets.encode(s.budgetsUsed),
        violation: refusedCodec.encode(s.violation ?? null),
      };
    };
    return {
      '#meta': status,
      params: ['config'],
      vars: [...OBSERVATION_VARS, 'budgetsUsed', 'violation', 'events', ACTION_TAKEN, NONDET_PICKS],
      states: [
        {
          '#meta': { index: 0 },
          config: ITF_CLUSTER_CONFIG.encode({ join: config.join, workers: config.workers, keys: config.keys }),
          ...stateValues(view.initialState),
          events: [],
          ...actionValues(INIT),
        },
        ...view.steps.map(
          (s, i): ItfState => ({
            '#meta': { index: i + 1 },
            ...stateValues(s.state),
            events: eventsCodec.encode([...(s.clusterEvents ?? [])] as ClusterEvent[]),
            ...actionValues(s.actionJson as ClusterAction),
          }),
        ),
      ],
    };
  }
  const join = (view.configJson as { join: JoinConfig }).join;
  const stateValues = (state: unknown): Record<string, ItfValue> => {
    const encoded = joinState.encode(state) as Record<string, ItfValue>;
    return Object.fromEntries(JOIN_VARS.map((v) => [v, encoded[v] as ItfValue]));
  };
  return {
    '#meta': status,
    params: ['config'],
    vars: [...JOIN_VARS, ACTION_TAKEN, NONDET_PICKS],
    states: [
      { '#meta': { index: 0 }, config: ITF_JOIN_CONFIG.encode(join), ...stateValues(view.initialState), ...actionValues(INIT) },
      ...view.steps.map(
        (s, i): ItfState => ({
          '#meta': { index: i + 1 },
          ...stateValues(s.state),
          ...actionValues({ type: 'record', record: s.actionJson as LogRecord }),
        }),
      ),
    ],
  };
}
