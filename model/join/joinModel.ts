// The reference join as a Model for the explorer: a state is the operator's
// state, the oracle's state and the log length; an action appends one record
// from a small domain (every insert and retract over a few keys, ids, sides
// and times, every watermark that can matter, and a few invalid records).
// Exhausting it for N records checks JoinCorrect and BoundedState (SPEC J7,
// J8) on every log of length <= N in the domain that keeps the input
// contract (J9).
import { matchId, schemaError } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, Side } from '../../spec/index.ts';
import { initialJoinState, isRetained, globalWatermark, stepJoin } from './join.ts';
import type { JoinState, JoinStep, MatchState, RowState } from './join.ts';
import { horizonRetained, identityString, initialOracleState, stepOracle } from './oracle.ts';
import type { Goal, Invariant, Model } from '../explorer/index.ts';
import { joinCodec } from './codec.ts';
import type { JoinModelState } from './joinModelState.ts';

/** The bound: the record domain and the log length. */
export interface JoinModelBounds {
  /** N: logs of at most this many records. */
  readonly records: number;
  /** Keys `k1`, `k2`, … */
  readonly keys: number;
  /** Row ids `a`, `b`, … (the same set for every key and side). */
  readonly ids: number;
  /** Row times lie in [0, maxTime]; watermarks in [0, maxTime + L + D + 1] (enough to evict every row). */
  readonly maxTime: number;
  /** L, the allowed lateness (J0). */
  readonly allowedLateness: number;
  /** D, the largest interval length (J0). */
  readonly maxIntervalLength: number;
  /** Include a few invalid records (J1), one per kind of check. */
  readonly invalid: boolean;
}

/** The operator's step function: `stepJoin`, or a deliberately broken variant in tests and ablations. */
export type OperatorStepFunction = (config: JoinConfig, state: JoinState, record: LogRecord) => JoinStep;

/** An action appends this record to the log. */
export type JoinAction = LogRecord;

const letters = 'abcdefghijklmnopqrstuvwxyz';

export function keyNames(bounds: JoinModelBounds): string[] {
  return Array.from({ length: bounds.keys }, (_, i) => `k${i + 1}`);
}

export function idNames(bounds: JoinModelBounds): string[] {
  return Array.from({ length: bounds.ids }, (_, i) => letters[i] ?? `id${i}`);
}

/** Every record the model may append, in a fixed order. */
export function recordDomain(bounds: JoinModelBounds): LogRecord[] {
  const { maxTime, allowedLateness: L, maxIntervalLength: D } = bounds;
  const domain: LogRecord[] = [];
  for (const kind of ['insert', 'retract'] as const) {
    for (const key of keyNames(bounds)) {
      for (const side of ['L', 'R'] as const) {
        for (const id of idNames(bounds)) {
          for (let start = 0; start <= maxTime; start++) {
            for (let end = start; end <= Math.min(start + D, maxTime); end++) {
              for (let ts = start; ts <= end; ts++) domain.push({ kind, key, side, id, ts, start, end });
            }
          }
        }
      }
    }
  }
  // Watermarks up to one past the largest horizon, so every row can be evicted (J8).
  for (const side of ['L', 'R'] as const) {
    for (let wm = 0; wm <= maxTime + L + D + 1; wm++) domain.push({ kind: 'watermark', side, wm });
  }
  if (bounds.invalid) {
    const key = keyNames(bounds)[0] ?? 'k1';
    const id = idNames(bounds)[0] ?? 'a';
    domain.push(
      { kind: 'insert', key: '', side: 'L', id, ts: 0, start: 0, end: 0 },
      { kind: 'retract', key, side: 'R', id, ts: 1, start: 0, end: 0 },
      { kind: 'insert', key, side: 'L', id, ts: 0, start: 0, end: D + 1 },
      { kind: 'watermark', side: 'X', wm: 0 },
    );
  }
  return domain;
}

