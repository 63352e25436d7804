// The optimized single-partition join operator (SPEC J0–J9), written from
// SPEC.md independently of model/. Same observables as the reference model
// (outcomes, change sets, retained counts), different data structures:
//
// - per key, a map from (side, id) to the row's binding (J2's dedup entry);
// - per key and side, an interval tree over live rows (J3 overlap queries);
// - per row, the list of its active matches (J6 retraction without a scan);
// - one min-heap of all rows by end, across keys (J8 eviction that touches
//   only what is due).
import { compareCodePoints, BOUND_MAX, REJECT_REASONS } from '../spec/index.ts';
import type {
  Change,
  JoinConfig,
  LogRecord,
  Outcome,
  RejectReason,
  RetainedCounts,
  RowRecord,
  Side,
  WatermarkRecord,
  Watermarks,
} from '../spec/index.ts';
import { ConfigError } from './errors.ts';
import { HorizonHeap } from './horizonHeap.ts';
import { IntervalNode, IntervalTree } from './intervalTree.ts';
import { encodeMatchId } from './matchId.ts';
import { readSnapshot, SNAPSHOT_FORMAT } from './snapshot.ts';
import { rowValidity, watermarkValidity } from './validity.ts';
import type { OperatorCounters, OperatorSnapshot, SnapshotMatch, SnapshotRow } from './snapshot.ts';

/** Work done by eviction, for checking that it never scans (J8). Not part of the snapshot. */
export interface EvictionWork {
  /** Heap entries looked at: every evicted row plus one look per accepted watermark. */
  heapEntriesExamined: number;
  /** Active matches of evicted rows looked at (each at most once per endpoint). */
  matchEntriesExamined: number;
}

/** What `JoinOperator.apply` returns for one record. */
export interface ApplyResult {
  /** The record's outcome (J7). */
  outcome: Outcome;
  /** The changes it emits, sorted by match id (J7). */
  changes: Change[];
}

/** One key's state: bindings, interval indexes of live rows, and counts (§3). */
class KeyState {
  readonly key: string;
  readonly bindings: { readonly L: Map<string, RowEntry>; readonly R: Map<string, RowEntry> } = {
    L: new Map(),
    R: new Map(),
  };
  readonly liveIndex: { readonly L: IntervalTree<RowEntry>; readonly R: IntervalTree<RowEntry> } = {
    L: new IntervalTree(),
    R: new IntervalTree(),
  };
  live = 0;
  tombstones = 0;
  matches = 0;
  /** The key has no UTF-16 surrogate (see `compareMatches`). */
  readonly plainKey: boolean;

  constructor(key: string) {
    this.key = key;
    // Stryker disable next-line BooleanLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    this.plainKey = !hasSurrogate(key);
  }

  // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  get rowCount(): number {
    return this.bindings.L.size + this.bindings.R.size;
  }
}

/** A bound identity (J2). It is its own interval-tree node while live. */
class RowEntry extends IntervalNode {
  readonly keyState: KeyState;
  readonly side: Side;
  readonly id: string;
  readonly ts: number;
  /** The id has no UTF-16 surrogate (see `compareMatches`). */
  readonly plainId: boolean;
  live: boolean;
  /**
   * Active matches with this row as an endpoint, in no particular order;
   * null when none (every tombstone). Each match knows its slot here, so
   * removal is a swap with the last element, O(1), with no hashing.
   */
  matches: MatchEntry[] | null = null;

  constructor(keyState: KeyState, side: Side, id: string, ts: number, start: number, end: number, live: boolean, order: number) {
    super(start, end, order);
    this.keyState = keyState;
    this.side = side;
    this.id = id;
    this.ts = ts;
    this.live = live;
    // Stryker disable next-line BooleanLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    this.plainId = !hasSurrogate(id);
  }
}

