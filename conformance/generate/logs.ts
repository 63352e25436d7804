// fast-check generators for configs and logs over small domains, so that
// ids, keys and times collide often: redeliveries, conflicts, retractions of
// known rows, overtaking retractions, stale watermarks and evictions all
// happen in short logs. Every generated log is in contract (J9): records that
// would break it are dropped, so shrinking stays inside the contract too.
import fc from 'fast-check';
//
// Every numeric field is also drawn at the exact edges of the rules, computed
// from the state the record will meet (the watermarks are tracked as J4
// moves them): an insert at ts = gw - L and one tick earlier (J5),
// watermarks equal to, one below and one above the current one (J4), both
// watermarks at a row's horizon and one past it followed by that row's
// retraction (J6, J8), intervals of length D and D + 1 (J1), rows and
// watermarks at -2^50 and 2^50, every invalid record failing one J1 check
// or two at once (J1's order), and conflicts differing in each nonempty
// subset of ts, start and end (J2). Configs take L and D at 0 and at 2^50 too
// (`boundsArbitrary`).
import { OPERATOR_TRACE_FORMAT, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, OperatorTrace, RowRecord, Watermarks } from '../../spec/index.ts';
import { contractChecker, globalWatermark, validityOf } from '../../model/index.ts';
import {
  BOUND_EDGES,
  COMMON_SEPARATORS,
  collidingNames,
  collidingRows,
  conflictOf,
  invalidRecords,
  LOOSELY_EQUAL,
  lineBreakNames,
  looselyEqualNames,
} from './edges.ts';
import { drainingWatermarks, wideConfiguredLogArbitrary, wideDomain, type WideDomain } from './wideLogs.ts';
import {
  burstRecipes,
  collisionBurstArbitrary,
  collisionOf,
  collisionRows,
  rowAt,
  rowCollisions,
  type CollisionBurst,
} from './separators.ts';

/** What random logs are drawn from: keys, ids, times and length. */
export interface LogDomain {
  /** The keys. */
  readonly keys: readonly string[];
  /** The row ids. */
  readonly ids: readonly string[];
  /** Times are drawn from [0, maxTime]. */
  readonly maxTime: number;
  /** Most records in a log. */
  readonly maxRecords: number;
  /** Include records that fail J1 validity. */
  readonly invalid: boolean;
  /**
   * Keys and ids collide when concatenated naively with a common separator
   * (edges.ts `collidingNames`): logs then also insert colliding pairs
   * together, so that both matches of a collision are live at once (J3);
   * and each log carries one burst of collisions for separators of every
   * shape (separators.ts): a slice of the whole class and some random ones.
   */
  readonly colliding?: boolean;
  /**
   * Names equal under a loose comparison (edges.ts `LOOSELY_EQUAL`): logs then
   * carry one burst (`looseRecords`) in which, for every group of the class,
   * every member is an id bound at once in one key and side, and every member
   * a key with a match of its own.
   */
  readonly loose?: boolean;
}

/**
 * The collisions of one burst (separators.ts `collisionBurstArbitrary`):
 * BURST_SLICE consecutive members of the class, up to BURST_RANDOM of
 * random separators. 3,542 in the class: about 36 colliding traces, one
 * random operator trace in 7, meet each member once on average.
 */
const BURST_SLICE = 96;
const BURST_RANDOM = 16;

export const smallDomain: LogDomain = { keys: ['k1', 'k2'], ids: ['a', 'b', 'c', 'd', 'e'], maxTime: 5, maxRecords: 18, invalid: true };

/**
 * The same sizes with odd names: keys and ids that break naive object maps
 * (`__proto__`, `constructor`), need the match-id encoding's escapes (`/`,
 * `%`), or make an unescaped `"L:"+a+"|R:"+b` ambiguous (`|R:`).
 */
export const oddDomain: LogDomain = {
  ...smallDomain,
  keys: ['__proto__', 'k/%2F', 'constructor'],
  ids: ['a|R:b', 'a', 'b|R:', '%', 'x/y'],
};

/** Keys and ids that collide under a naive match-id encoding with any common separator (J3, edges.ts `collidingNames`). */
export const collidingDomain: LogDomain = { ...smallDomain, ...collidingNames(), colliding: true };

/** Keys and ids with every line break of the class inside them (edges.ts `LINE_BREAKS`; J1: any non-empty string). */
export const lineBreakDomain: LogDomain = { ...smallDomain, ...lineBreakNames() };

