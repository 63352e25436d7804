// The reference join operator: SPEC §1–§3 transcribed rule by rule, with no
// index and no cleverness. `decideJoin` is the J7 table: what a record's
// outcome and changes are, and what it does to the state; `stepJoin` carries
// that out on immutable plain data, so the explorer can hash a state and
// checkpoints can share it. (joinIndex.ts carries it out on indexes, for
// long logs.) Read it beside SPEC.md.
import { matchId, compareByMatchId, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type {
  Change,
  JoinConfig,
  LogRecord,
  Outcome,
  RejectReason,
  RetainedCounts,
  RowContent,
  RowRecord,
  Side,
  Watermarks,
} from '../../spec/index.ts';

/** A bound identity (J2): its content, and whether it is live or a tombstone (J6). */
export interface RowState extends RowContent {
  /** True while inserted and not retracted; false for a tombstone (J6). */
  readonly live: boolean;
}

/** An active match (J3) still retained (J8). */
export interface MatchState {
  /** The key both rows have. */
  readonly key: string;
  /** Id of the left row. */
  readonly left: string;
  /** Id of the right row. */
  readonly right: string;
}

/** The reference operator's state: watermarks, bound identities and retained matches. */
export interface JoinState {
  /** Per-side watermarks (J4). */
  readonly wm: Watermarks;
  /** Bound identities still retained (J2, J8). */
  readonly rows: readonly RowState[];
  /** Active matches still retained (J3, J8). */
  readonly matches: readonly MatchState[];
}

/** The result of one record through the reference operator. */
export interface JoinStep {
  /** The state after the record. */
  readonly state: JoinState;
  /** The record's outcome (J7). */
  readonly outcome: Outcome;
  /** The changes it emits, in canonical order. */
  readonly changes: readonly Change[];
}

/** The reference operator's state before any record: no watermark, no row, no match. */
export const initialJoinState: JoinState = { wm: { L: null, R: null }, rows: [], matches: [] };

/** J4: min of both sides, −∞ (null) until both have reported. */
export function globalWatermark(wm: Watermarks): number | null {
  return wm.L === null || wm.R === null ? null : Math.min(wm.L, wm.R);
}

/** J8: the horizon of a row that ends at `end`. */
export function horizonOf(end: number, config: JoinConfig): number {
  return end + config.allowedLateness + config.maxIntervalLength;
}

/** J8: is a row with this end still retained under global watermark `gw`? */
export function isRetained(end: number, gw: number | null, config: JoinConfig): boolean {
  return gw === null || gw <= horizonOf(end, config);
}

const opposite = (s: Side): Side => (s === 'L' ? 'R' : 'L');
const inRange = (t: number): boolean => t >= TIME_MIN && t <= TIME_MAX;
const isSide = (s: string): s is Side => s === 'L' || s === 'R';

/** J1: the first failing validity check, or undefined if the record is valid. */
export function validityOf(record: LogRecord, config: JoinConfig): RejectReason | undefined {
  if (record.kind === 'watermark') {
    if (!isSide(record.side)) return 'bad_side';
    if (!inRange(record.wm)) return 'out_of_range';
    return undefined;
  }
  if (record.key === '') return 'empty_key';
  if (record.id === '') return 'empty_id';
  if (!isSide(record.side)) return 'bad_side';
  if (!inRange(record.ts) || !inRange(record.start) || !inRange(record.end)) return 'out_of_range';
  if (record.ts < record.start) return 'ts_before_start';
  if (record.ts > record.end) return 'ts_after_end';
  if (record.end - record.start > config.maxIntervalLength) return 'too_long';
  return undefined;
}

/** J2: the content of a valid row record. */
export function contentOf(record: RowRecord): RowContent {
  const { key, side, id, ts, start, end } = record;
  return { key, side: side as Side, id, ts, start, end };
}

/** J2: same identity. */
export function sameIdentity(a: RowContent, b: RowContent): boolean {
  return a.key === b.key && a.side === b.side && a.id === b.id;
}

/** J2: same content. */
export function sameContent(a: RowContent, b: RowContent): boolean {
  return sameIdentity(a, b) && a.ts === b.ts && a.start === b.start && a.end === b.end;
}

/** J3: inclusive overlap. */
export function overlaps(a: RowContent, b: RowContent): boolean {
  return a.start <= b.end && b.start <= a.end;
}

/** J3: the change for match (key, left, right). */
export function changeOf(op: Change['op'], m: MatchState): Change {
  return { op, match: matchId(m.key, m.left, m.right), key: m.key, left: m.left, right: m.right };
}

/** J5: a valid insert is late iff gw ≠ −∞ and ts < gw − L. */
export function isLateInsert(row: RowContent, gw: number | null, config: JoinConfig): boolean {
  return gw !== null && row.ts < gw - config.allowedLateness;
}

/** J6: a valid retract is late iff its horizon has passed. */
export function isLateRetract(row: RowContent, gw: number | null, config: JoinConfig): boolean {
  return !isRetained(row.end, gw, config);
}

/**
 * What the J7 table reads of a state to decide one record: the watermarks
 * and three questions about the rows held. The lists of a `JoinState`
 * answer them by scanning (`stepJoin`); `IndexedJoin` (joinIndex.ts), which
 * runs logs of any length, answers them from indexes. Either way the rules
 * are the ones below.
 */
export interface HeldRows {
  readonly wm: Watermarks;
  /** J2: the binding of `row`'s identity, if it is retained. */
  bound(row: RowContent): RowState | undefined;
  /** J7 step 5: the live rows of the opposite side and the same key that overlap `row` (J3). */
  partners(row: RowContent): readonly RowState[];
  /** J6: the active matches `row` is an endpoint of. */
  matchesOf(row: RowContent): readonly MatchState[];
}

/** What an accepted record does to the state (J7 step 5); the holder of the state carries it out. */
export type JoinEffect =
  /** An insert binds a live row with its new matches; a retract of an unbound identity binds a tombstone (J6). */
  | { readonly kind: 'bind'; readonly row: RowState; readonly matches: readonly MatchState[] }
  /** A retract of a live row: it becomes a tombstone and its active matches go (J6). */
  | { readonly kind: 'tombstone'; readonly row: RowContent; readonly matches: readonly MatchState[] }
  /** J4: the side's watermark rises; eviction follows (J8). */
  | { readonly kind: 'watermark'; readonly side: Side; readonly wm: number };

/** One record decided: its outcome and changes (J7), and its effect (none for every outcome but `accepted`). */
export interface JoinDecision {
  readonly outcome: Outcome;
  readonly changes: readonly Change[];
  readonly effect?: JoinEffect;
}

const unchanged = (outcome: Outcome): JoinDecision => ({ outcome, changes: [] });

/** J7: decide one record, checks in the precedence of the J7 table. */
export function decideJoin(config: JoinConfig, held: HeldRows, record: LogRecord): JoinDecision {
  const invalid = validityOf(record, config);
  if (invalid) return unchanged({ code: 'rejected', reason: invalid });
  if (record.kind === 'watermark') {
    // J4: a watermark at or below its side's is stale.
    const side = record.side as Side;
    const current = held.wm[side];
    if (current !== null && record.wm <= current) return unchanged({ code: 'stale' });
    return { outcome: { code: 'accepted' }, changes: [], effect: { kind: 'watermark', side, wm: record.wm } };
  }

  const row = contentOf(record);
  const gw = globalWatermark(held.wm);
  const late = record.kind === 'insert' ? isLateInsert(row, gw, config) : isLateRetract(row, gw, config);
  if (late) return unchanged({ code: 'late' });

  const bound = held.bound(row);
  if (bound && !sameContent(bound, row)) return unchanged({ code: 'rejected', reason: 'conflict' });

  if (record.kind === 'insert') {
    if (bound) return unchanged({ code: 'duplicate' });
    // J7 step 5: bind a live row, insert a match with every live overlapping partner.
    const matches: MatchState[] = held
      .partners(row)
      .map((p) => (row.side === 'L' ? { key: row.key, left: row.id, right: p.id } : { key: row.key, left: p.id, right: row.id }));
    return {
      outcome: { code: 'accepted' },
      changes: changesOf('insert', matches),
      effect: { kind: 'bind', row: { ...row, live: true }, matches },
    };
  }
  if (bound && !bound.live) return unchanged({ code: 'duplicate' });
  if (bound) {
    // J6: tombstone the live row, retract its active matches.
    const matches = held.matchesOf(row);
    return { outcome: { code: 'accepted' }, changes: changesOf('retract', matches), effect: { kind: 'tombstone', row, matches } };
  }
  // J6: the retract overtook its insert; bind a tombstone.
  return { outcome: { code: 'accepted' }, changes: [], effect: { kind: 'bind', row: { ...row, live: false }, matches: [] } };
}

/** J7: the changes of one record, in canonical order (by match id). */
function changesOf(op: Change['op'], matches: readonly MatchState[]): Change[] {
  return matches.map((m) => changeOf(op, m)).sort(compareByMatchId);
}

/** A `JoinState`'s lists as the rows the J7 table reads, by scanning. */
function heldRowsOf(state: JoinState): HeldRows {
  return {
    wm: state.wm,
    bound: (row) => state.rows.find((r) => sameIdentity(r, row)),
    partners: (row) => state.rows.filter((r) => r.live && r.key === row.key && r.side === opposite(row.side) && overlaps(r, row)),
    matchesOf: (row) => state.matches.filter((m) => isEndpoint(m, row)),
  };
}

/** Whether `row` is an endpoint of match `m` (J6). */
export function isEndpoint(m: MatchState, row: { readonly key: string; readonly side: Side; readonly id: string }): boolean {
  return m.key === row.key && (row.side === 'L' ? m.left === row.id : m.right === row.id);
}

/** J7: apply one record. The state is never modified: a record that changes nothing returns it as it was. */
export function stepJoin(config: JoinConfig, state: JoinState, record: LogRecord): JoinStep {
  const { outcome, changes, effect } = decideJoin(config, heldRowsOf(state), record);
  return { state: effect ? withEffect(config, state, effect) : state, outcome, changes };
}

/** J7 step 5 on the lists of a `JoinState`, then J8 after a watermark. */
function withEffect(config: JoinConfig, state: JoinState, effect: JoinEffect): JoinState {
  switch (effect.kind) {
    case 'bind':
      return { ...state, rows: [...state.rows, effect.row], matches: [...state.matches, ...effect.matches] };
    case 'tombstone':
      return {
        ...state,
        rows: state.rows.map((r) => (sameIdentity(r, effect.row) ? { ...r, live: false } : r)),
        matches: state.matches.filter((m) => !isEndpoint(m, effect.row)),
      };
    case 'watermark':
      return evict(config, { ...state, wm: { ...state.wm, [effect.side]: effect.wm } });
  }
}

/** J8: keep rows with gw <= end + L + D, and matches with a retained endpoint. */
export function evict(config: JoinConfig, state: JoinState): JoinState {
  const gw = globalWatermark(state.wm);
  const rows = state.rows.filter((r) => isRetained(r.end, gw, config));
  const identity = (key: string, side: Side, id: string): string => JSON.stringify([key, side, id]);
  const held = new Set(rows.map((r) => identity(r.key, r.side, r.id)));
  const matches = state.matches.filter((m) => held.has(identity(m.key, 'L', m.left)) || held.has(identity(m.key, 'R', m.right)));
  return { wm: state.wm, rows, matches };
}

/** §3: retained counts, over all keys or for one key. */
export function retainedCountsOf(state: JoinState, key?: string): RetainedCounts {
  const rows = key === undefined ? state.rows : state.rows.filter((r) => r.key === key);
  const matches = key === undefined ? state.matches : state.matches.filter((m) => m.key === key);
  return {
    live: rows.filter((r) => r.live).length,
    tombstones: rows.filter((r) => !r.live).length,
    matches: matches.length,
  };
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A canonical string for a join state: equal iff the states are equal as
 * sets (row and match order is history, not state). Used by the explorer's
 * visited set and by tests comparing states.
 */
export function encodeJoinState(state: JoinState): string {
  const rows = state.rows.map((r) => JSON.stringify([r.key, r.side, r.id, r.ts, r.start, r.end, r.live ? 1 : 0])).sort(byText);
  const matches = state.matches.map((m) => JSON.stringify([m.key, m.left, m.right])).sort(byText);
  return `${String(state.wm.L)},${String(state.wm.R)}|${rows.join(',')}|${matches.join(',')}`;
}
