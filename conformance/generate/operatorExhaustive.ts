// Bounded-exhaustive traces at level `operator` (SPEC §3, §4): for each
// named scenario, a join config, a domain of records and a length N, either
//
// - `every-log`: every log of N records over the domain. Every shorter log
//   is a prefix of one of them, so these are exactly the maximal logs, each
//   run once (a prefix is never run on its own); or
// - `cover`: the state graph of the reference operator up to depth N, its
//   states told apart with their history's order (rows and matches in the
//   order they were bound: what an indexed operator's structures depend on),
//   and a trace per transition (a shortest path to the state, then the
//   record), none a prefix of another: deeper logs than every-log reaches,
//   one trace per distinct way of getting somewhere new.
//
// At every distinct state the traces reach, the scenario's probes are sent
// too: invalid records (J1: each check alone and every pair at once), which
// the operator must reject without a change, so that the order of the J1
// checks and their precedence over lateness and identity (J7) are seen from
// every state. A probe rides in the first trace that reaches its state.
import { OPERATOR_TRACE_FORMAT, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, OperatorTrace, RowRecord } from '../../spec/index.ts';
import {
  initialJoinState,
  initialOracleState,
  recordDomain,
  stepJoin,
  stepOracle,
  type JoinModelBounds,
  type JoinState,
  type OracleState,
} from '../../model/index.ts';
import { collidingRowsForEverySeparator, invalidRecords } from './edges.ts';
import { collisionScripts, everyCollision, rowCollisionScripts } from './separators.ts';

/** A named bounded scenario at level `operator`: a config, the records logs are made of, and how they are enumerated. */
export interface OperatorScenario {
  /** An operator scenario. */
  readonly kind: 'operator';
  /** The scenario's name. */
  readonly name: string;
  /** One line: what the scenario is about. */
  readonly description: string;
  /** The join config (J0). */
  readonly config: JoinConfig;
  /** The records logs are made of (valid and invalid alike; keep them in contract, J9). */
  readonly domain: readonly LogRecord[];
  /** N: logs of N records (every-log), or the depth of the graph (cover); unused by scripts. */
  readonly length: number;
  /** `scripts`: the logs are given (`scripts`), each run as it is: exhaustive over a class their builder enumerates. */
  readonly mode: 'every-log' | 'cover' | 'scripts';
  /** The logs of a `scripts` scenario, each a trace after the prelude; every record of one changes the state. */
  readonly scripts?: readonly (readonly LogRecord[])[];
  /** Records sent at every distinct state as probes: each must be rejected, changing nothing (J1). */
  readonly probes: readonly LogRecord[];
  /** Records every log starts with: the state the scenario starts from. */
  readonly prelude?: readonly LogRecord[];
}

/** An operator scenario's traces and the figures of what they cover. */
export interface OperatorCover {
  /** An operator scenario's cover. */
  readonly kind: 'operator';
  /** The scenario covered. */
  readonly scenario: OperatorScenario;
  /** Distinct states reached (told apart with their order, see the file comment). */
  readonly states: number;
  /** Transitions taken: records applied in a state (cover), or logs times their length (every-log, counted as a tree). */
  readonly transitions: number;
  /** The traces that cover it. */
  readonly traces: readonly OperatorTrace[];
  /** Steps over all traces, probes included. */
  readonly steps: number;
  /** Probes over all traces. */
  readonly probes: number;
  /** Probes per trace, by trace index. */
  readonly probesOf: readonly number[];
  /** Transitions per coverage label. */
  readonly labels: ReadonlyMap<string, number>;
  /** The coverage labels each trace takes. */
  readonly labelsOf: readonly (readonly string[])[];
}

/** A join state with its history's order (rows and matches as bound): what tells the cover's states apart. */
function orderedState(s: JoinState): string {
  return JSON.stringify([s.wm.L, s.wm.R, s.rows, s.matches]);
}

/**
 * The coverage labels of one record in one state (J7): its kind and
 * outcome, whether it had changes, whether a watermark evicted rows or
 * matches (J8), and whether a retraction retracted a match whose other
 * endpoint is already evicted (J6, J8).
 */