/** One domain per group of names equal under a loose comparison (edges.ts `LOOSELY_EQUAL`): its members as keys and ids. */
export const looselyEqualDomains: readonly LogDomain[] = LOOSELY_EQUAL.map((group) => ({
  ...smallDomain,
  ...looselyEqualNames(group),
  loose: true,
}));

/** Small L and D (J0) so that horizons are reached within short logs. */
export function configArbitrary(): fc.Arbitrary<JoinConfig> {
  return fc.record({ allowedLateness: fc.integer({ min: 0, max: 2 }), maxIntervalLength: fc.integer({ min: 0, max: 3 }) });
}

/** L and D small mostly, and at both ends of their range (0 and 2^50, J0) in about one config in four each. */
export function boundsArbitrary(): fc.Arbitrary<JoinConfig> {
  const bound = (max: number): fc.Arbitrary<number> =>
    fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max }) }, { weight: 1, arbitrary: fc.constantFrom(...BOUND_EDGES) });
  return fc.record({ allowedLateness: bound(2), maxIntervalLength: bound(3) });
}

/**
 * The first value three times as often as each other one: rows crowd onto
 * one key, so matches (and multi-match change sets) are common, while the
 * other keys still test isolation.
 */
function firstMostly<T>(values: readonly T[]): fc.Arbitrary<T> {
  const [first, ...rest] = values;
  if (first === undefined) throw new Error('empty domain');
  if (rest.length === 0) return fc.constant(first);
  return fc.oneof({ weight: 3 * rest.length, arbitrary: fc.constant(first) }, { weight: rest.length, arbitrary: fc.constantFrom(...rest) });
}

function rowArbitrary(domain: LogDomain, config: JoinConfig): fc.Arbitrary<RowRecord> {
  return fc
    .record({
      // Mostly inserts: retracts of known rows come from re-sends (below);
      // a fresh retract is a retract that overtakes its insert.
      kind: fc.oneof({ weight: 4, arbitrary: fc.constant('insert' as const) }, { weight: 1, arbitrary: fc.constant('retract' as const) }),
      key: firstMostly(domain.keys),
      side: fc.constantFrom('L', 'R'),
      id: fc.constantFrom(...domain.ids),
      start: fc.integer({ min: 0, max: domain.maxTime }),
      // Within D; the edge steps (below) draw lengths D and D + 1 whatever D is.
      length: fc.integer({ min: 0, max: Math.min(config.maxIntervalLength, domain.maxTime) }),
      offset: fc.nat(),
    })
    .map(({ kind, key, side, id, start, length, offset }) => ({
      kind,
      key,
      side,
      id,
      ts: start + (offset % (length + 1)),
      start,
      end: start + length,
    }));
}

function invalidArbitrary(domain: LogDomain, config: JoinConfig): fc.Arbitrary<LogRecord> {
  const t = fc.integer({ min: -1, max: domain.maxTime + 1 });
  // Every J1 failure alone and every pair at once: the reason shows the order of the checks.
  const edges = invalidRecords(config, { key: domain.keys[0] ?? 'k1', id: domain.ids[0] ?? 'a' });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...edges) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constantFrom('insert' as const, 'retract' as const),
        key: fc.constantFrom('', ...domain.keys),
        side: fc.constantFrom('L', 'R', 'X', ''),
        id: fc.constantFrom('', ...domain.ids),
        ts: fc.oneof(t, fc.constant(2 ** 50 + 1)),
        start: t,
        end: t,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('watermark' as const), side: fc.constantFrom('X', 'l'), wm: t }) },
  );
}

/**
 * One generated step: a fresh record as drawn (an invalid one), or a row of
 * the domain's times moved to the log's origin (`timed`); a watermark that moves one side by
 * `step` (-1..2, so stale ones occur) from where that side is; a re-send of
 * an earlier row record (possibly as the other kind); or both watermarks
 * moved to an earlier row's horizon (J8) plus `delta` in -1..1, so that the
 * boundaries of J5, J6 and J8 are hit often rather than by luck. Watermarks
 * advance gradually, so a log of a dozen records spans the time domain.
 */