/** One line for people. */
export function describeRecord(r: LogRecord): string {
  if (r.kind === 'watermark') return `watermark ${JSON.stringify(r.side)} ${r.wm}`;
  const row = r as Extract<LogRecord, { key: string }>;
  return `${row.kind} key=${JSON.stringify(row.key)} ${JSON.stringify(row.side)} id=${JSON.stringify(row.id)} ts=${row.ts} [${row.start},${row.end}]`;
}

function lastCode(record: LogRecord, step: { readonly outcome: JoinStep['outcome'] }): string {
  return `${record.kind}:${step.outcome.code}${step.outcome.reason ? `:${step.outcome.reason}` : ''}`;
}

const observables = (s: Pick<JoinStep, 'outcome' | 'changes'>): string => JSON.stringify({ outcome: s.outcome, changes: s.changes });

/** Same outcome and the same set of changes (both sides list changes in canonical order, J7). */
function sameObservables(a: Pick<JoinStep, 'outcome' | 'changes'>, b: Pick<JoinStep, 'outcome' | 'changes'>): boolean {
  if (a.outcome.code !== b.outcome.code || a.outcome.reason !== b.outcome.reason || a.changes.length !== b.changes.length) return false;
  return a.changes.every((c, i) => c.op === b.changes[i]?.op && c.match === b.changes[i]?.match);
}

/** The retained set of an operator state in `horizonRetained`'s terms (J8, BoundedState). */
function retainedSet(op: JoinState): { rows: string[]; matches: string[] } {
  return {
    rows: op.rows.map((r) => `${identityString(r)}${r.live ? '' : '†'}`).sort(),
    matches: op.matches.map((m) => matchId(m.key, m.left, m.right)).sort(),
  };
}

