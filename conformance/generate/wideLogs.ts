// fast-check generator of long logs over wide domains: hundreds of rows live
// at once per key and side, long intervals that overlap many partners, and
// watermarks that keep moving, so an indexed operator's trees rebalance,
// queries report many rows and eviction runs in batches. The small-domain
// generator (logs.ts) hits the rule boundaries; this one hits the
// data structures.
//
// Some logs run near the ends of the time range (-2^50, 2^50) and some
// configs take L or D = 2^50, so that the trees' and the heap's arithmetic
// is exercised where an implementation that is not exact would round or
// overflow (§0).
//
// Every log is in contract (J9) by construction, without running the oracle
// (which is quadratic per record): rows get fresh ids, re-sends repeat an
// earlier record's content, and a conflicting variant of an earlier identity
// is dropped whenever that identity might already have passed its horizon.
import fc from 'fast-check';
import { BOUND_MAX, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { globalWatermark } from '../../model/index.ts';

export interface WideDomain {
  readonly keys: number;
  readonly maxRecords: number;
  /** Largest L and D drawn. */
  readonly maxLateness: number;
  readonly maxLength: number;
}

export const wideDomain: WideDomain = { keys: 2, maxRecords: 400, maxLateness: 8, maxLength: 40 };

type WideOp =
  | {
      readonly op: 'insert';
      readonly key: number;
      readonly side: 'L' | 'R';
      readonly offset: number;
      readonly length: number;
      readonly tsAt: number;
    }
  | { readonly op: 'retract'; readonly pick: number }
  | { readonly op: 'overtake'; readonly key: number; readonly side: 'L' | 'R'; readonly offset: number; readonly length: number }
  | { readonly op: 'resend'; readonly pick: number }
  | { readonly op: 'conflict'; readonly pick: number; readonly shift: number }
  | { readonly op: 'watermark'; readonly side: 'L' | 'R'; readonly step: number }
  | {
      readonly op: 'burst';
      readonly key: number;
      readonly side: 'L' | 'R';
      readonly offset: number;
      readonly length: number;
      readonly count: number;
      /** How many rows from the middle of the burst are retracted again, before a row of the other side joins it. */
      readonly withdrawn: number;
    }
  | {
      readonly op: 'gap';
      readonly key: number;
      readonly side: 'L' | 'R';
      readonly offset: number;
      readonly count: number;
      readonly deleted: number;
    }
  | { readonly op: 'lastLive'; readonly side: 'L' | 'R'; readonly reach: number };

function wideOpArbitrary(domain: WideDomain): fc.Arbitrary<WideOp> {
  const key = fc.integer({ min: 0, max: domain.keys - 1 });
  const side = fc.constantFrom('L' as const, 'R' as const);
  const offset = fc.integer({ min: -12, max: 40 });
  const length = fc.nat({ max: domain.maxLength });
  return fc.oneof(
    { weight: 10, arbitrary: fc.record({ op: fc.constant('insert' as const), key, side, offset, length, tsAt: fc.nat() }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('retract' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('overtake' as const), key, side, offset, length }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('resend' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('conflict' as const), pick: fc.nat(), shift: fc.integer({ min: -2, max: 2 }) }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('watermark' as const), side, step: fc.integer({ min: -3, max: 12 }) }) },
    // Rows that arrive together with the same interval (a batch load, events of one instant): many rows share one
    // horizon, so eviction breaks ties at scale. Some of them are withdrawn at once (a batch partly rolled back): the
    // index then loses rows from its middle, not only its minimum, and the partner probes what is left.
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('burst' as const),
        key,
        side,
        offset,
        length,
        count: fc.integer({ min: 8, max: 24 }),
        withdrawn: fc.nat({ max: 3 }),
      }),
    },
    // An interval index keyed by start loses a node from the middle, whose left part holds a row reaching further
    // right than anything after it; a row of the other side then probes that gap (J3).
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('gap' as const),
        key,
        side,
        offset,
        count: fc.integer({ min: 4, max: 14 }),
        deleted: fc.integer({ min: 1, max: 3 }),
      }),
    },
    // A key's last live row is evicted while its tombstone with a later horizon stays (J6, J8).
    { weight: 1, arbitrary: fc.record({ op: fc.constant('lastLive' as const), side, reach: fc.integer({ min: 1, max: 6 }) }) },
  );
}

