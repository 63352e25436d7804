// The values at the exact edges of the rules, shared by every generator and
// scenario: the time range (§0, J1 check 4), records failing one J1 check
// and every pair of them at once (so the order of the checks is observable,
// J1), and names whose naive concatenation collides (J3).
import { BOUND_MAX, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RejectReason, RowRecord } from '../../spec/index.ts';
import { validityOf } from '../../model/index.ts';

/** §0: the largest and smallest valid times, and the first invalid ones beyond them. */
export const TIME_EDGES = { min: TIME_MIN, max: TIME_MAX, belowMin: TIME_MIN - 1, aboveMax: TIME_MAX + 1 } as const;

/** J0: the bounds L and D at both ends of their range. */
export const BOUND_EDGES: readonly number[] = [0, BOUND_MAX];

/** The row checks of J1, in their order (check 1 to 7). */
export const ROW_CHECKS = ['empty_key', 'empty_id', 'bad_side', 'out_of_range', 'ts_before_start', 'ts_after_end', 'too_long'] as const;
type RowCheck = (typeof ROW_CHECKS)[number];

/** The times (ts, start, end) that fail exactly the given time checks of J1 (4 to 7), for any D in [0, 2^50]. */
function timesFailing(D: number, checks: readonly RowCheck[]): { ts: number; start: number; end: number } {
  const key = ROW_CHECKS.filter((c) => checks.includes(c) && ROW_CHECKS.indexOf(c) >= 3).join('+');
  const { min, belowMin, aboveMax } = TIME_EDGES;
  // A too-long interval starts at the bottom of the range, so that its end
  // (start + D + 1 <= 1) stays inside it even when D is 2^50.
  switch (key) {
    case '':
      return { ts: 0, start: 0, end: 0 };
    case 'out_of_range':
      return { ts: belowMin, start: belowMin, end: belowMin };
    case 'ts_before_start':
      return { ts: -1, start: 0, end: 0 };
    case 'ts_after_end':
      return { ts: 1, start: 0, end: 0 };
    case 'too_long':
      return { ts: min, start: min, end: min + D + 1 };
    case 'out_of_range+ts_before_start':
      return { ts: belowMin, start: 0, end: 0 };
    case 'out_of_range+ts_after_end':
      return { ts: aboveMax, start: 0, end: 0 };
    case 'out_of_range+too_long':
      return { ts: belowMin + D + 1, start: belowMin, end: belowMin + D + 1 };
    case 'ts_before_start+ts_after_end':
      // Reversed, ts between the ends: never repaired by swapping (J1).
      return { ts: 1, start: 2, end: 0 };
    case 'ts_before_start+too_long':
      return { ts: min, start: min + 1, end: min + D + 2 };
    case 'ts_after_end+too_long':
      return { ts: min + D + 2, start: min, end: min + D + 1 };
    default:
      throw new Error(`no record fails exactly ${key}`);
  }
}

/** The time fields of a row, each of which J1 check 4 reads. */
const TIME_FIELDS = ['ts', 'start', 'end'] as const;

/** The J1 time checks (4 to 7) a row's times fail, for D. */
function timeChecksFailed(D: number, t: { ts: number; start: number; end: number }): RowCheck[] {
  const out: RowCheck[] = [];
  if (TIME_FIELDS.some((f) => t[f] < TIME_MIN || t[f] > TIME_MAX)) out.push('out_of_range');
  if (t.ts < t.start) out.push('ts_before_start');
  if (t.ts > t.end) out.push('ts_after_end');
  if (t.end - t.start > D) out.push('too_long');
  return out;
}

/**
 * J1 check 4 reads each time field: for each field and each side of the
 * range, the times with that field alone outside it (the other two inside),
 * failing as few of the later checks as any such times do. A range check
 * that skips one field (or one end of the range) accepts one of these or
 * gives a later check's reason. Chosen among every triple of the edge values
 * (the two ends of the range, the first values beyond them, and 0), so none
 * is left out by hand.
 */
export function outOfRangeByField(D: number): { ts: number; start: number; end: number }[] {
  const { min, max, belowMin, aboveMax } = TIME_EDGES;
  const values = [belowMin, min, 0, max, aboveMax];
  const out: { ts: number; start: number; end: number }[] = [];
  for (const field of TIME_FIELDS) {
    for (const beyond of [belowMin, aboveMax]) {
      let best: { ts: number; start: number; end: number } | undefined;
      let fewest = Number.POSITIVE_INFINITY;
      for (const ts of values)
        for (const start of values)
          for (const end of values) {
            const t = { ts, start, end };
            if (t[field] !== beyond || TIME_FIELDS.some((f) => f !== field && (t[f] < min || t[f] > max))) continue;
            const failed = timeChecksFailed(D, t).length;
            if (failed < fewest) [best, fewest] = [t, failed];
          }
      if (best) out.push(best);
    }
  }
  return out;
}