type LogOp =
  | { readonly fresh: LogRecord }
  | { readonly timed: RowRecord }
  | { readonly watermark: 'L' | 'R'; readonly step: number }
  | { readonly resend: number; readonly as: 'same' | 'insert' | 'retract' | 'conflict' | 'mirror'; readonly moved: number }
  | { readonly horizonOf: number; readonly delta: number; readonly thenRetract: boolean }
  | { readonly edge: EdgeStep }
  | { readonly collide: { t: number; which: number } }
  | { readonly burst: CollisionBurst; readonly t: number }
  | { readonly loose: number };

/**
 * A record at an exact edge of a rule, computed when the log is built from
 * the state it will meet: `lateness` an insert at ts = gw - L + delta
 * (delta 0: on time; -1: late, J5); `watermark` the current watermark of a
 * side plus delta (-1, 0: stale; 1: accepted, J4); `length` a row of length
 * D + extra (extra 0: valid; 1: too_long, J1); `extreme` a row or watermark
 * at -2^50 or 2^50 (§0), or at the sign boundary: both watermarks at 0,
 * after a row whose horizon is -1 (J8) or alone.
 */
export type EdgeStep =
  | { readonly kind: 'lateness'; readonly delta: 0 | -1; readonly side: 'L' | 'R'; readonly id: number; readonly length: number }
  | { readonly kind: 'watermark'; readonly side: 'L' | 'R'; readonly delta: -1 | 0 | 1 }
  | { readonly kind: 'length'; readonly extra: 0 | 1; readonly side: 'L' | 'R'; readonly id: number }
  | {
      readonly kind: 'extreme';
      readonly at: 'min' | 'zero' | 'max';
      readonly what: 'row' | 'watermark';
      readonly side: 'L' | 'R';
      readonly id: number;
    };

export function edgeStepArbitrary(ids: number): fc.Arbitrary<EdgeStep> {
  const side = fc.constantFrom('L' as const, 'R' as const);
  const id = fc.nat({ max: Math.max(0, ids - 1) });
  return fc.oneof(
    fc.record({
      kind: fc.constant('lateness' as const),
      delta: fc.constantFrom(0 as const, -1 as const),
      side,
      id,
      length: fc.nat({ max: 2 }),
    }),
    fc.record({ kind: fc.constant('watermark' as const), side, delta: fc.constantFrom(-1 as const, 0 as const, 1 as const) }),
    fc.record({ kind: fc.constant('length' as const), extra: fc.constantFrom(0 as const, 1 as const), side, id }),
    fc.record({
      kind: fc.constant('extreme' as const),
      at: fc.constantFrom('min' as const, 'zero' as const, 'max' as const),
      what: fc.constantFrom('row' as const, 'watermark' as const),
      side,
      id,
    }),
  );
}

/** The watermarks as J4 moves them: a valid watermark above the current one is accepted. */
export function trackWatermarks(wm: Watermarks, record: LogRecord, config: JoinConfig): Watermarks {
  if (record.kind !== 'watermark' || validityOf(record, config) !== undefined) return wm;
  const side = record.side as 'L' | 'R';
  const current = wm[side];
  return current === null || record.wm > current ? { ...wm, [side]: record.wm } : wm;
}

/** The records of an edge step, given the watermarks they will meet (see `EdgeStep`). */
export function edgeRecords(
  config: JoinConfig,
  wm: Watermarks,
  edge: EdgeStep,
  names: { readonly key: string; readonly ids: readonly string[] },
): LogRecord[] {
  const L = config.allowedLateness;
  const D = config.maxIntervalLength;
  const id = names.ids[edge.kind === 'watermark' ? 0 : edge.id % names.ids.length] ?? 'a';
  const gw = globalWatermark(wm);
  switch (edge.kind) {
    case 'lateness': {
      // Without both watermarks nothing is late: the edge is where it will be once they come.
      const ts = (gw ?? 0) - L + edge.delta;
      const length = Math.min(edge.length, D);
      return [{ kind: 'insert', key: names.key, side: edge.side, id, ts, start: ts - length, end: ts }];
    }
    case 'watermark': {
      const current = wm[edge.side] ?? gw ?? 0;
      return [{ kind: 'watermark', side: edge.side, wm: current + edge.delta }];
    }
    case 'length': {
      // From the bottom of the range when D is huge, so that start + D + 1 stays inside it.
      const start = D > TIME_MAX ? TIME_MIN : Math.max(TIME_MIN, Math.min((gw ?? 0) - L, TIME_MAX - D - 1));
      return [{ kind: 'insert', key: names.key, side: edge.side, id, ts: start, start, end: start + D + edge.extra }];
    }
    case 'extreme': {
      if (edge.at === 'zero') {
        // The sign boundary, where a system that reads 0 as "no watermark" (or a time as a truth value) goes wrong:
        // both watermarks at 0, so that gw is exactly 0 (J4); or a row whose horizon is -1 first, evicted exactly then (J8).
        const zero: LogRecord[] = [
          { kind: 'watermark', side: 'L', wm: 0 },
          { kind: 'watermark', side: 'R', wm: 0 },
        ];
        if (edge.what === 'watermark') return zero;
        const end = Math.max(TIME_MIN, -1 - L - D);
        const start = Math.max(TIME_MIN, end - Math.min(D, 1));
        return [{ kind: 'insert', key: names.key, side: edge.side, id, ts: end, start, end }, ...zero];
      }
      if (edge.what === 'watermark') return [{ kind: 'watermark', side: edge.side, wm: edge.at === 'min' ? TIME_MIN : TIME_MAX }];
      const length = Math.min(D, 1);
      const [start, end] = edge.at === 'min' ? [TIME_MIN, TIME_MIN + length] : [TIME_MAX - length, TIME_MAX];
      return [{ kind: 'insert', key: names.key, side: edge.side, id, ts: edge.at === 'min' ? start : end, start, end }];
    }
  }
}