/** An active match (J3) that is retained (J8). An endpoint is null once evicted. */
class MatchEntry {
  readonly id: string;
  readonly leftId: string;
  readonly rightId: string;
  /** The id has no UTF-16 surrogate (see `compareMatches`). */
  readonly plain: boolean;
  left: RowEntry | null;
  right: RowEntry | null;
  /** Index of this match in `left.matches` and in `right.matches`. */
  // Stryker disable next-line UnaryOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  leftSlot = -1;
  // Stryker disable next-line UnaryOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  rightSlot = -1;

  constructor(id: string, plain: boolean, left: RowEntry | null, right: RowEntry | null, leftId: string, rightId: string) {
    this.id = id;
    this.plain = plain;
    this.left = left;
    this.right = right;
    this.leftId = leftId;
    this.rightId = rightId;
  }
}

// Stryker disable next-line ArrowFunction,Regex: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
const hasSurrogate = (s: string): boolean => /[\uD800-\uDFFF]/.test(s);

/**
 * §0 order of match ids (J7's canonical order of changes). Strings without
 * surrogates order the same by UTF-16 code unit as by code point, so the
 * native comparison is exact for them; only ids with astral characters take
 * the slower code-point comparison.
 */
// Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
function compareMatches(a: MatchEntry, b: MatchEntry): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,UnaryOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return compareCodePoints(a.id, b.id);
}

const opposite = (s: Side): Side => (s === 'L' ? 'R' : 'L');
// Stryker disable next-line LogicalOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;

function zeroRejections(): Record<RejectReason, number> {
  const out = {} as Record<RejectReason, number>;
  for (const r of REJECT_REASONS) out[r] = 0;
  return out;
}

function addMatch(row: RowEntry, m: MatchEntry): void {
  const list = row.matches ?? (row.matches = []);
  if (row.side === 'L') m.leftSlot = list.length;
  else m.rightSlot = list.length;
  list.push(m);
}

/** Removes `m` from `row`'s match list by swapping the last entry into its slot. */
function removeMatch(row: RowEntry, m: MatchEntry): void {
  const list = row.matches as MatchEntry[];
  const slot = row.side === 'L' ? m.leftSlot : m.rightSlot;
  const last = list.pop() as MatchEntry;
  if (last === m) return;
  list[slot] = last;
  if (row.side === 'L') last.leftSlot = slot;
  else last.rightSlot = slot;
}

/**
 * One single-partition join operator. A cluster worker holds one per key it
 * owns (each with the watermark view of its own log cursor), checkpoints it
 * with `snapshot()` and restores it elsewhere with `JoinOperator.restore`.
 */
export class JoinOperator {
  /** The configuration (J0), frozen. */
  readonly config: Readonly<JoinConfig>;
  /** L + D, so that a horizon (J8) is `end + slack`. */
  private readonly slack: number;
  private wm: { L: number | null; R: number | null } = { L: null, R: null };
  private readonly keys = new Map<string, KeyState>();
  private readonly horizon = new HorizonHeap<RowEntry>();
  private nextOrder = 0;
  private totals = { live: 0, tombstones: 0, matches: 0 };
  private readonly count: OperatorCounters = {
    accepted: 0,
    duplicate: 0,
    late: 0,
    stale: 0,
    rejected: zeroRejections(),
    evictedRows: 0,
    evictedMatches: 0,
  };
  // Stryker disable next-line ObjectLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  private readonly work: EvictionWork = { heapEntriesExamined: 0, matchEntriesExamined: 0 };