function labelsOfStep(before: JoinState, record: LogRecord, after: JoinState, step: ReturnType<typeof stepJoin>): string[] {
  const o = step.outcome;
  const labels = [`${record.kind}:${o.code}${o.code === 'rejected' ? `:${o.reason}` : ''}`];
  if (step.changes.length > 0) labels.push(`${record.kind}:changes`);
  if (record.kind === 'watermark' && after.rows.length < before.rows.length) labels.push('evict:row');
  if (record.kind === 'watermark' && after.matches.length < before.matches.length) labels.push('evict:match');
  if (record.kind === 'retract' && step.changes.length > 0) {
    const held = (side: 'L' | 'R', id: string): boolean => before.rows.some((r) => r.key === record.key && r.side === side && r.id === id);
    if (step.changes.some((c) => !held(record.side === 'L' ? 'R' : 'L', record.side === 'L' ? c.right : c.left)))
      labels.push('retract:match-with-evicted-endpoint');
  }
  return labels;
}

/** The labels the operator scenarios together must take (checked by `conform` at level operator). */
export function operatorCoverageLabels(): string[] {
  const rowReasons = ['empty_key', 'empty_id', 'bad_side', 'out_of_range', 'ts_before_start', 'ts_after_end', 'too_long', 'conflict'];
  return [
    ...['insert', 'retract'].flatMap((k) => [
      `${k}:accepted`,
      `${k}:duplicate`,
      `${k}:late`,
      `${k}:changes`,
      ...rowReasons.map((r) => `${k}:rejected:${r}`),
    ]),
    'watermark:accepted',
    'watermark:stale',
    'watermark:rejected:bad_side',
    'watermark:rejected:out_of_range',
    'evict:row',
    'evict:match',
    'retract:match-with-evicted-endpoint',
  ];
}