/**
 * A record of `row`'s identity whose content differs from it (J2: a
 * conflict): `n` picks which of ts, start and end differ (each nonempty
 * subset, so a check that compares only some of them is caught) and whether
 * it is an insert or a retract. Each field that differs moves by one, up or
 * down, the first way that leaves the record valid (J1, as the model checks
 * it: J1 comes before J2);
 * undefined where no way does (ts alone on a one-point interval).
 */
export function conflictOf(row: RowRecord, n: number, config: JoinConfig): RowRecord | undefined {
  const subset = 1 + (n % 7);
  const kind = Math.floor(n / 7) % 2 === 0 ? 'insert' : 'retract';
  const fields = (['ts', 'start', 'end'] as const).filter((_, b) => (subset & (1 << b)) !== 0);
  for (let signs = 0; signs < 1 << fields.length; signs++) {
    const candidate: RowRecord = { ...row, kind };
    fields.forEach((f, b) => {
      candidate[f] = row[f] + ((signs & (1 << b)) === 0 ? 1 : -1);
    });
    if (validityOf(candidate, config) === undefined) return candidate;
  }
  return undefined;
}

/**
 * A row record of `key`/`id` that fails exactly the J1 checks named (at
 * most two) and passes the others; its reject reason is the first of them
 * in J1's order (`firstFailing`).
 */
export function rowFailing(
  config: JoinConfig,
  checks: readonly RowCheck[],
  base: { key: string; id: string; kind?: 'insert' | 'retract' },
): RowRecord {
  const fails = (c: RowCheck): boolean => checks.includes(c);
  return {
    kind: base.kind ?? 'insert',
    key: fails('empty_key') ? '' : base.key,
    side: fails('bad_side') ? 'X' : 'L',
    id: fails('empty_id') ? '' : base.id,
    ...timesFailing(config.maxIntervalLength, checks),
  };
}

/** J1 for a record built by rowFailing: its reason is the first check it fails. */
export function firstFailing(checks: readonly RowCheck[]): RejectReason {
  return ROW_CHECKS.find((c) => checks.includes(c)) as RejectReason;
}

/**
 * Every invalid record an operator must reject (J1): each row check alone,
 * every pair of row checks at once, each as an insert and as a retract; a
 * time out of range by each field alone, each side (outOfRangeByField); and
 * watermarks with a bad side, a time out of range either way, and both.
 * With `unknownKey`, also a valid row of an undeclared key and that key
 * with each J1 failure (C3: validity is checked first).
 */
export function invalidRecords(config: JoinConfig, names: { key: string; id: string; unknownKey?: string }): LogRecord[] {
  const out: LogRecord[] = [];
  const sets: RowCheck[][] = [];
  for (let i = 0; i < ROW_CHECKS.length; i++) {
    sets.push([ROW_CHECKS[i] as RowCheck]);
    for (let j = i + 1; j < ROW_CHECKS.length; j++) sets.push([ROW_CHECKS[i] as RowCheck, ROW_CHECKS[j] as RowCheck]);
  }
  // Each check alone as an insert and as a retract; each pair as one or the other, alternately.
  for (const [n, checks] of sets.entries()) {
    if (checks.length === 1)
      out.push(rowFailing(config, checks, { ...names, kind: 'insert' }), rowFailing(config, checks, { ...names, kind: 'retract' }));
    else out.push(rowFailing(config, checks, { ...names, kind: n % 2 === 0 ? 'insert' : 'retract' }));
  }
  // Check 4 by each time field alone, each side of the range: inserts and retracts alternately.
  for (const [n, times] of outOfRangeByField(config.maxIntervalLength).entries()) {
    const row: RowRecord = { kind: n % 2 === 0 ? 'insert' : 'retract', key: names.key, side: 'L', id: names.id, ...times };
    if (!out.some((r) => JSON.stringify(r) === JSON.stringify(row))) out.push(row);
  }
  out.push(
    { kind: 'watermark', side: 'X', wm: 0 },
    { kind: 'watermark', side: 'L', wm: TIME_EDGES.aboveMax },
    { kind: 'watermark', side: 'R', wm: TIME_EDGES.belowMin },
    { kind: 'watermark', side: '', wm: TIME_EDGES.aboveMax },
  );
  if (names.unknownKey !== undefined) {
    const key = names.unknownKey;
    out.push({ kind: 'insert', key, side: 'R', id: names.id, ts: 0, start: 0, end: 0 });
    for (const c of ROW_CHECKS) if (c !== 'empty_key') out.push(rowFailing(config, [c], { key, id: names.id }));
  }
  return out;
}