  /** An empty operator; throws ConfigError when the configuration is outside J0. */
  constructor(config: JoinConfig) {
    // J0: a configuration outside the range is not a configuration.
    // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (!isBound(config.allowedLateness)) {
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      throw new ConfigError(`J0: allowedLateness must be an integer in [0, 2^50], got ${String(config.allowedLateness)}`);
    }
    // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (!isBound(config.maxIntervalLength)) {
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      throw new ConfigError(`J0: maxIntervalLength must be an integer in [0, 2^50], got ${String(config.maxIntervalLength)}`);
    }
    this.config = Object.freeze({ allowedLateness: config.allowedLateness, maxIntervalLength: config.maxIntervalLength });
    this.slack = config.allowedLateness + config.maxIntervalLength;
  }

  /** Applies one record (J7): its outcome and its changes, sorted by match id. */
  apply(record: LogRecord): ApplyResult {
    switch (record.kind) {
      case 'watermark':
        return this.applyWatermark(record as WatermarkRecord);
      case 'insert':
      case 'retract':
        return this.applyRow(record as RowRecord);
      // Stryker disable all: record validation, unreachable through the protocol (docs/mutation.md)
      default:
        throw new TypeError(`record kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind: unknown }).kind)}`);
    }
  }
  // Stryker restore all

  /** Retained live rows, tombstones and matches (§3, J8), over all keys or for one key. */
  retained(key?: string): RetainedCounts {
    if (key === undefined) return { ...this.totals };
    const ks = this.keys.get(key);
    return ks === undefined ? { live: 0, tombstones: 0, matches: 0 } : { live: ks.live, tombstones: ks.tombstones, matches: ks.matches };
  }

  /** What it has decided so far, by outcome, and what it evicted (a copy). */
  counters(): OperatorCounters {
    return { ...this.count, rejected: { ...this.count.rejected } };
  }

  /** Its per-side watermarks (J4); `null` is −∞. */
  watermarks(): Watermarks {
    return { L: this.wm.L, R: this.wm.R };
  }

  /** The keys that have retained state, in §0 code-point order. */
  retainedKeys(): string[] {
    // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    return [...this.keys.keys()].sort(compareCodePoints);
  }

  // Stryker disable all: read by the unit tests and benchmarks only, never by the operator (docs/mutation.md)
  /** Work done by eviction so far (J8), for tests and benchmarks. */
  evictionWork(): EvictionWork {
    return { ...this.work };
  }
  // Stryker restore all

  /** J4: the global watermark, null (−∞) until both sides have reported. */
  private globalWatermark(): number | null {
    const { L, R } = this.wm;
    return L === null || R === null ? null : Math.min(L, R);
  }

  private reject(reason: RejectReason): ApplyResult {
    this.count.rejected[reason]++;
    return { outcome: { code: 'rejected', reason }, changes: [] };
  }

  private applyWatermark(record: WatermarkRecord): ApplyResult {
    // J1 for watermarks, then J4.
    const invalid = watermarkValidity(record);
    if (invalid !== undefined) return this.reject(invalid);
    const side = record.side as Side;
    const current = this.wm[side];
    if (current !== null && record.wm <= current) {
      this.count.stale++;
      return { outcome: { code: 'stale' }, changes: [] };
    }
    this.wm[side] = record.wm;
    this.count.accepted++;
    this.evictDue();
    return { outcome: { code: 'accepted' }, changes: [] };
  }

  private applyRow(record: RowRecord): ApplyResult {
    // mutant: reversed-interval-swapped
    // J7 check 1: validity.
    const invalid = rowValidity(record, this.config.maxIntervalLength);
    if (invalid !== undefined) return this.reject(invalid);
    const side = record.side as Side;
    // J7 check 2: lateness, before any identity lookup, so that no outcome
    // depends on whether a binding has been evicted.
    const gw = this.globalWatermark();
    if (gw !== null) {
      // mutant: retraction-held-to-insert-lateness
      const late =
        record.kind === 'insert'
          ? record.ts < gw - this.config.allowedLateness // J5
          : gw > record.end + this.slack; // J6
      if (late) {
        this.count.late++;
        return { outcome: { code: 'late' }, changes: [] };
      }
    }
    const ks = this.keys.get(record.key);
    const bound = ks?.bindings[side].get(record.id);
    if (bound !== undefined) {
      // J7 check 3 (J2): same identity, other content.
      if (bound.ts !== record.ts || bound.start !== record.start || bound.end !== record.end) return this.reject('conflict');
      // J7 check 4: an insert of a bound identity, or a retract of a tombstone.
      if (record.kind === 'insert' || !bound.live) {
        this.count.duplicate++;
        return { outcome: { code: 'duplicate' }, changes: [] };
      }
      // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      this.count.accepted++;
      return { outcome: { code: 'accepted' }, changes: this.retractLive(bound) };
    }
    // J7 check 5 for an unbound identity.
    // mutant: overtaking-retract-dropped
    this.count.accepted++;
    const keyState = ks ?? this.addKey(record.key);
    const live = record.kind === 'insert';
    const row = new RowEntry(keyState, side, record.id, record.ts, record.start, record.end, live, this.nextOrder++);
    keyState.bindings[side].set(record.id, row);
    this.horizon.push(row);
    if (!live) {
      // J6: the retract overtook its insert; the tombstone makes the insert a duplicate.
      keyState.tombstones++;
      this.totals.tombstones++;
      return { outcome: { code: 'accepted' }, changes: [] };
    }
    const changes = this.joinNewRow(row);
    keyState.liveIndex[side].insert(row);
    keyState.live++;
    this.totals.live++;
    return { outcome: { code: 'accepted' }, changes };
  }

  private addKey(key: string): KeyState {
    const ks = new KeyState(key);
    this.keys.set(key, ks);
    return ks;
  }

  /** J3/J7: insert a match with every live opposite row of the key that overlaps `row`. */
  private joinNewRow(row: RowEntry): Change[] {
    const ks = row.keyState;
    const added: MatchEntry[] = [];
    const key = ks.key;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const plainRow = ks.plainKey && row.plainId;
    ks.liveIndex[opposite(row.side)].forEachOverlapping(row.start, row.end, (partner) => {
      const l = row.side === 'L' ? row : partner;
      const r = row.side === 'L' ? partner : row;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      const m = new MatchEntry(encodeMatchId(key, l.id, r.id), plainRow && partner.plainId, l, r, l.id, r.id);
      addMatch(row, m);
      addMatch(partner, m);
      added.push(m);
    });
    if (added.length === 0) return [];
    ks.matches += added.length;
    this.totals.matches += added.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (added.length > 1) added.sort(compareMatches);
    // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const changes: Change[] = new Array<Change>(added.length);
    for (let i = 0; i < added.length; i++) {
      const m = added[i] as MatchEntry;
      changes[i] = { op: 'insert', match: m.id, key, left: m.leftId, right: m.rightId };
    }
    return changes;
  }

  /** J6: live row becomes a tombstone; every active match it is in is retracted. */
  private retractLive(row: RowEntry): Change[] {
    const ks = row.keyState;
    ks.liveIndex[row.side].remove(row);
    row.live = false;
    ks.live--;
    ks.tombstones++;
    this.totals.live--;
    this.totals.tombstones++;
    const active = row.matches;
    row.matches = null;
    if (active === null) return [];
    for (const m of active) {
      // The partner may have been evicted already (J7: retract it all the same).
      const partner = row.side === 'L' ? m.right : m.left;
      if (partner !== null) removeMatch(partner, m);
    }
    ks.matches -= active.length;
    this.totals.matches -= active.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (active.length > 1) active.sort(compareMatches);
    // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const changes: Change[] = new Array<Change>(active.length);
    for (let i = 0; i < active.length; i++) {
      const m = active[i] as MatchEntry;
      changes[i] = { op: 'retract', match: m.id, key: ks.key, left: m.leftId, right: m.rightId };
    }
    return changes;
  }

  /** J8: evict every row with `gw > end + L + D`, in horizon order, and the matches left without an endpoint. */
  private evictDue(): void {
    const gw = this.globalWatermark();
    if (gw === null) return;
    for (;;) {
      const next = this.horizon.peek();
      // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      this.work.heapEntriesExamined++;
      // mutant: eviction-at-ts-plus-lateness
      // mutant: off-by-one-eviction
      if (next === undefined || gw <= next.end + this.slack) return;
      this.horizon.pop();
      this.evictRow(next);
    }
  }

  private evictRow(row: RowEntry): void {
    const ks = row.keyState;
    ks.bindings[row.side].delete(row.id);
    if (row.live) {
      ks.liveIndex[row.side].remove(row);
      ks.live--;
      this.totals.live--;
    } else {
      ks.tombstones--;
      this.totals.tombstones--;
    }
    this.count.evictedRows++;
    const active = row.matches;
    row.matches = null;
    if (active !== null) {
      let dropped = 0;
      for (const m of active) {
        // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        this.work.matchEntriesExamined++;
        // J8: a match is retained while one endpoint is; drop it with the last.
        // mutant: match-dropped-with-one-endpoint
        if (row.side === 'L') m.left = null;
        else m.right = null;
        if (m.left === null && m.right === null) dropped++;
      }
      ks.matches -= dropped;
      this.totals.matches -= dropped;
      this.count.evictedMatches += dropped;
    }
    if (ks.rowCount === 0) this.keys.delete(ks.key);
  }

  /**
   * A plain-JSON copy of the complete state, canonically ordered (rows by
   * key, side, id; matches by match id; §0 code-point order), so that equal
   * states give byte-identical snapshots.
   */
  snapshot(): OperatorSnapshot {
    const rows: SnapshotRow[] = [];
    const matches: { id: string; m: SnapshotMatch }[] = [];
    for (const key of this.retainedKeys()) {
      const ks = this.keys.get(key) as KeyState;
      for (const side of ['L', 'R'] as const) {
        // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        const ids = [...ks.bindings[side].keys()].sort(compareCodePoints);
        for (const id of ids) {
          const r = ks.bindings[side].get(id) as RowEntry;
          rows.push({ key, side, id, ts: r.ts, start: r.start, end: r.end, live: r.live });
          if (r.matches === null) continue;
          for (const m of r.matches) {
            // Each match once: from its left endpoint, or from its right one if the left is evicted.
            if (side === 'L' || m.left === null) matches.push({ id: m.id, m: { key, left: m.leftId, right: m.rightId } });
          }
        }
      }
    }
    // Stryker disable next-line ArrowFunction,MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    matches.sort((a, b) => compareCodePoints(a.id, b.id));
    return {
      format: SNAPSHOT_FORMAT,
      config: { allowedLateness: this.config.allowedLateness, maxIntervalLength: this.config.maxIntervalLength },
      watermarks: this.watermarks(),
      rows,
      matches: matches.map((x) => x.m),
      counters: this.counters(),
    };
  }

  /**
   * Rebuilds an operator from `snapshot` (taken under the same config).
   * Validates everything first and throws `SnapshotError` naming the field;
   * the snapshot is not modified and not aliased.
   */
  static restore(config: JoinConfig, snapshot: unknown): JoinOperator {
    const op = new JoinOperator(config);
    const s = readSnapshot(op.config, snapshot);
    op.wm = { L: s.watermarks.L, R: s.watermarks.R };
    const c = s.counters;
    Object.assign(op.count, { ...c, rejected: { ...c.rejected } });
    const all: RowEntry[] = [];
    for (const r of s.rows) {
      const ks = op.keys.get(r.key) ?? op.addKey(r.key);
      const row = new RowEntry(ks, r.side, r.id, r.ts, r.start, r.end, r.live, op.nextOrder++);
      ks.bindings[r.side].set(r.id, row);
      all.push(row);
      if (r.live) {
        ks.liveIndex[r.side].insert(row);
        ks.live++;
        // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        op.totals.live++;
      } else {
        ks.tombstones++;
        // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        op.totals.tombstones++;
      }
    }
    op.horizon.rebuild(all);
    for (const m of s.matches) {
      const ks = op.keys.get(m.key) as KeyState; // readSnapshot checked that an endpoint is retained
      const left = ks.bindings.L.get(m.left) ?? null;
      const right = ks.bindings.R.get(m.right) ?? null;
      // Stryker disable next-line BooleanLiteral,ConditionalExpression,LogicalOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);
      const entry = new MatchEntry(encodeMatchId(m.key, m.left, m.right), plain, left, right, m.left, m.right);
      if (left !== null) addMatch(left, entry);
      if (right !== null) addMatch(right, entry);
      ks.matches++;
      // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      op.totals.matches++;
    }
    return op;
  }
}
