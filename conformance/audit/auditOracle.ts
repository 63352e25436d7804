// The audit's oracle: the single-partition join (SPEC J1–J8) written for
// replaying a recorded log, independently of impl/ and model/. The property
// test auditOracle.test.ts holds it to the reference model record by record.
//
// The audit replays long logs whose keys each hold a few dozen rows, so the
// state is laid out for that, with few objects per record:
//
// - per key and side, the bound identities (J2) in a map, and the live rows
//   in an array sorted by start: a row overlapping `x` starts in
//   [x.start − D, x.end], since no bound row is longer than D (J1
//   `too_long`), so the partners of an insert (J3) are one slice of it,
//   scanned in place (at tens of rows a binary search and a scan beat a
//   tree); a row that leaves the live set is skipped until those that left
//   are half the array, then all are dropped in one pass;
// - per row, its active matches as two parallel arrays (partner row, match
//   id), so J6 retracts them without a lookup and J8 keeps a match while
//   either endpoint is bound;
// - one heap of all bound rows by end, across keys, its keys in a typed
//   array: J8 evicts in the order of horizons `end + L + D`, so a watermark
//   pops exactly the rows it evicts;
// - a record's outcome is a string and its changes one array of
//   `{ op, match }` (none allocated for a record without changes); the
//   rejection reason and whether the record bound an identity anew are
//   fields read after `apply`.
import { BOUND_MAX, compareCodePoints, escapeComponent, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, OutcomeCode, RejectReason, RetainedCounts, RowRecord, Side } from '../../spec/index.ts';

/** One change the oracle makes (J7): the insert or retraction of a match. */
export interface OracleChange {
  readonly op: 'insert' | 'retract';
  readonly match: string;
}

const NO_CHANGES: readonly OracleChange[] = Object.freeze([]);

const hasSurrogate = (s: string): boolean => /[\uD800-\uDFFF]/.test(s);
const inTimeRange = (t: number): boolean => t >= TIME_MIN && t <= TIME_MAX;
const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;

/** One key's rows: its bound identities per side, its live rows per side by start, and its counts (§3). */
class KeyRows {
  /** The key escaped for match ids (J3). */
  readonly escaped: string;
  /** The key has no UTF-16 surrogate: its match ids order by `<` (§0). */
  readonly plain: boolean;
  readonly boundL = new Map<string, OracleRow>();
  readonly boundR = new Map<string, OracleRow>();
  /** The live rows by start, and rows that have left the live set since the last compaction (skipped; see `removeLive`). */
  liveL: OracleRow[] = [];
  liveR: OracleRow[] = [];
  goneL = 0;
  goneR = 0;
  live = 0;
  tombstones = 0;
  matches = 0;
  constructor(readonly key: string) {
    this.escaped = escapeComponent(key);
    this.plain = !hasSurrogate(key);
  }
}

/** A bound identity (J2) with its content, and its active matches while it has any. */
class OracleRow {
  /** The id escaped for match ids (J3). */
  readonly escaped: string;
  /** Key and id have no UTF-16 surrogate. */
  readonly plain: boolean;
  /** Bound; false once evicted (J8). */
  retained = true;
  /** Its active matches: the partner row and the match id, at the same index (null: none). */
  partners: OracleRow[] | null = null;
  matchIds: string[] | null = null;
  constructor(
    readonly keyRows: KeyRows,
    readonly side: Side,
    readonly id: string,
    readonly ts: number,
    readonly start: number,
    readonly end: number,
    public live: boolean,
  ) {
    this.escaped = escapeComponent(id);
    this.plain = keyRows.plain && !hasSurrogate(id);
  }
}

function addMatch(row: OracleRow, partner: OracleRow, match: string): void {
  if (row.partners === null || row.matchIds === null) {
    row.partners = [partner];
    row.matchIds = [match];
  } else {
    row.partners.push(partner);
    row.matchIds.push(match);
  }
}

/** Removes `partner`'s match from `row`'s list: the last entry takes its place. */
function removeMatch(row: OracleRow, partner: OracleRow): void {
  const partners = row.partners as OracleRow[];
  const ids = row.matchIds as string[];
  const at = partners.indexOf(partner);
  const lastPartner = partners.pop() as OracleRow;
  const lastId = ids.pop() as string;
  if (at < partners.length) {
    partners[at] = lastPartner;
    ids[at] = lastId;
  }
}

