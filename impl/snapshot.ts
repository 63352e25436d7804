// The operator snapshot: a plain-JSON copy of the complete state of a
// JoinOperator, and the validation that `restore` runs before trusting one.
// A snapshot comes back from disk or from another worker, so every field is
// checked: shape, J1 validity of each row, J8 (nothing past its horizon is
// held) and the match invariants (J3, J6, J8).
import { BOUND_MAX, REJECT_REASONS, TIME_MAX, TIME_MIN } from '../spec/index.ts';
import type { JoinConfig, RejectReason, Side, Watermarks } from '../spec/index.ts';
import { SnapshotError } from './errors.ts';
import { encodeMatchId } from './matchId.ts';

/** `format` value of an operator snapshot. */
// Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
export const SNAPSHOT_FORMAT = 'streamjoin/operator-snapshot@1';

/** A bound identity (J2) with its content and whether it is live. */
export interface SnapshotRow {
  /** Join key. */
  key: string;
  /** Side the row is on. */
  side: Side;
  /** Row id. */
  id: string;
  /** Event time. */
  ts: number;
  /** Start of the row's interval. */
  start: number;
  /** End of the row's interval. */
  end: number;
  /** True while inserted and not retracted; false for a tombstone. */
  live: boolean;
}

/** A retained active match (J8): ids of its L and R rows. */
export interface SnapshotMatch {
  /** The key both rows have. */
  key: string;
  /** Id of the left row. */
  left: string;
  /** Id of the right row. */
  right: string;
}

/** What the operator has decided so far, by outcome (J7), and what it evicted (J8). */
export interface OperatorCounters {
  /** Records accepted. */
  accepted: number;
  /** Records that were duplicates (J2). */
  duplicate: number;
  /** Records that were late (J5, J6). */
  late: number;
  /** Watermarks that were stale (J4). */
  stale: number;
  /** Records rejected, per reason (J1, J2). */
  rejected: Record<RejectReason, number>;
  /** Rows evicted (J8). */
  evictedRows: number;
  /** Matches evicted (J8). */
  evictedMatches: number;
}

/** The complete state of a JoinOperator as plain JSON (`snapshot()`, `JoinOperator.restore`). */
export interface OperatorSnapshot {
  /** Always `SNAPSHOT_FORMAT`. */
  format: typeof SNAPSHOT_FORMAT;
  /** The operator's configuration (J0). */
  config: JoinConfig;
  /** Its per-side watermarks (J4). */
  watermarks: Watermarks;
  /** Ordered by key, side, id (§0 code-point order). */
  rows: SnapshotRow[];
  /** Ordered by match id (§0 code-point order). */
  matches: SnapshotMatch[];
  /** What it has decided so far, and what it evicted. */
  counters: OperatorCounters;
}

type Json = Record<string, unknown>;

// Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= TIME_MIN && v <= TIME_MAX;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
// Stryker restore all

function objectWith(v: unknown, at: string, fields: readonly string[]): Json {
  // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (!isObject(v)) throw new SnapshotError(at, 'must be an object');
  let present = 0;
  for (const f of fields) {
    if (!Object.hasOwn(v, f)) throw new SnapshotError(at, `is missing "${f}"`);
    present++;
  }
  // Cheap common case first: no more fields than expected means no unknown ones.
  if (Object.keys(v).length !== present) {
    for (const f of Object.keys(v)) if (!fields.includes(f)) throw new SnapshotError(`${at}/${f}`, 'is not a snapshot field');
  }
  // Stryker restore all
  return v;
}

function nonEmptyString(v: unknown, at: string): string {
  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (typeof v !== 'string' || v === '') throw new SnapshotError(at, 'must be a non-empty string');
  return v;
}

function side(v: unknown, at: string): Side {
  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (v !== 'L' && v !== 'R') throw new SnapshotError(at, 'must be "L" or "R"');
  return v;
}