/** A renaming of keys, and of ids per (key, side): an element of the model's symmetry group. */
export interface Renaming {
  readonly key: ReadonlyMap<string, string>;
  /** Keyed by `${originalKey}/${side}`. */
  readonly id: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

function product<T>(lists: readonly (readonly T[])[]): T[][] {
  return lists.reduce<T[][]>((acc, list) => acc.flatMap((prefix) => list.map((x) => [...prefix, x])), [[]]);
}

/** Every renaming but the identity: keys! · (ids!)^(2·keys) − 1 elements. */
function isIdentity(g: Renaming): boolean {
  for (const [a, b] of g.key) if (a !== b) return false;
  for (const m of g.id.values()) for (const [a, b] of m) if (a !== b) return false;
  return true;
}

export function symmetryGroup(bounds: JoinModelBounds): Renaming[] {
  const keys = keyNames(bounds);
  const ids = idNames(bounds);
  const idPerms = permutations(ids);
  const slots = keys.flatMap((k) => [`${k}/L`, `${k}/R`]);
  const idChoices = product(slots.map(() => idPerms));
  const all = permutations(keys).flatMap((keyPerm) =>
    idChoices.map((choice) => ({
      key: new Map(keys.map((k, i) => [k, keyPerm[i] as string])),
      id: new Map(slots.map((slot, i) => [slot, new Map(ids.map((x, j) => [x, (choice[i] as string[])[j] as string]))])),
    })),
  );
  return all.filter((g) => !isIdentity(g));
}

function renameRow(g: Renaming, r: RowState): RowState {
  const id = g.id.get(`${r.key}/${r.side}`)?.get(r.id) ?? r.id;
  return { ...r, key: g.key.get(r.key) ?? r.key, id };
}

function renameMatch(g: Renaming, m: MatchState): MatchState {
  return {
    key: g.key.get(m.key) ?? m.key,
    left: g.id.get(`${m.key}/L`)?.get(m.left) ?? m.left,
    right: g.id.get(`${m.key}/R`)?.get(m.right) ?? m.right,
  };
}

export function renameState(g: Renaming, s: JoinModelState): JoinModelState {
  return {
    ...s,
    op: { wm: s.op.wm, rows: s.op.rows.map((r) => renameRow(g, r)), matches: s.op.matches.map((m) => renameMatch(g, m)) },
    oracle: { wm: s.oracle.wm, rows: s.oracle.rows.map((r) => renameRow(g, r)) },
  };
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A row's content without its names: what no renaming changes. */
const contentCode = (r: RowState): string => `${r.ts} ${r.start} ${r.end}${r.live ? '' : '†'}`;

/**
 * The renamings worth trying for the canonical member of `s`'s orbit: keys
 * sorted by a name-free signature, and within each (key, side) the ids
 * sorted by theirs; only ties among ids (or keys) that occur in the state
 * are tried in every order (ids that occur nowhere can take any of the
 * remaining names: the state does not change). Since signatures do not
 * depend on names, renaming `s` first renames these candidates along with
 * it, so the least encoding over them is the same for every member of the
 * orbit: a canonical representative, usually found with one candidate
 * instead of the whole group (keys! · (ids!)^(2·keys) elements).
 */
function canonicalCandidates(s: JoinModelState, keys: readonly string[], ids: readonly string[]): Renaming[] {
  interface Identity {
    readonly key: string;
    readonly side: Side;
    readonly id: string;
    op: string;
    oracle: string;
    readonly partners: string[];
  }
  const byIdentity = new Map<string, Identity>();
  const identity = (key: string, side: Side, id: string): Identity => {
    const name = `${key}/${side}/${id}`;
    let e = byIdentity.get(name);
    if (!e) {
      e = { key, side, id, op: '-', oracle: '-', partners: [] };
      byIdentity.set(name, e);
    }
    return e;
  };
  for (const r of s.oracle.rows) identity(r.key, r.side, r.id).oracle = contentCode(r);
  for (const r of s.op.rows) identity(r.key, r.side, r.id).op = contentCode(r);
  for (const m of s.op.matches) {
    const l = identity(m.key, 'L', m.left);
    const r = identity(m.key, 'R', m.right);
    l.partners.push(r.oracle !== '-' ? r.oracle : r.op);
    r.partners.push(l.oracle !== '-' ? l.oracle : l.op);
  }
  // Name-free signatures: of each identity, and of each key (its identities' signatures by side).
  const slotSigs = new Map<string, { x: string; q: string }[]>();
  const keyParts = new Map<string, string[]>();
  for (const e of byIdentity.values()) {
    const q = `${e.op}/${e.oracle}/${e.partners.sort(byText).join(',')}`;
    const slot = `${e.key}/${e.side}`;
    const list = slotSigs.get(slot);
    if (list) list.push({ x: e.id, q });
    else slotSigs.set(slot, [{ x: e.id, q }]);
    const parts = keyParts.get(e.key);
    if (parts) parts.push(`${e.side}:${q}`);
    else keyParts.set(e.key, [`${e.side}:${q}`]);
  }
  /** Every order of `items`: signed ones by signature (each run of equal signatures in every order), then the absent ones. */
  const orders = (items: readonly string[], signed: { x: string; q: string }[]): string[][] => {
    const present = new Set(signed.map((e) => e.x));
    const absent = items.filter((x) => !present.has(x));
    signed.sort((a, b) => byText(a.q, b.q));
    const runs: string[][] = [];
    let previous: string | undefined;
    for (const { x, q } of signed) {
      if (q === previous) (runs[runs.length - 1] as string[]).push(x);
      else runs.push([x]);
      previous = q;
    }
    if (runs.length === signed.length) return [[...signed.map((e) => e.x), ...absent]];
    return product(runs.map((run) => permutations(run))).map((choice) => [...choice.flat(), ...absent]);
  };
  const keyOrders = orders(
    keys,
    [...keyParts].map(([x, parts]) => ({ x, q: parts.sort(byText).join(';') })),
  );
  const slots = keys.flatMap((k) => [`${k}/L`, `${k}/R`]);
  const idOrders = product(slots.map((slot) => orders(ids, slotSigs.get(slot) ?? [])));
  return keyOrders.flatMap((keyOrder) =>
    idOrders.map((choice) => ({
      // the i-th key in signature order takes the i-th name, likewise ids within each original (key, side)
      key: new Map(keyOrder.map((k, i) => [k, keys[i] as string])),
      id: new Map(slots.map((slot, i) => [slot, new Map((choice[i] as string[]).map((x, j) => [x, ids[j] as string]))])),
    })),
  );
}

/**
 * Canonical encoding, under a renaming `g` (none: the state as it is). Row
 * and match order is history, not state, so each list is sorted. Keys and
 * ids come from the model's own domain (`k1`…, `a`…, or the empty key of an
 * invalid record, which is never bound), so they contain no separator.
 */
function encodeUnder(s: JoinModelState, g: Renaming | undefined): string {
  if (s.outOfContract) return 'J9';
  const key = (k: string): string => (g ? (g.key.get(k) ?? k) : k);
  const id = (k: string, side: Side, x: string): string => (g ? (g.id.get(`${k}/${side}`)?.get(x) ?? x) : x);
  const row = (r: RowState): string =>
    `${key(r.key)} ${r.side} ${id(r.key, r.side, r.id)} ${r.ts} ${r.start} ${r.end}${r.live ? '' : ' †'}`;
  const rows = s.op.rows.map(row).sort(byText).join(';');
  const matches = s.op.matches
    .map((m) => `${key(m.key)} ${id(m.key, 'L', m.left)} ${id(m.key, 'R', m.right)}`)
    .sort(byText)
    .join(';');
  const oracleRows = s.oracle.rows.map(row).sort(byText).join(';');
  const wm = (w: JoinState['wm']): string => `${String(w.L)},${String(w.R)}`;
  return `${s.length}|${s.last}|${s.mismatch === undefined ? '' : '!'}|${wm(s.op.wm)}|${rows}|${matches}|${wm(s.oracle.wm)}|${oracleRows}`;
}

/** Options of `joinModel`. */
export interface JoinModelOptions {
  /** The workload the explorer enumerates. */
  readonly bounds: JoinModelBounds;
  /** The operator under check (default: the reference `stepJoin`). */
  readonly operator?: OperatorStepFunction;
  /** Name in reports (default `join`). */
  readonly name?: string;
}

/**
 * The join model. Invariants: JoinCorrect (operator outcome and changes
 * equal the oracle's for every record) and BoundedState (the operator
 * retains exactly the rows and matches J8 says). Goals show the bound
 * reaches the corners that matter.
 *
 * Symmetry (ids and keys). Renaming keys by a permutation, and the ids of
 * each (key, side) by a permutation of their own, maps the record domain onto
 * itself and commutes with every rule: J1–J9 compare keys, sides and ids
 * only for equality (and order them only to sort changes, which are compared
 * as sets), and the match id J3 is an injective function of (key, left id,
 * right id), so renamed rows yield the renamed matches. The invariants
 * compare operator and oracle under the same renaming, and the goals read
 * outcomes and times only, so every property is preserved. Times are not
 * symmetric (lateness and horizons compare them) and are left alone; invalid
 * records use the empty key and are fixed by every renaming.
 */
export function joinModel(options: JoinModelOptions): Model<JoinModelState, JoinAction> {
  const { bounds } = options;
  const config: JoinConfig = { allowedLateness: bounds.allowedLateness, maxIntervalLength: bounds.maxIntervalLength };
  const operator = options.operator ?? stepJoin;
  const domain = recordDomain(bounds);
  const none: readonly JoinAction[] = [];
  const keys = keyNames(bounds);
  const ids = idNames(bounds);
  const symmetric = keys.length > 1 || ids.length > 1;
  let lastRepresentative: JoinModelState | undefined;
  let lastEncoding = '';

  const invariants: Invariant<JoinModelState>[] = [
    { name: 'JoinCorrect', check: (s) => (s.outOfContract ? undefined : s.mismatch) },
    {
      name: 'BoundedState',
      check: (s) => {
        if (s.outOfContract) return undefined;
        const want = horizonRetained(config, s.oracle);
        const have = retainedSet(s.op);
        if (JSON.stringify(want) === JSON.stringify(have)) return undefined;
        return `retained ${JSON.stringify(have)} but the horizon rule (J8) retains ${JSON.stringify(want)}`;
      },
    },
  ];

  const endpointEvicted = (s: JoinModelState): boolean => {
    const held = (key: string, side: Side, id: string): boolean => s.op.rows.some((r) => r.key === key && r.side === side && r.id === id);
    return s.op.matches.some((m) => !held(m.key, 'L', m.left) || !held(m.key, 'R', m.right));
  };
  const goals: Goal<JoinModelState>[] = [
    { name: 'LateInsert', reached: (s) => s.last === 'insert:late' },
    { name: 'LateRetract', reached: (s) => s.last === 'retract:late' },
    { name: 'Conflict', reached: (s) => s.last.endsWith(':rejected:conflict') },
    { name: 'StaleWatermark', reached: (s) => s.last === 'watermark:stale' },
    { name: 'DuplicateInsertOfTombstone', reached: (s) => s.last === 'insert:duplicate' && s.op.rows.some((r) => !r.live) },
    {
      name: 'TombstoneEvicted',
      reached: (s) => !s.outOfContract && s.oracle.rows.some((r) => !r.live && !isRetained(r.end, globalWatermark(s.oracle.wm), config)),
    },
    { name: 'MatchOutlivesEndpoint', reached: (s) => !s.outOfContract && endpointEvicted(s) },
    ...(bounds.invalid ? [{ name: 'InvalidRejected', reached: (s: JoinModelState) => /:rejected:(?!conflict)/.test(s.last) }] : []),
  ];

  // The canonical member: the least encoding over the candidate renamings
  // (see canonicalCandidates). The encoding of the member returned is
  // remembered, since the checker encodes it next.
  const representative = (s: JoinModelState): JoinModelState => {
    if (s.outOfContract || !symmetric || s.oracle.rows.length === 0) return s;
    const candidates = canonicalCandidates(s, keys, ids);
    const only = candidates.length === 1 ? candidates[0] : undefined;
    if (only !== undefined && isIdentity(only)) return s;
    let best: Renaming | undefined;
    let bestCode: string | undefined;
    for (const g of candidates) {
      const code = encodeUnder(s, g);
      if (bestCode === undefined || code < bestCode) {
        best = g;
        bestCode = code;
      }
    }
    const t = best ? renameState(best, s) : s;
    lastRepresentative = t;
    lastEncoding = bestCode ?? encodeUnder(s, undefined);
    return t;
  };

  const model: Model<JoinModelState, JoinAction> = {
    name: options.name ?? 'join',
    initialStates: () => [{ op: initialJoinState, oracle: initialOracleState, length: 0, last: '', outOfContract: false }],
    actions: (s) => (s.length < bounds.records ? domain : none),
    next: (s, record) => {
      const truth = stepOracle(config, s.oracle, record);
      if (truth.contractViolation !== undefined) return { ...s, length: s.length + 1, outOfContract: true };
      const step = operator(config, s.op, record);
      let mismatch = s.mismatch;
      if (mismatch === undefined && !sameObservables(step, truth)) {
        mismatch = `record ${s.length} (${describeRecord(record)}): operator ${observables(step)} but oracle ${observables(truth)}`;
      }
      return {
        op: step.state,
        oracle: truth.state,
        length: s.length + 1,
        last: lastCode(record, truth),
        ...(mismatch !== undefined ? { mismatch } : {}),
        outOfContract: false,
      };
    },
    encode: (s) => (s === lastRepresentative ? lastEncoding : encodeUnder(s, undefined)),
    // J9: a log that breaks the contract is outside the model.
    withinBoundary: (s) => !s.outOfContract,
    actionKind: (r) => r.kind,
    describeAction: describeRecord,
    expectedActionKinds: ['insert', 'retract', 'watermark'],
    invariants,
    goals,
    representative,
    // Compact bytes for the frontier and fingerprints (codec.ts); symmetric through `representative`.
    codec: joinCodec(symmetric ? representative : undefined),
    actionToJson: (r) => r,
    actionFromJson: (json) => {
      const err = schemaError('record', json);
      if (err) throw new Error(`not a log record: ${err.text}`);
      return json as LogRecord;
    },
    stateToJson: (s) => ({
      length: s.length,
      last: s.last,
      ...(s.mismatch !== undefined ? { mismatch: s.mismatch } : {}),
      ...(s.outOfContract ? { outOfContract: true } : {}),
      watermarks: s.op.wm,
      rows: s.op.rows.map((r) => `${r.live ? '' : '†'}${r.key}/${r.side}/${r.id} ts=${r.ts} [${r.start},${r.end}]`),
      matches: s.op.matches.map((m) => matchId(m.key, m.left, m.right)),
      oracleRows: s.oracle.rows.map((r) => `${r.live ? '' : '†'}${r.key}/${r.side}/${r.id} ts=${r.ts} [${r.start},${r.end}]`),
    }),
  };
  return model;
}

/**
 * Protocol elements of the single-partition join that `--ablate` can switch
 * off, each as a wrapper around the operator's step function. Checking the
 * model with one switched off shows the element is necessary (a
 * counterexample) or redundant (a pass); SPEC §6, P8 Necessity.
 */
export const JOIN_ABLATIONS: Readonly<
  Record<string, { readonly description: string; wrap(step: OperatorStepFunction): OperatorStepFunction }>
> = {
  'strict-eviction': {
    description: 'J8: evict a row when gw > end + L + D; ablated: one tick early, at gw >= end + L + D',
    wrap: (step) => (config, state, record) => {
      const out = step(config, state, record);
      if (record.kind !== 'watermark' || out.outcome.code !== 'accepted') return out;
      const gw = globalWatermark(out.state.wm);
      const rows = out.state.rows.filter((r) => gw === null || gw < r.end + config.allowedLateness + config.maxIntervalLength);
      const held = (key: string, side: Side, id: string): boolean => rows.some((r) => r.key === key && r.side === side && r.id === id);
      const matches = out.state.matches.filter((m) => held(m.key, 'L', m.left) || held(m.key, 'R', m.right));
      return { ...out, state: { wm: out.state.wm, rows, matches } };
    },
  },
  'match-retention': {
    description: 'J8: keep a match while either endpoint is retained; ablated: drop it once either endpoint is evicted',
    wrap: (step) => (config, state, record) => {
      const out = step(config, state, record);
      const held = (key: string, side: Side, id: string): boolean =>
        out.state.rows.some((r) => r.key === key && r.side === side && r.id === id);
      const matches = out.state.matches.filter((m) => held(m.key, 'L', m.left) && held(m.key, 'R', m.right));
      return matches.length === out.state.matches.length ? out : { ...out, state: { ...out.state, matches } };
    },
  },
  'retract-tombstone': {
    description: 'J6: a retract of an unknown row binds a tombstone; ablated: it is dropped, so the row can come back',
    wrap: (step) => (config, state, record) => {
      const out = step(config, state, record);
      if (record.kind !== 'retract' || out.outcome.code !== 'accepted' || out.state.rows.length === state.rows.length) return out;
      return { ...out, state };
    },
  },
};