function materializeWide(config: JoinConfig, ops: readonly WideOp[], origin: number): LogRecord[] {
  const L = config.allowedLateness;
  const D = config.maxIntervalLength;
  const out: LogRecord[] = [];
  const rows: RowRecord[] = [];
  const wm: { L: number | null; R: number | null } = { L: null, R: null };
  // Smallest end any record of an identity has carried (for the J9 guard).
  const minEndOf = new Map<string, number>();
  let fresh = 0;
  const gw = (): number | null => globalWatermark(wm);
  const clock = (): number => Math.max(wm.L ?? origin, wm.R ?? origin);
  const identity = (r: RowRecord): string => JSON.stringify([r.key, r.side, r.id]);
  const emitRow = (r: RowRecord): void => {
    const idn = identity(r);
    const g = gw();
    const late = g !== null && (r.kind === 'insert' ? r.ts < g - L : g > r.end + L + D);
    const known = minEndOf.get(idn);
    // J9: a record that reaches the identity checks while its identity may be
    // past its horizon is outside the contract; drop it.
    if (!late && known !== undefined && g !== null && g > known + L + D) return;
    minEndOf.set(idn, Math.min(known ?? r.end, r.end));
    out.push(r);
    rows.push(r);
  };
  const newRow = (kind: 'insert' | 'retract', key: number, side: 'L' | 'R', offset: number, length: number, tsAt: number): RowRecord => {
    const len = Math.min(length, D);
    const start = clock() - L + offset;
    return { kind, key: `k${key}`, side, id: `r${fresh++}`, ts: start + (tsAt % (len + 1)), start, end: start + len };
  };
  for (const op of ops) {
    switch (op.op) {
      case 'insert':
        emitRow(newRow('insert', op.key, op.side, op.offset, op.length, op.tsAt));
        break;
      case 'overtake':
        emitRow(newRow('retract', op.key, op.side, op.offset, op.length, 0));
        break;
      case 'burst': {
        const first = newRow('insert', op.key, op.side, op.offset, op.length, 0);
        const batch = [first];
        for (let i = 1; i < op.count; i++) batch.push({ ...first, id: `r${fresh++}` });
        for (const r of batch) emitRow(r);
        if (op.withdrawn > 0) {
          for (let k = 1; k <= op.withdrawn; k++)
            emitRow({ ...(batch[Math.floor((k * batch.length) / (op.withdrawn + 1))] as RowRecord), kind: 'retract' });
          emitRow({ ...first, side: first.side === 'L' ? 'R' : 'L', id: `r${fresh++}` });
        }
        break;
      }
      case 'gap': {
        // A long row first (start base), then short rows at base + 1, base + 2, ...: the long one reaches past them all
        // where D allows. Rows from the middle are retracted (nodes with two children in a balanced tree keyed by
        // start); then the other side probes just past the short rows, where only the long row is.
        const base = clock() - L + op.offset;
        const reach = Math.min(D, op.count + 2);
        const id = (): string => `r${fresh++}`;
        const at = (side: 'L' | 'R', start: number, end: number): RowRecord => ({
          kind: 'insert',
          key: `k${op.key}`,
          side,
          id: id(),
          ts: start,
          start,
          end,
        });
        const shorts = Array.from({ length: op.count }, (_, i) => at(op.side, base + 1 + i, base + 1 + i));
        emitRow(at(op.side, base, base + reach));
        for (const r of shorts) emitRow(r);
        for (let k = 0; k < op.deleted; k++)
          emitRow({ ...(shorts[Math.floor(((k + 1) * shorts.length) / (op.deleted + 1))] as RowRecord), kind: 'retract' });
        emitRow(at(op.side === 'L' ? 'R' : 'L', base + reach, base + reach));
        break;
      }
      case 'lastLive': {
        // In a key of its own: a live row and a tombstone (a retraction that overtakes its insert) ending `reach`
        // later; both watermarks one past the live row's horizon evict it, the tombstone stays (J8); then the
        // retraction comes again, a duplicate of the tombstone while it is held (J6).
        const start = clock() - L;
        const len = Math.min(D, op.reach);
        const w = start + L + D + 1;
        if (len < 1 || w > TIME_MAX) break;
        const key = `h${fresh++}`;
        const live: RowRecord = { kind: 'insert', key, side: op.side, id: `r${fresh++}`, ts: start, start, end: start };
        const tomb: RowRecord = { kind: 'retract', key, side: op.side, id: `r${fresh++}`, ts: start, start, end: start + len };
        emitRow(live);
        emitRow(tomb);
        for (const side of ['L', 'R'] as const) {
          out.push({ kind: 'watermark', side, wm: w });
          if (wm[side] === null || w > (wm[side] as number)) wm[side] = w;
        }
        emitRow({ ...tomb });
        break;
      }
      case 'retract':
      case 'resend':
      case 'conflict': {
        if (rows.length === 0) break;
        const source = rows[op.pick % rows.length] as RowRecord;
        if (op.op === 'retract') emitRow({ ...source, kind: 'retract' });
        else if (op.op === 'resend') emitRow({ ...source, kind: op.pick % 3 === 0 ? 'retract' : 'insert' });
        else {
          // Same identity, shifted interval: a conflict while the binding is held.
          const start = source.start + op.shift;
          emitRow({ ...source, start, ts: start, end: start + (source.end - source.start) });
        }
        break;
      }
      case 'watermark': {
        const current = wm[op.side];
        const w = (current ?? clock()) + op.step;
        out.push({ kind: 'watermark', side: op.side, wm: w });
        if (current === null || w > current) wm[op.side] = w;
        break;
      }
    }
  }
  return out;
}