function time(v: unknown, at: string): number {
  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (!isTime(v)) throw new SnapshotError(at, 'must be an integer in [-2^50, 2^50]');
  return v;
}

function count(v: unknown, at: string): number {
  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (!isCount(v)) throw new SnapshotError(at, 'must be a non-negative integer');
  return v;
}

// Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
function readCounters(v: unknown): OperatorCounters {
  const c = objectWith(v, '/counters', ['accepted', 'duplicate', 'late', 'stale', 'rejected', 'evictedRows', 'evictedMatches']);
  // A reason the spec added after the snapshot was taken has counted nothing
  // yet, so a missing reason reads as 0; a reason this code does not know is an error.
  const rejected = c['rejected'];
  if (!isObject(rejected)) throw new SnapshotError('/counters/rejected', 'must be an object');
  const byReason = {} as Record<RejectReason, number>;
  for (const r of REJECT_REASONS) byReason[r] = Object.hasOwn(rejected, r) ? count(rejected[r], `/counters/rejected/${r}`) : 0;
  for (const r of Object.keys(rejected)) {
    if (!(REJECT_REASONS as readonly string[]).includes(r)) throw new SnapshotError(`/counters/rejected/${r}`, 'is not a reject reason');
  }
  return {
    accepted: count(c['accepted'], '/counters/accepted'),
    duplicate: count(c['duplicate'], '/counters/duplicate'),
    late: count(c['late'], '/counters/late'),
    stale: count(c['stale'], '/counters/stale'),
    rejected: byReason,
    evictedRows: count(c['evictedRows'], '/counters/evictedRows'),
    evictedMatches: count(c['evictedMatches'], '/counters/evictedMatches'),
  };
}
// Stryker restore all

/**
 * Checks that `value` is a snapshot the operator configured with `config`
 * could have taken, and returns it typed. Throws `SnapshotError` with the
 * JSON pointer of the first offending field.
 */