/** Builds the scenario's traces (see the file comment). Deterministic. */
export function coverOperatorScenario(scenario: OperatorScenario, options: { readonly probes?: boolean } = {}): OperatorCover {
  const steps = coverOperatorScenarioInSteps(scenario, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** `coverOperatorScenario` in steps: it yields between states and between logs, so a caller can take turns of the event loop. */
export function* coverOperatorScenarioInSteps(
  scenario: OperatorScenario,
  options: { readonly probes?: boolean } = {},
): Generator<void, OperatorCover, undefined> {
  const { config, domain, length } = scenario;
  if (scenario.mode === 'scripts') return yield* coverScripts(scenario, options);
  const probes = options.probes === false ? [] : scenario.probes;
  const labelIds = new Map<string, number>();
  const labelNames: string[] = [];
  const labels = new Map<string, number>();
  // A transition's labels are counted in `labels`; a probe's are not (it is no transition).
  const labelId = (l: string, transition = true): number => {
    if (transition) labels.set(l, (labels.get(l) ?? 0) + 1);
    let id = labelIds.get(l);
    if (id === undefined) {
      id = labelNames.length;
      labelIds.set(l, id);
      labelNames.push(l);
    }
    return id;
  };
  // One node per state: its successors by record index, memoized, with the labels of each transition.
  interface Node {
    readonly state: JoinState;
    readonly id: number;
    next?: { node: Node; labels: number[] }[];
  }
  const nodes = new Map<string, Node>();
  const nodeOf = (state: JoinState): Node => {
    const key = orderedState(state);
    let node = nodes.get(key);
    if (!node) {
      node = { state, id: nodes.size };
      nodes.set(key, node);
    }
    return node;
  };
  let transitions = 0;
  const successors = (node: Node): { node: Node; labels: number[] }[] => {
    if (!node.next) {
      node.next = domain.map((record) => {
        const step = stepJoin(config, node.state, record);
        transitions++;
        return { node: nodeOf(step.state), labels: labelsOfStep(node.state, record, step.state, step).map((l) => labelId(l)) };
      });
    }
    return node.next;
  };
  // The prelude: every log starts with it, in every state the same.
  const prelude = scenario.prelude ?? [];
  let start = initialJoinState;
  let startOracle = initialOracleState;
  for (const record of prelude) {
    start = stepJoin(config, start, record).state;
    startOracle = stepOracle(config, startOracle, record).state;
  }
  const root = nodeOf(start);
  // J9: a record that would break the input contract ends its log there (it is never sent); the oracle, which forgets nothing, decides.
  const inContract = (oracle: OracleState, r: number): OracleState | undefined => {
    const step = stepOracle(config, oracle, domain[r] as LogRecord);
    return step.contractViolation === undefined ? step.state : undefined;
  };
  // The logs, as record indexes into the domain, in lexicographic order.
  const logs: number[][] = [];
  if (scenario.mode === 'every-log') {
    const walk = function* (prefix: number[], node: Node, oracle: OracleState): Generator<void, void, undefined> {
      yield;
      if (prefix.length === length) {
        logs.push(prefix);
        return;
      }
      const next = successors(node);
      let extended = false;
      for (let r = 0; r < domain.length; r++) {
        const o = inContract(oracle, r);
        if (!o) continue;
        extended = true;
        yield* walk([...prefix, r], (next[r] as { node: Node }).node, o);
      }
      if (!extended && prefix.length > 0) logs.push(prefix);
    };
    yield* walk([], root, startOracle);
  } else {
    // Breadth-first to depth N; a trace per transition: a shortest path, then the record.
    const firstPath = new Map<number, { path: number[]; oracle: OracleState }>([[root.id, { path: [], oracle: startOracle }]]);
    let frontier: Node[] = [root];
    const sequences: number[][] = [];
    for (let depth = 0; depth < length; depth++) {
      const nextFrontier: Node[] = [];
      for (const node of frontier) {
        yield;
        const { path, oracle } = firstPath.get(node.id) as { path: number[]; oracle: OracleState };
        for (const [r, t] of successors(node).entries()) {
          const o = inContract(oracle, r);
          if (!o) continue;
          sequences.push([...path, r]);
          if (!firstPath.has(t.node.id)) {
            firstPath.set(t.node.id, { path: [...path, r], oracle: o });
            nextFrontier.push(t.node);
          }
        }
      }
      frontier = nextFrontier;
    }
    const sorted = sequences.sort((a, b) => {
      for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
      return a.length - b.length;
    });
    const isPrefix = (p: readonly number[], q: readonly number[]): boolean => p.length <= q.length && p.every((x, i) => x === q[i]);
    for (const [i, s] of sorted.entries()) if (i + 1 >= sorted.length || !isPrefix(s, sorted[i + 1] as number[])) logs.push(s);
  }
  // Probes: at the first visit of each distinct state, in log order.
  const probed = new Set<number>();
  const traces: OperatorTrace[] = [];
  const probesOf: number[] = [];
  const labelsOf: string[][] = [];
  let steps = 0;
  for (const [k, log] of logs.entries()) {
    yield;
    const records: LogRecord[] = [...prelude];
    const taken = new Set<number>();
    let node = root;
    let sent = 0;
    for (let p = 0; p <= log.length; p++) {
      if (probes.length > 0 && !probed.has(node.id)) {
        probed.add(node.id);
        records.push(...probes);
        sent += probes.length;
        for (const probe of probes) {
          const step = stepJoin(config, node.state, probe);
          for (const l of labelsOfStep(node.state, probe, step.state, step)) taken.add(labelId(l, false));
        }
      }
      if (p === log.length) break;
      const r = log[p] as number;
      const t = successors(node)[r] as { node: Node; labels: number[] };
      for (const l of t.labels) taken.add(l);
      records.push(domain[r] as LogRecord);
      node = t.node;
    }
    traces.push({
      format: OPERATOR_TRACE_FORMAT,
      name: `${scenario.name}-${k + 1}`,
      description: `Bounded-exhaustive operator scenario ${scenario.name}, log ${k + 1} of ${logs.length}: ${scenario.description}.`,
      config,
      steps: records.map((record) => ({ record })),
    });
    probesOf.push(sent);
    labelsOf.push([...taken].map((l) => labelNames[l] as string));
    steps += records.length;
  }
  return {
    kind: 'operator',
    scenario,
    states: nodes.size,
    transitions,
    traces,
    steps,
    probes: probesOf.reduce((a, b) => a + b, 0),
    probesOf,
    labels,
    labelsOf,
  };
}

/**
 * The cover of a `scripts` scenario: each script one trace (after the
 * prelude), the scenario's probes sent at the start of the first. Its states and
 * transitions are counted along the scripts (every record of one changes
 * the state, so none repeats within a script).
 */
function* coverScripts(scenario: OperatorScenario, options: { readonly probes?: boolean }): Generator<void, OperatorCover, undefined> {
  const { config } = scenario;
  const probes = options.probes === false ? [] : scenario.probes;
  const prelude = scenario.prelude ?? [];
  const labels = new Map<string, number>();
  const traces: OperatorTrace[] = [];
  const probesOf: number[] = [];
  const labelsOf: string[][] = [];
  let transitions = 0;
  let steps = 0;
  const scripts = scenario.scripts ?? [];
  for (const [k, script] of scripts.entries()) {
    yield;
    let state = initialJoinState;
    for (const record of prelude) state = stepJoin(config, state, record).state;
    const taken = new Set<string>();
    // Every script starts from the same state: its probes ride in the first.
    const sent = k === 0 ? probes : [];
    for (const probe of sent) {
      const step = stepJoin(config, state, probe);
      for (const l of labelsOfStep(state, probe, step.state, step)) taken.add(l);
    }
    for (const record of script) {
      const step = stepJoin(config, state, record);
      for (const l of labelsOfStep(state, record, step.state, step)) {
        taken.add(l);
        labels.set(l, (labels.get(l) ?? 0) + 1);
      }
      transitions++;
      state = step.state;
    }
    const records = [...prelude, ...sent, ...script];
    traces.push({
      format: OPERATOR_TRACE_FORMAT,
      name: `${scenario.name}-${k + 1}`,
      description: `Bounded-exhaustive operator scenario ${scenario.name}, log ${k + 1} of ${scripts.length}: ${scenario.description}.`,
      config,
      steps: records.map((record) => ({ record })),
    });
    probesOf.push(sent.length);
    labelsOf.push([...taken]);
    steps += records.length;
  }
  return {
    kind: 'operator',
    scenario,
    states: transitions + scripts.length,
    transitions,
    traces,
    steps,
    probes: probesOf.reduce((a, b) => a + b, 0),
    probesOf,
    labels,
    labelsOf,
  };
}

const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, ts: number, start: number, end: number): RowRecord => ({
  kind,
  key,
  side,
  id,
  ts,
  start,
  end,
});

/** A join preset's record domain (model/join/joinModel.ts) without its invalid records: those are probes here. */
function presetDomain(bounds: Omit<JoinModelBounds, 'invalid' | 'records'>): LogRecord[] {
  return recordDomain({ ...bounds, records: 0, invalid: false });
}

const smallJoin: JoinConfig = { allowedLateness: 0, maxIntervalLength: 1 };
const edgeJoin: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
const maxJoin: JoinConfig = { allowedLateness: TIME_MAX, maxIntervalLength: TIME_MAX };

const collidingJoin: JoinConfig = { allowedLateness: 0, maxIntervalLength: 0 };
let collidingSeparatorScripts: LogRecord[][] | undefined;

export const OPERATOR_SCENARIOS: readonly OperatorScenario[] = [
  {
    kind: 'operator',
    name: 'operator-every-log',
    description:
      'every log of 3 records over the join-small domain (one key, one id per side, times 0..1, L = 0, D = 1: inserts ' +
      'and retracts of every interval, watermarks of both sides from 0 to one past the largest horizon, so equal and ' +
      'stale ones), with every invalid record probed at every distinct state',
    config: smallJoin,
    domain: presetDomain({ keys: 1, ids: 1, maxTime: 1, allowedLateness: 0, maxIntervalLength: 1 }),
    length: 3,
    mode: 'every-log',
    probes: invalidRecords(smallJoin, { key: 'k1', id: 'a' }),
  },
  {
    kind: 'operator',
    name: 'operator-edges',
    description:
      'the operator state graph to depth 6 under L = 1, D = 2: a match whose endpoints are evicted one by one, the ' +
      'retraction of its live endpoint after the other is gone, rows at the lateness edge of gw = 4 (ts = gw - L = 3 ' +
      'on time, ts = 2 late), an interval of length D, and watermarks equal, below and above, at a horizon (gw = end ' +
      '+ L + D keeps) and past it (+ 1 evicts): every transition taken, with every invalid record probed at every ' +
      'distinct state',
    config: edgeJoin,
    domain: [
      row('insert', 'k1', 'L', 'a', 0, 0, 0),
      // Length D; a/b matches at 0.
      row('insert', 'k1', 'R', 'b', 2, 0, 2),
      // At gw = 4: ts = 3 = gw - L is on time (it overlaps b at 2), ts = 2 is late (J5).
      row('insert', 'k1', 'L', 'c', 3, 2, 3),
      row('insert', 'k1', 'R', 'd', 2, 2, 2),
      // At gw = 4, b (horizon 5) is on time and retracts a/b after a (horizon 3) is evicted (J6, J8).
      row('retract', 'k1', 'R', 'b', 2, 0, 2),
      row('retract', 'k1', 'L', 'a', 0, 0, 0),
      { kind: 'watermark', side: 'L', wm: 4 },
      { kind: 'watermark', side: 'R', wm: 4 },
      // gw = 5 = horizon(b): b is kept; gw = 6 evicts it, and a/b with it.
      { kind: 'watermark', side: 'R', wm: 5 },
      { kind: 'watermark', side: 'L', wm: 6 },
      { kind: 'watermark', side: 'R', wm: 6 },
    ],
    length: 6,
    mode: 'cover',
    probes: invalidRecords(edgeJoin, { key: 'k1', id: 'a' }),
  },
  {
    kind: 'operator',
    name: 'operator-extreme-bounds',
    description:
      'L = D = 2^50 and times at both ends of the range: intervals of length exactly D, the watermarks at -2^50, 0 ' +
      'and 2^50, an insert at ts = gw - L, retractions at horizons up to 3 * 2^50; every log of 4 records, with every ' +
      'invalid record probed at every distinct state',
    config: maxJoin,
    domain: [
      row('insert', 'k1', 'L', 'a', TIME_MIN, TIME_MIN, 0),
      row('insert', 'k1', 'R', 'b', TIME_MAX, 0, TIME_MAX),
      row('insert', 'k1', 'R', 'c', -1, -1, -1),
      row('retract', 'k1', 'L', 'a', TIME_MIN, TIME_MIN, 0),
      { kind: 'watermark', side: 'L', wm: TIME_MAX },
      { kind: 'watermark', side: 'R', wm: 0 },
      { kind: 'watermark', side: 'R', wm: TIME_MIN },
    ],
    length: 4,
    mode: 'every-log',
    probes: invalidRecords(maxJoin, { key: 'k1', id: 'a' }),
  },
  {
    kind: 'operator',
    name: 'operator-colliding-ids',
    description:
      'L = D = 0; every log starts with rows whose naive concatenation collides for every common separator (|, :, /, ' +
      'comma, -, space, none): in key k the matches (k, x, y{s}z) and (k, x{s}y, z), and in key k{s}x the match ' +
      '(k{s}x, y, z), all distinct (J3); then every log of 3 records retracting them and evicting them',
    config: collidingJoin,
    prelude: collidingRowsForEverySeparator('k', true),
    domain: [
      row('retract', 'k', 'L', 'x', 0, 0, 0),
      row('retract', 'k', 'R', 'z', 1, 1, 1),
      row('retract', 'k', 'L', 'x|y', 1, 1, 1),
      row('retract', 'k x', 'R', 'z', 1, 1, 1),
      { kind: 'watermark', side: 'L', wm: 1 },
      { kind: 'watermark', side: 'R', wm: 1 },
      { kind: 'watermark', side: 'R', wm: 2 },
    ],
    length: 3,
    mode: 'every-log',
    probes: invalidRecords(collidingJoin, { key: 'k', id: 'x' }),
  },
  {
    kind: 'operator',
    name: 'operator-colliding-separators',
    description:
      'L = D = 0; for every separator S of zero, one or two characters from printable ASCII punctuation, the space and the side letters ' +
      'L and R (the empty one concatenates the parts), every punctuation-letter-punctuation triple (|R:, ,L=) and every quoted punctuation (","), the sandwich ' +
      'left x, left x{S}y, right y{S}z, right z in a key of its own, whose matches (x, y{S}z) and (x{S}y, z) a naive ' +
      'id P+left+S+right+Q files alike; and ids with escape characters (backslash, quotes, %) that collide under an ' +
      'encoding which escapes S but not its escape; in chunks of 16 keys, each inserted, its colliding matches ' +
      'retracted one endpoint each and evicted (J3); and for every S the rows of two keys that a naive row identity ' +
      'files as one: (K, A, u{S}v) and (K{S}u, B, v) under key+S+id (B the same side and the other), (K, A, u{S}B{S}v) ' +
      'and (K{S}A{S}u, B, v) under key+S+side+S+id, and for a triple a{l}b (K, l, u{a}B{b}v) and (K{a}l{b}u, B, v), ' +
      'in chunks of 32, both inserted, the first retracted, evicted (J2)',
    config: collidingJoin,
    domain: [],
    length: 0,
    mode: 'scripts',
    probes: invalidRecords(collidingJoin, { key: 's0', id: 'x' }),
    // Built when first asked for (some 20,000 records): not at every start of the command.
    get scripts() {
      collidingSeparatorScripts ??= [...collisionScripts(everyCollision(), 16), ...rowCollisionScripts(32)];
      return collidingSeparatorScripts;
    },
  },
];