/** A collision step (J3): which separator's colliding rows (an index into COMMON_SEPARATORS), or, half the time, all of them. */
export function collideArbitrary(maxTime: number): fc.Arbitrary<{ t: number; which: number }> {
  return fc.record({
    t: fc.nat({ max: maxTime }),
    which: fc.oneof(fc.constant(COMMON_SEPARATORS.length), fc.nat({ max: COMMON_SEPARATORS.length - 1 })),
  });
}

/**
 * The rows of a collision step (edges.ts `collidingRows`), at its time or,
 * if that is late by the watermarks they will meet, at the earliest time on
 * time (J5), so that both matches of each collision are made.
 */
export function collisionRecords(
  step: { t: number; which: number },
  keys: readonly string[],
  wm: Watermarks,
  config: JoinConfig,
): RowRecord[] {
  const one = COMMON_SEPARATORS[step.which];
  const gw = globalWatermark(wm);
  const t = gw === null ? step.t : Math.min(TIME_MAX, Math.max(step.t, gw - config.allowedLateness));
  return collidingRows(one === undefined ? COMMON_SEPARATORS : [one], t, keys);
}

/**
 * One id on both sides of a key (J2: the side is part of a row's identity),
 * one of its two rows matched with a third row too, then the other one
 * retracted: rows p and x on one side and x on the other, all over [t, t]
 * (so on time and valid whatever L and D), then x's retraction on the first
 * side (J7: it withdraws its own match only; the other x's match with p
 * stays). Fresh ids, so that no earlier binding turns them into conflicts.
 */
function mirrorRecords(
  pick: number,
  flags: number,
  n: number,
  wm: Watermarks,
  config: JoinConfig,
  domain: LogDomain,
  origin: number,
): RowRecord[] {
  const gw = globalWatermark(wm);
  const drawn = origin + (pick % (domain.maxTime + 1));
  const t = Math.min(TIME_MAX, gw === null ? drawn : Math.max(drawn, gw - config.allowedLateness));
  const key = domain.keys[pick % domain.keys.length] ?? 'k1';
  const [side, other] = flags % 2 === 0 ? (['L', 'R'] as const) : (['R', 'L'] as const);
  const at = (kind: 'insert' | 'retract', s: 'L' | 'R', id: string): RowRecord => ({ kind, key, side: s, id, ts: t, start: t, end: t });
  const p = `p~${n}`;
  const x = `x~${n}`;
  return [at('insert', side, p), at('insert', side, x), at('insert', other, x), at('retract', side, x)];
}