/** The first index of `rows` (sorted by start) whose start is at least `start`. */
function firstStartingAt(rows: readonly OracleRow[], start: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as OracleRow).start < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Puts `row` at index `at` of `rows`, moving the rest up one (in place: splice allocates an array for what it removes). */
function insertAt(rows: OracleRow[], at: number, row: OracleRow): void {
  let i = rows.length;
  rows.push(row);
  for (; i > at; i--) rows[i] = rows[i - 1] as OracleRow;
  rows[at] = row;
}

/** Drops from `rows` every row no longer live and bound, in place, keeping the order by start. */
function compact(rows: OracleRow[]): void {
  let kept = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as OracleRow;
    if (row.live && row.retained) rows[kept++] = row;
  }
  rows.length = kept;
}

/** §0 order of match ids; `plain` when both have no surrogate, so that UTF-16 order is code-point order. */
function sortByMatchId(changes: OracleChange[], plain: boolean): void {
  if (plain) changes.sort((a, b) => (a.match < b.match ? -1 : a.match > b.match ? 1 : 0));
  else changes.sort((a, b) => compareCodePoints(a.match, b.match));
}

/** A binary min-heap of rows by end (J8's eviction order), the ends in a typed array beside them. */
class RowsByEnd {
  private readonly rows: OracleRow[] = [];
  private ends = new Float64Array(1024);

  push(row: OracleRow): void {
    const rows = this.rows;
    if (rows.length === this.ends.length) {
      const grown = new Float64Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    const ends = this.ends;
    const end = row.end;
    let i = rows.length;
    rows.push(row);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((ends[p] as number) <= end) break;
      rows[i] = rows[p] as OracleRow;
      ends[i] = ends[p] as number;
      i = p;
    }
    rows[i] = row;
    ends[i] = end;
  }

  /** The least end held, +∞ when empty. */
  peekEnd(): number {
    return this.rows.length === 0 ? Number.POSITIVE_INFINITY : (this.ends[0] as number);
  }

  pop(): OracleRow | undefined {
    const rows = this.rows;
    const ends = this.ends;
    const top = rows[0];
    const last = rows.pop();
    const n = rows.length;
    if (n === 0 || last === undefined) return top;
    const lastEnd = ends[n] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (ends[r] as number) < (ends[l] as number) ? r : l;
      if ((ends[c] as number) >= lastEnd) break;
      rows[i] = rows[c] as OracleRow;
      ends[i] = ends[c] as number;
      i = c;
    }
    rows[i] = last;
    ends[i] = lastEnd;
    return top;
  }
}

/**
 * The join the audit replays a log through. `apply` decides one record
 * (J7) and returns its outcome; `changes`, `reason` and `boundNew` then say
 * what it changed, why it was rejected, and whether it bound an identity.
 */
export class AuditOracle {
  private readonly L: number;
  /** L + D: a row's horizon (J8) is `end + slack`. */
  private readonly slack: number;
  private readonly D: number;
  private wmL: number | null = null;
  private wmR: number | null = null;
  /** J4: min of the sides' watermarks, null (−∞) until both have reported. */
  private gw: number | null = null;
  private readonly keys = new Map<string, KeyRows>();
  private readonly byEnd = new RowsByEnd();
  private readonly totals = { live: 0, tombstones: 0, matches: 0 };

  /** The changes of the last record applied, in §0 order of match id (a fresh array when there are any). */
  changes: readonly OracleChange[] = NO_CHANGES;
  /** Why the last record was rejected, when it was. */
  reason: RejectReason | undefined = undefined;
  /** The last record was accepted and bound an identity that was unbound (J2): an insert, or a retract that overtook its insert (J6). */
  boundNew = false;

  /** Throws a RangeError when the configuration is outside J0 (the audit's callers have checked it). */
  constructor(config: JoinConfig) {
    if (!isBound(config.allowedLateness) || !isBound(config.maxIntervalLength)) {
      throw new RangeError(`J0: allowedLateness and maxIntervalLength must be integers in [0, 2^50]`);
    }
    this.L = config.allowedLateness;
    this.D = config.maxIntervalLength;
    this.slack = this.L + this.D;
  }