export function readSnapshot(config: Readonly<JoinConfig>, value: unknown): OperatorSnapshot {
  const s = objectWith(value, '', ['format', 'config', 'watermarks', 'rows', 'matches', 'counters']);
  // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (s['format'] !== SNAPSHOT_FORMAT) {
    throw new SnapshotError('/format', `must be ${JSON.stringify(SNAPSHOT_FORMAT)}, got ${JSON.stringify(s['format'])}`);
  }
  const cfg = objectWith(s['config'], '/config', ['allowedLateness', 'maxIntervalLength']);
  for (const f of ['allowedLateness', 'maxIntervalLength'] as const) {
    const v = cfg[f];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > BOUND_MAX) {
      throw new SnapshotError(`/config/${f}`, 'must be an integer in [0, 2^50]');
    }
    // J8: horizons depend on L and D; a state kept under other bounds is not this operator's.
    if (v !== config[f]) throw new SnapshotError(`/config/${f}`, `is ${v}, but the operator is configured with ${config[f]}`);
  }
  // Stryker restore all
  const wmJson = objectWith(s['watermarks'], '/watermarks', ['L', 'R']);
  const wm: Watermarks = {
    L: wmJson['L'] === null ? null : time(wmJson['L'], '/watermarks/L'),
    R: wmJson['R'] === null ? null : time(wmJson['R'], '/watermarks/R'),
  };
  // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  const gw = wm.L === null || wm.R === null ? null : Math.min(wm.L, wm.R);
  const slack = config.allowedLateness + config.maxIntervalLength;
  // Stryker restore all

  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (!Array.isArray(s['rows'])) throw new SnapshotError('/rows', 'must be an array');
  const rows: SnapshotRow[] = [];
  // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  // key -> side -> id -> row, to find duplicates and match endpoints.
  const byKey = new Map<string, { L: Map<string, SnapshotRow>; R: Map<string, SnapshotRow> }>();
  const bindingsOf = (key: string): { L: Map<string, SnapshotRow>; R: Map<string, SnapshotRow> } => {
    let b = byKey.get(key);
    if (b === undefined) {
      b = { L: new Map(), R: new Map() };
      byKey.set(key, b);
    }
    return b;
  };
  // Stryker restore all
  s['rows'].forEach((v: unknown, i: number) => {
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const at = `/rows/${i}`;
    const r = objectWith(v, at, ['key', 'side', 'id', 'ts', 'start', 'end', 'live']);
    const row: SnapshotRow = {
      key: nonEmptyString(r['key'], `${at}/key`),
      side: side(r['side'], `${at}/side`),
      id: nonEmptyString(r['id'], `${at}/id`),
      ts: time(r['ts'], `${at}/ts`),
      start: time(r['start'], `${at}/start`),
      end: time(r['end'], `${at}/end`),
      live: ((): boolean => {
        // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
        if (typeof r['live'] !== 'boolean') throw new SnapshotError(`${at}/live`, 'must be true or false');
        return r['live'];
      })(),
    };
    // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
    // J1: only valid rows are ever bound.
    if (row.ts < row.start || row.ts > row.end) throw new SnapshotError(at, 'row breaks start <= ts <= end (J1)');
    if (row.end - row.start > config.maxIntervalLength) throw new SnapshotError(at, 'row is longer than D (J1)');
    // J8: a row past its horizon is never retained.
    if (gw !== null && gw > row.end + slack) throw new SnapshotError(at, `row is past its horizon ${row.end} + L + D < gw ${gw} (J8)`);
    const bindings = bindingsOf(row.key)[row.side];
    if (bindings.has(row.id)) throw new SnapshotError(at, `identity (${row.key}, ${row.side}, ${row.id}) is bound twice (J2)`);
    bindings.set(row.id, row);
    // Stryker restore all
    rows.push(row);
  });

  // Stryker disable next-line all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  if (!Array.isArray(s['matches'])) throw new SnapshotError('/matches', 'must be an array');
  const matches: SnapshotMatch[] = [];
  // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
  const seen = new Set<string>();
  // Stryker restore all
  s['matches'].forEach((v: unknown, i: number) => {
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const at = `/matches/${i}`;
    const m = objectWith(v, at, ['key', 'left', 'right']);
    const match: SnapshotMatch = {
      key: nonEmptyString(m['key'], `${at}/key`),
      left: nonEmptyString(m['left'], `${at}/left`),
      right: nonEmptyString(m['right'], `${at}/right`),
    };
    // Stryker disable all: snapshot validation, unreachable through the protocol (docs/mutation.md)
    const pair = encodeMatchId(match.key, match.left, match.right); // injective (J3)
    if (seen.has(pair)) throw new SnapshotError(at, 'match is listed twice');
    seen.add(pair);
    const bindings = byKey.get(match.key);
    const l = bindings?.L.get(match.left);
    const r = bindings?.R.get(match.right);
    // J8: retained only while an endpoint is.
    if (l === undefined && r === undefined) throw new SnapshotError(at, 'match has no retained endpoint (J8)');
    // J6: retracting an endpoint retracts the match, so a retained endpoint is live.
    if ((l !== undefined && !l.live) || (r !== undefined && !r.live)) {
      throw new SnapshotError(at, 'match has a tombstone endpoint (J6)');
    }
    // J3: both endpoints known means they must overlap.
    if (l !== undefined && r !== undefined && !(l.start <= r.end && r.start <= l.end)) {
      throw new SnapshotError(at, 'match endpoints do not overlap (J3)');
    }
    // Stryker restore all
    matches.push(match);
  });
  // Not checked: that every overlapping live pair has its match (that needs
  // the join itself); restore trusts the listed matches beyond the above.

  return {
    format: SNAPSHOT_FORMAT,
    // Stryker disable next-line ObjectLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    config: { allowedLateness: config.allowedLateness, maxIntervalLength: config.maxIntervalLength },
    watermarks: wm,
    rows,
    matches,
    counters: readCounters(s['counters']),
  };
}