function opArbitrary(domain: LogDomain, config: JoinConfig): fc.Arbitrary<LogOp> {
  const arbs: fc.WeightedArbitrary<LogOp>[] = [
    { weight: 8, arbitrary: rowArbitrary(domain, config).map((timed) => ({ timed })) },
    {
      weight: 3,
      arbitrary: fc.record({ watermark: fc.constantFrom('L' as const, 'R' as const), step: fc.integer({ min: -1, max: 2 }) }),
    },
    {
      weight: 4,
      // `conflict`, J2: an earlier row's identity with other content, differing in the nonempty subset of ts, start
      // and end that `moved` picks (edges.ts conflictOf). `mirror`, J2 and J7: one id on both sides (`mirrorRecords`).
      arbitrary: fc.record({
        resend: fc.nat(),
        as: fc.constantFrom('same' as const, 'insert' as const, 'retract' as const, 'conflict' as const, 'mirror' as const),
        moved: fc.nat({ max: 13 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ horizonOf: fc.nat(), delta: fc.integer({ min: -1, max: 1 }), thenRetract: fc.boolean() }),
    },
    { weight: 2, arbitrary: edgeStepArbitrary(domain.ids.length).map((edge) => ({ edge })) },
  ];
  if (domain.invalid) arbs.push({ weight: 3, arbitrary: invalidArbitrary(domain, config).map((fresh) => ({ fresh })) });
  if (domain.colliding) arbs.push({ weight: 5, arbitrary: collideArbitrary(domain.maxTime).map((collide) => ({ collide })) });
  return fc.oneof(...arbs);
}

/**
 * The records of a burst (J3): each collision in a key of its own
 * (`b{n}.{i}`, n the burst's number in the log), its rows at t or at the
 * earliest time on time (J5); then, in each key, the left row of the first
 * colliding match retracted and the right row of the second: a naive id
 * shows at the insert that binds the second match or at a retraction.
 */
function burstRecords(op: { burst: CollisionBurst; t: number }, n: number, wm: Watermarks, config: JoinConfig): RowRecord[] {
  const gw = globalWatermark(wm);
  const t = gw === null ? op.t : Math.min(TIME_MAX, Math.max(op.t, gw - config.allowedLateness));
  const recipes = burstRecipes(op.burst);
  const keyed = recipes.map((r, i) => ({ c: collisionOf(r), key: `b${n}.${i}` }));
  const retract = (key: string, side: 'L' | 'R', id: string): RowRecord => ({ kind: 'retract', key, side, id, ts: t, start: t, end: t });
  // The same separators over row identities (J2): two rows of two keys a naive identity files as one, both
  // inserted (the second is no duplicate), then the first retracted (the second stays). The class is sampled as the
  // match ids' is, each on a key of its own, one of a separator's forms (the n-th of its collisions: the burst's
  // consecutive members take turns); every form of the common separators (edges.ts) is in every burst. All of the
  // class, every form, is the exhaustive scenario's.
  const common = COMMON_SEPARATORS.flatMap((sep, j) => rowCollisions(sep, `b${n}.c${j}.`, j));
  const sampled = recipes.flatMap((r, i) => {
    const forms = rowCollisions(r.separator, `b${n}.r${i}.`, i);
    return [forms[i % forms.length] as (typeof forms)[number]];
  });
  const rows = [...sampled, ...common];
  return [
    ...keyed.flatMap(({ c, key }) => collisionRows(c, key, t)),
    ...rows.flatMap(([a, b]) => [rowAt('insert', a, t), rowAt('insert', b, t)]),
    ...keyed.map(({ c, key }) => retract(key, 'L', c.left[0])),
    ...keyed.map(({ c, key }) => retract(key, 'R', c.right[1])),
    ...rows.map(([a]) => rowAt('retract', a, t)),
  ];
}

/**
 * Names equal under a loose comparison, each apart (J2, J3): in the group's
 * first key, a left row for every member as its id, all bound at once, and a
 * right row `x` they all match; and in every member as a key, a left `x` and
 * a right `y` that match. All at one instant, at t or (when the watermarks
 * have passed it) at the global watermark, so that none is late (J5). Exact
 * names give one match per row; a loose comparison merges identities or
 * keys (a conflict or a duplicate where there is none, a match across keys).
 */
function looseRecords(group: readonly string[], t: number, wm: Watermarks): RowRecord[] {
  const gw = globalWatermark(wm);
  const at = Math.min(TIME_MAX, gw === null ? t : Math.max(t, gw));
  const row = (key: string, side: 'L' | 'R', id: string): RowRecord => ({ kind: 'insert', key, side, id, ts: at, start: at, end: at });
  const first = group[0] ?? 'k';
  const out: RowRecord[] = [...group.map((m) => row(first, 'L', m)), row(first, 'R', 'x')];
  for (const m of group) out.push(row(m, 'L', 'x'), row(m, 'R', 'y'));
  return out;
}

function materialize(config: JoinConfig, ops: readonly LogOp[], domain: LogDomain, origin = 0): LogRecord[] {
  const out: LogRecord[] = [];
  let bursts = 0;
  let mirrors = 0;
  // The watermarks each record will meet (J4), for the edges computed from them.
  let wm: Watermarks = { L: null, R: null };
  const push = (...records: LogRecord[]): void => {
    for (const r of records) {
      out.push(r);
      wm = trackWatermarks(wm, r, config);
    }
  };
  for (const op of ops) {
    if ('resend' in op && op.as === 'mirror') {
      push(...mirrorRecords(op.resend, op.moved, mirrors++, wm, config, domain, origin));
      continue;
    }
    if ('fresh' in op) {
      push(op.fresh);
      continue;
    }
    if ('timed' in op) {
      // A row of the domain's times, moved to the log's origin (originArbitrary).
      const r = op.timed;
      push({ ...r, ts: r.ts + origin, start: r.start + origin, end: r.end + origin });
      continue;
    }
    if ('watermark' in op) {
      push({ kind: 'watermark', side: op.watermark, wm: (wm[op.watermark] ?? origin) + op.step });
      continue;
    }
    if ('edge' in op) {
      push(...edgeRecords(config, wm, op.edge, { key: domain.keys[0] ?? 'k1', ids: domain.ids }));
      continue;
    }
    if ('collide' in op) {
      if (domain.colliding) push(...collisionRecords(op.collide, domain.keys, wm, config));
      continue;
    }
    if ('burst' in op) {
      push(...burstRecords(op, bursts++, wm, config));
      continue;
    }
    if ('loose' in op) {
      for (const group of LOOSELY_EQUAL) push(...looseRecords(group, op.loose + origin, wm));
      continue;
    }
    const rows = out.filter((r): r is RowRecord => r.kind !== 'watermark' && validityOf(r, config) === undefined);
    if (rows.length === 0) continue;
    if ('resend' in op && op.as === 'conflict') {
      // Of the rows that bound their identity (the first of each: a later one of other content was itself a
      // conflict), a recent one (an old one's conflict is mostly late, J5, or out of contract, J9): from the one
      // picked on, going back, the first whose content can differ in just those fields and stay valid.
      const seen = new Set<string>();
      const bound = rows.filter((r) => {
        const identity = JSON.stringify([r.key, r.side, r.id]);
        if (seen.has(identity)) return false;
        seen.add(identity);
        return true;
      });
      for (let k = 0; k < bound.length; k++) {
        const back = ((op.resend % 3) + k) % bound.length;
        const conflict = conflictOf(bound[bound.length - 1 - back] as RowRecord, op.moved, config);
        if (conflict === undefined) continue;
        push(conflict);
        break;
      }
    } else if ('resend' in op) {
      const source = rows[op.resend % rows.length] as RowRecord;
      if (op.as === 'same') push({ ...source });
      else if (op.as === 'insert' || op.as === 'retract') push({ ...source, kind: op.as });
    } else {
      // Both watermarks to a row's horizon (J8) plus delta; then, maybe, that row's retraction: on time at the horizon, late one past it (J6).
      const target = rows[op.horizonOf % rows.length] as RowRecord;
      const w = target.end + config.allowedLateness + config.maxIntervalLength + op.delta;
      push({ kind: 'watermark', side: 'L', wm: w }, { kind: 'watermark', side: 'R', wm: w });
      if (op.thenRetract) push({ ...target, kind: 'retract' });
    }
  }
  return out;
}

/** Drops every record that would break the input contract (J9). */
export function keepInContract(config: JoinConfig, records: readonly LogRecord[]): LogRecord[] {
  // A violating record binds nothing, so dropping it cannot make a later
  // record violate: one pass suffices.
  const checker = contractChecker(config);
  return records.filter((record, i) => checker.check(record, i) === undefined);
}

/** A log over `domain` for `config`, in contract. */
export function logArbitrary(config: JoinConfig, domain: LogDomain = smallDomain): fc.Arbitrary<LogRecord[]> {
  return rawLogArbitrary(config, domain).map((log) => keepInContract(config, log));
}

/** A log over `domain` for `config` that may break the input contract (J9): for tests of the contract check itself. */
export function rawLogArbitrary(config: JoinConfig, domain: LogDomain = smallDomain): fc.Arbitrary<LogRecord[]> {
  const ops = fc.array(opArbitrary(domain, config), { maxLength: domain.maxRecords, size: 'max' });
  const origin = originArbitrary(config, domain);
  /** `ops` with `op` at a place `at` picks. */
  const placed = (o: readonly LogOp[], at: number, op: LogOp): LogOp[] => [
    ...o.slice(0, at % (o.length + 1)),
    op,
    ...o.slice(at % (o.length + 1)),
  ];
  if (domain.loose === true)
    // One burst of the loosely equal names, every group of the class, at a random place in the log.
    return fc
      .tuple(ops, fc.nat({ max: domain.maxTime }), fc.nat(), origin)
      .map(([o, t, at, at0]) => materialize(config, placed(o, at, { loose: t }), domain, at0));
  if (!domain.colliding) return fc.tuple(ops, origin).map(([o, at0]) => materialize(config, o, domain, at0));
  // One burst of collisions (J3) at a random place in the log.
  const burst = fc.record({ burst: collisionBurstArbitrary(BURST_SLICE, BURST_RANDOM), t: fc.nat({ max: domain.maxTime }) });
  return fc.tuple(ops, burst, fc.nat(), origin).map(([o, b, at, at0]) => materialize(config, placed(o, at, b), domain, at0));
}

/**
 * Where a log's times begin: 0 in three logs in four; otherwise below 0, by
 * up to the domain's span and a horizon (L + D + 1), so that the global
 * watermark climbs through 0 with rows on both sides of it, and some
 * horizons are negative. The sign boundary is where a system that reads 0 as
 * "no watermark", or a time as a truth value, goes wrong (J4, J5, J8).
 * Shrinks toward 0.
 */
function originArbitrary(config: JoinConfig, domain: LogDomain): fc.Arbitrary<number> {
  const below = Math.min(domain.maxTime + config.allowedLateness + config.maxIntervalLength + 1, 2 ** 20);
  return fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: below }).map((n) => -n) });
}