/**
 * Every line break some common line splitter breaks a string at, the whole
 * class: Unicode's mandatory breaks (UAX #14 classes LF, CR, the pair CR LF,
 * BK: U+000B, U+000C, U+2028, U+2029, and NL: U+0085) and the information
 * separators U+001C-U+001E, which Python's `str.splitlines` breaks at too
 * (JavaScript's line terminators and Java's and Go's line readers break at
 * subsets). Keys and ids are any non-empty strings (J1): a system that keeps
 * them in a line-oriented file and splits it as text (not as bytes at LF)
 * cuts a record in two.
 */
export const LINE_BREAKS: readonly string[] = [
  '\n',
  '\r',
  '\r\n',
  '\u000B',
  '\u000C',
  '\u001C',
  '\u001D',
  '\u001E',
  '\u0085',
  '\u2028',
  '\u2029',
];

/** Keys and ids with every line break of the class (LINE_BREAKS) inside one of them: two keys, an id for each break. */
export function lineBreakNames(): { keys: string[]; ids: string[] } {
  return { keys: ['k\u20281', 'k\r\n2'], ids: LINE_BREAKS.map((b) => `a${b}z`) };
}

/**
 * Names that are different strings but equal under a comparison some store
 * or language makes loosely, one group per comparison (J1: a key or id is any
 * non-empty string, compared exactly; J2: an identity is its exact key, side
 * and id; J3: a match needs the same key; C9: the sink keeps each match id
 * apart). A system that keeps them in a column with a case-insensitive or
 * padding collation, a numeric affinity, a LIKE, a Unicode normalization, or
 * a C string, takes two of a group for one: a conflict where there is none,
 * a match across keys, two matches deduplicated into one.
 */
export const LOOSELY_EQUAL: readonly (readonly string[])[] = [
  // ASCII case (SQL NOCASE, case-insensitive collations, lower() on both sides)
  ['ab', 'AB', 'aB'],
  // Unicode case
  ['\u00e9', '\u00c9'],
  // padding and trimming (SQL RTRIM, CHAR(n), trim())
  ['a', 'a ', ' a', 'a\t'],
  // numbers (a numeric affinity or a parse: 007 = 7 = 7.0 = +7 = 7e0)
  ['7', '007', '7.0', '+7', '7e0'],
  // LIKE patterns (`_` and `%` match other names)
  ['a_', 'ab', 'a%', 'abc'],
  // Unicode normalization (NFC and NFD) and compatibility (NFKC: fullwidth, ligatures)
  ['\u00e9', 'e\u0301', 'A', '\uff21', '\ufb01', 'fi'],
  // C strings (NUL-terminated: "a\0b" reads as "a")
  ['a', 'a\u0000', 'a\u0000b'],
];

/** Keys and ids for one group of LOOSELY_EQUAL: its first three members as keys (or all), all of them and one more as ids. */
export function looselyEqualNames(group: readonly string[]): { keys: string[]; ids: string[] } {
  return { keys: group.slice(0, 3), ids: [...group, 'x'] };
}

/** The separators a naive match-id encoding might join its parts with (J3). */
export const COMMON_SEPARATORS: readonly string[] = ['|', ':', '/', ',', '-', ' ', ''];

/** A match id built the naive way: the parts joined unescaped. Not injective (J3). */
export function naiveMatchId(separator: string, key: string, left: string, right: string): string {
  return `${key}${separator}${left}${separator}${right}`;
}

/**
 * Keys and ids that collide under a naive encoding with any common
 * separator s (J3): within key `k`, the left id `x` with the right id
 * `y{s}z` and the left id `x{s}y` with the right id `z` concatenate to the
 * same `k{s}x{s}y{s}z`; so does the key `k{s}x` with the left id `y` and the
 * right id `z`. `crossKeys` limits the keys `k{s}x` to those separators.
 */
export function collidingNames(crossKeys: readonly string[] = COMMON_SEPARATORS): { keys: string[]; ids: string[] } {
  return {
    keys: ['k', ...crossKeys.map((s) => `k${s}x`)],
    ids: ['x', 'y', 'z', ...COMMON_SEPARATORS.map((s) => `x${s}y`), ...COMMON_SEPARATORS.map((s) => `y${s}z`)],
  };
}

/**
 * The rows of a naive-encoding collision (J3) at time t, all overlapping:
 * for each separator given, in key k the left x with the right y{s}z and
 * the left x{s}y with the right z; and, where the key k{s}x is among
 * `keys`, in it the left y with the right z.
 */