  /** Decides one record (J7). */
  apply(record: LogRecord): OutcomeCode {
    this.changes = NO_CHANGES;
    this.reason = undefined;
    this.boundNew = false;
    return record.kind === 'watermark' ? this.applyWatermark(record.side, record.wm) : this.applyRow(record);
  }

  /** Retained live rows, tombstones and matches (§3, J8), over all keys or for one key. */
  retained(key?: string): RetainedCounts {
    if (key === undefined) return { ...this.totals };
    const k = this.keys.get(key);
    return k === undefined ? { live: 0, tombstones: 0, matches: 0 } : { live: k.live, tombstones: k.tombstones, matches: k.matches };
  }

  private reject(reason: RejectReason): OutcomeCode {
    this.reason = reason;
    return 'rejected';
  }

  private applyWatermark(side: string, wm: number): OutcomeCode {
    // J1 for a watermark, then J4.
    if (side !== 'L' && side !== 'R') return this.reject('bad_side');
    if (!inTimeRange(wm)) return this.reject('out_of_range');
    if (side === 'L') {
      if (this.wmL !== null && wm <= this.wmL) return 'stale';
      this.wmL = wm;
    } else {
      if (this.wmR !== null && wm <= this.wmR) return 'stale';
      this.wmR = wm;
    }
    if (this.wmL !== null && this.wmR !== null) {
      this.gw = Math.min(this.wmL, this.wmR);
      this.evictDue(this.gw);
    }
    return 'accepted';
  }

  private applyRow(r: RowRecord): OutcomeCode {
    // J7 check 1: J1 validity, the first failing check in the spec's order.
    if (r.key === '') return this.reject('empty_key');
    if (r.id === '') return this.reject('empty_id');
    if (r.side !== 'L' && r.side !== 'R') return this.reject('bad_side');
    if (!inTimeRange(r.ts) || !inTimeRange(r.start) || !inTimeRange(r.end)) return this.reject('out_of_range');
    if (r.ts < r.start) return this.reject('ts_before_start');
    if (r.ts > r.end) return this.reject('ts_after_end');
    if (r.end - r.start > this.D) return this.reject('too_long');
    // J7 check 2: lateness (J5 for an insert, J6 for a retract), before any identity lookup.
    const gw = this.gw;
    if (gw !== null && (r.kind === 'insert' ? r.ts < gw - this.L : gw > r.end + this.slack)) return 'late';
    const k = this.keys.get(r.key);
    const bound = k === undefined ? undefined : (r.side === 'L' ? k.boundL : k.boundR).get(r.id);
    if (bound !== undefined) {
      // J7 check 3 (J2): the same identity with other content.
      if (bound.ts !== r.ts || bound.start !== r.start || bound.end !== r.end) return this.reject('conflict');
      // J7 check 4: an insert of a bound identity, or a retract of a tombstone.
      if (r.kind === 'insert' || !bound.live) return 'duplicate';
      this.retractLive(bound);
      return 'accepted';
    }
    // J7 check 5, unbound identity: bind it.
    let keyRows = k;
    if (keyRows === undefined) {
      keyRows = new KeyRows(r.key);
      this.keys.set(r.key, keyRows);
    }
    const live = r.kind === 'insert';
    const row = new OracleRow(keyRows, r.side, r.id, r.ts, r.start, r.end, live);
    (r.side === 'L' ? keyRows.boundL : keyRows.boundR).set(r.id, row);
    this.byEnd.push(row);
    this.boundNew = true;
    if (!live) {
      // J6: the retract overtook its insert; the tombstone makes the insert, when it comes, a duplicate.
      keyRows.tombstones++;
      this.totals.tombstones++;
      return 'accepted';
    }
    this.joinNewRow(keyRows, row);
    const own = row.side === 'L' ? keyRows.liveL : keyRows.liveR;
    // After the rows that start where it starts: the array stays sorted by start.
    insertAt(own, firstStartingAt(own, row.start + 1), row);
    keyRows.live++;
    this.totals.live++;
    return 'accepted';
  }