/** A config together with a log for it. */
export function configuredLogArbitrary(domain: LogDomain = smallDomain): fc.Arbitrary<{ config: JoinConfig; log: LogRecord[] }> {
  return configArbitrary().chain((config) => logArbitrary(config, domain).map((log) => ({ config, log })));
}

/**
 * The wide share of random operator traces: long enough that state outgrows
 * every small bound (a few dozen rows live at once across keys, trees deep
 * enough for every rotation, evictions in batches), short enough to cost a
 * few milliseconds (wideLogs.ts). Each ends as a stream does, with both
 * watermarks past every horizon, so that all the state it built is evicted
 * at once.
 */
const RANDOM_WIDE_DOMAIN: WideDomain = { ...wideDomain, maxRecords: 120 };

/**
 * Random operator traces (level `operator`), in contract (J9): over the
 * small domain mostly, the odd names in some, in some keys and ids that
 * collide under a naive match-id encoding with the common separators (J3),
 * in some keys and ids with every line break of the class (`LINE_BREAKS`),
 * and in one in seven a wide log whose state outgrows the small domains
 * (wideLogs.ts); L and D at their edges in some (`boundsArbitrary`).
 */
export function operatorTraceArbitrary(): fc.Arbitrary<OperatorTrace> {
  const small = fc
    .oneof(
      // 3 of 7 small: the names equal under a loose comparison take their share from it, the other domains keep theirs.
      { weight: 3, arbitrary: fc.constant(smallDomain) },
      { weight: 1, arbitrary: fc.constant(oddDomain) },
      { weight: 1, arbitrary: fc.constant(collidingDomain) },
      { weight: 1, arbitrary: fc.constant(lineBreakDomain) },
      { weight: 1, arbitrary: fc.constantFrom(...looselyEqualDomains) },
    )
    .chain((domain) => boundsArbitrary().chain((config) => logArbitrary(config, domain).map((log) => ({ config, log }))));
  return fc
    .oneof(
      { weight: 6, arbitrary: small },
      {
        weight: 1,
        arbitrary: wideConfiguredLogArbitrary(RANDOM_WIDE_DOMAIN).map(({ config, log }) => ({
          config,
          log: [...log, ...drainingWatermarks(config, log)],
        })),
      },
    )
    .map(({ config, log }: { config: JoinConfig; log: LogRecord[] }) => ({
      format: OPERATOR_TRACE_FORMAT,
      name: 'random-operator',
      config,
      steps: log.map((record) => ({ record })),
    }));
}