export function collidingRows(separators: readonly string[], t: number, keys: readonly string[]): RowRecord[] {
  const at = (key: string, side: 'L' | 'R', id: string): RowRecord => ({ kind: 'insert', key, side, id, ts: t, start: t, end: t });
  const out: RowRecord[] = [at('k', 'L', 'x'), at('k', 'R', 'z')];
  for (const s of separators) {
    out.push(at('k', 'R', `y${s}z`), at('k', 'L', `x${s}y`));
    if (keys.includes(`k${s}x`)) out.push(at(`k${s}x`, 'L', 'y'), at(`k${s}x`, 'R', 'z'));
  }
  return out;
}

/**
 * Rows that make every common separator collide (J3), all matching in
 * pairs under D = 0: in `key`, the left x and the right y{s}z at time 0,
 * the left x{s}y and the right z at time 1, for every separator s — the
 * matches (key, x, y{s}z) and (key, x{s}y, z) are distinct pairs with the
 * same naive concatenation. With `crossKey`, also the left y and the right z
 * at time 1 in the key `key{s}x`, whose match concatenates to the same
 * string as both.
 */
export function collidingRowsForEverySeparator(key: string, crossKey = false): RowRecord[] {
  const at = (k: string, side: 'L' | 'R', id: string, t: number): RowRecord => ({
    kind: 'insert',
    key: k,
    side,
    id,
    ts: t,
    start: t,
    end: t,
  });
  return [
    at(key, 'L', 'x', 0),
    ...COMMON_SEPARATORS.map((s) => at(key, 'R', `y${s}z`, 0)),
    ...COMMON_SEPARATORS.map((s) => at(key, 'L', `x${s}y`, 1)),
    at(key, 'R', 'z', 1),
    ...(crossKey ? COMMON_SEPARATORS.flatMap((s) => [at(`${key}${s}x`, 'L', 'y', 1), at(`${key}${s}x`, 'R', 'z', 1)]) : []),
  ];
}

/** The watermark every side holds after `heldState` (J4). */
export const HELD_WATERMARK = -1;

/**
 * State a fresh copy lacks, for a key to carry into every handoff (C6, C8,
 * C10): live rows p and q matched, a tombstone t (a retraction that overtook
 * its insert, J6) and both watermarks, all at -1, where no later row at time
 * 0 or after overlaps them, later rows are on time, and they stay retained
 * until a watermark passes -1 + L + D (J8). An install, failover or restart
 * that ignores its checkpoint's rows shows it at once, in the copy's retained
 * counts; one that ignores only its watermarks shows it at the next record
 * whose outcome depends on them: a watermark sent again, stale for a copy
 * that holds them (`heldWatermarkAgain` in some scenarios' scripts,
 * `watermarksAgain` after every restore of a random trace and at the end of
 * every exhaustive cluster trace).
 */
export function heldState(...keys: string[]): LogRecord[] {
  const at = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string): RowRecord => ({
    kind,
    key,
    side,
    id,
    ts: HELD_WATERMARK,
    start: HELD_WATERMARK,
    end: HELD_WATERMARK,
  });
  return [
    ...keys.flatMap((key) => [at('insert', key, 'L', 'p'), at('insert', key, 'R', 'q'), at('retract', key, 'R', 't')]),
    { kind: 'watermark', side: 'L', wm: HELD_WATERMARK },
    { kind: 'watermark', side: 'R', wm: HELD_WATERMARK },
  ];
}

/**
 * The right watermark of `heldState` sent again (J4): stale for a copy that
 * holds its watermarks, accepted by one whose install, failover or restart
 * left them out (C6, C8, C10; C2: the watermarks are part of a copy's
 * state), so that the outcomes differ at once. A script sends it first,
 * before any watermark of its own, so that every interleaving of the
 * script with the handoffs has it after some restore.
 */
export function heldWatermarkAgain(): LogRecord {
  return { kind: 'watermark', side: 'R', wm: HELD_WATERMARK };
}

/**
 * The latest watermark of each side in a log, sent again (J4): stale for
 * every copy that holds its watermarks, accepted by one that lost them. The
 * random cluster traces send them after every restore (an install, a
 * failover, a restart), so that a copy restored without its checkpoint's
 * watermarks diverges at once; every exhaustive cluster trace ends with those
 * of its scenario's whole log (exhaustive.ts, the epilogue), so that it
 * diverges at the latest there.
 */
export function watermarksAgain(log: readonly LogRecord[]): LogRecord[] {
  const latest: { L?: number; R?: number } = {};
  for (const r of log) {
    if (r.kind !== 'watermark' || (r.side !== 'L' && r.side !== 'R')) continue;
    latest[r.side] = Math.max(latest[r.side] ?? r.wm, r.wm);
  }
  return (['L', 'R'] as const).flatMap((side): LogRecord[] => {
    const wm = latest[side];
    return wm === undefined ? [] : [{ kind: 'watermark', side, wm }];
  });
}