  /** J3/J7: insert a match with every live opposite row of the key that overlaps `row` (inclusive intervals). */
  private joinNewRow(k: KeyRows, row: OracleRow): void {
    const opposite = row.side === 'L' ? k.liveR : k.liveL;
    const left = row.side === 'L';
    let added: OracleChange[] | undefined;
    let plain = row.plain;
    // A partner starts at or after row.start − D (it is no longer than D) and at or before row.end.
    for (let i = firstStartingAt(opposite, row.start - this.D); i < opposite.length; i++) {
      const partner = opposite[i] as OracleRow;
      if (partner.start > row.end) break;
      // (An evicted row ends before any insert that is not late starts, J5/J8; skipped all the same.)
      if (partner.end < row.start || !partner.live || !partner.retained) continue;
      const match = left ? `${k.escaped}/${row.escaped}/${partner.escaped}` : `${k.escaped}/${partner.escaped}/${row.escaped}`;
      addMatch(row, partner, match);
      addMatch(partner, row, match);
      plain &&= partner.plain;
      if (added === undefined) added = [{ op: 'insert', match }];
      else added.push({ op: 'insert', match });
    }
    if (added === undefined) return;
    k.matches += added.length;
    this.totals.matches += added.length;
    if (added.length > 1) sortByMatchId(added, plain);
    this.changes = added;
  }

  /** J6: a live row becomes a tombstone, and every active match it is in is retracted. */
  private retractLive(row: OracleRow): void {
    const k = row.keyRows;
    row.live = false;
    this.removeLive(row);
    k.live--;
    k.tombstones++;
    this.totals.live--;
    this.totals.tombstones++;
    const partners = row.partners;
    const ids = row.matchIds;
    row.partners = null;
    row.matchIds = null;
    if (partners === null || ids === null) return;
    let plain = row.plain;
    const retracted: OracleChange[] = new Array<OracleChange>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const partner = partners[i] as OracleRow;
      // An evicted partner's match is still active (J8 keeps it with this endpoint): retract it all the same.
      if (partner.retained) removeMatch(partner, row);
      plain &&= partner.plain;
      retracted[i] = { op: 'retract', match: ids[i] as string };
    }
    k.matches -= ids.length;
    this.totals.matches -= ids.length;
    if (retracted.length > 1) sortByMatchId(retracted, plain);
    this.changes = retracted;
  }

  /**
   * A row leaves the live set (retracted or evicted; its flags already say
   * so). It stays in its side's array, skipped by the scans, until those
   * that left are half the array: then one pass drops them all. Removing
   * each at once would move every row after it, and J8 evicts the oldest,
   * at the front: with thousands of live rows per key that is thousands of
   * moves per eviction.
   */
  private removeLive(row: OracleRow): void {
    const k = row.keyRows;
    if (row.side === 'L') {
      if (++k.goneL * 2 > k.liveL.length) {
        compact(k.liveL);
        k.goneL = 0;
      }
    } else if (++k.goneR * 2 > k.liveR.length) {
      compact(k.liveR);
      k.goneR = 0;
    }
  }

  /** J8: evict every row with gw > end + L + D, and each match left without a bound endpoint. */
  private evictDue(gw: number): void {
    const byEnd = this.byEnd;
    while (gw > byEnd.peekEnd() + this.slack) this.evictRow(byEnd.pop() as OracleRow);
  }

  private evictRow(row: OracleRow): void {
    const k = row.keyRows;
    (row.side === 'L' ? k.boundL : k.boundR).delete(row.id);
    row.retained = false;
    if (row.live) {
      this.removeLive(row);
      k.live--;
      this.totals.live--;
    } else {
      k.tombstones--;
      this.totals.tombstones--;
    }
    const partners = row.partners;
    if (partners !== null) {
      // A match is retained while one endpoint is: it goes with the second.
      let dropped = 0;
      for (const partner of partners) if (!partner.retained) dropped++;
      k.matches -= dropped;
      this.totals.matches -= dropped;
    }
    row.partners = null;
    row.matchIds = null;
    if (k.boundL.size === 0 && k.boundR.size === 0) this.keys.delete(k.key);
  }
}