/** Where a wide log's times start: 0 mostly, just above -2^50 or a few thousand below 2^50 otherwise (§0). */
const originArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constant(TIME_MIN + 64) },
  { weight: 1, arbitrary: fc.constant(TIME_MAX - 8192) },
);

/** A config with wider L and D than the small-domain generator (each 2^50 in one config in ten), and a long in-contract log for it. */
export function wideConfiguredLogArbitrary(domain: WideDomain = wideDomain): fc.Arbitrary<{ config: JoinConfig; log: LogRecord[] }> {
  const bound = (max: number): fc.Arbitrary<number> =>
    fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max }) }, { weight: 1, arbitrary: fc.constant(BOUND_MAX) });
  return fc
    .record({ allowedLateness: bound(domain.maxLateness), maxIntervalLength: bound(domain.maxLength) })
    .chain((config) =>
      fc
        .tuple(fc.array(wideOpArbitrary(domain), { minLength: domain.maxRecords >> 2, maxLength: domain.maxRecords }), originArbitrary)
        .map(([ops, origin]) => ({ config, log: materializeWide(config, ops, origin) })),
    );
}

/**
 * The end of a stream: both watermarks rise past the horizon of every row of
 * `log` (J8), first in steps through the rows' horizons (each evicting a share
 * of a large state, so the eviction queue's order decides what leaves while
 * many rows stay held), then past the last one, so that whatever state the log
 * built is evicted. A long log's watermarks mostly evict rows a few at a time
 * as they age; the stream's end evicts a large state in horizon order.
 */
export function drainingWatermarks(config: JoinConfig, log: readonly LogRecord[]): LogRecord[] {
  const slack = config.allowedLateness + config.maxIntervalLength;
  const ends = [...new Set(log.flatMap((r) => (r.kind === 'watermark' ? [] : [r.end])))].sort((x, y) => x - y);
  const out: LogRecord[] = [];
  const steps = 4;
  for (let k = 1; k <= steps; k++) {
    const end = ends[Math.floor((k * (ends.length - 1)) / steps)];
    if (end === undefined) break;
    const wm = Math.min(TIME_MAX, end + slack + 1);
    out.push({ kind: 'watermark', side: 'L', wm }, { kind: 'watermark', side: 'R', wm });
  }
  return out;
}
