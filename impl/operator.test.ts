import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOperatorTrace, matchId, REJECT_REASONS } from '../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../spec/index.ts';
import { initialJoinState, retainedCountsOf, stepJoin, type JoinState } from '../model/index.ts';
import { runOperatorTrace } from '../conformance/lockstep/operatorTrace.ts';
import { createImplOperator } from '../conformance/adapters/implOperator.ts';
import { configuredLogArbitrary } from '../conformance/generate/logs.ts';
import { wideConfiguredLogArbitrary } from '../conformance/generate/wideLogs.ts';
import { JoinOperator } from './operator.ts';
import type { OperatorCounters, OperatorSnapshot } from './snapshot.ts';
import { SnapshotError } from './errors.ts';

const examplesDir = join(import.meta.dirname, '..', 'spec', 'examples');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.trace.json'));

describe('the optimized operator passes every hand-worked example (J1–J8)', () => {
  it('has examples to run', () => expect(examples.length).toBeGreaterThan(0));
  for (const f of examples) {
    it(f, () => {
      const result = runOperatorTrace(loadOperatorTrace(join(examplesDir, f)), createImplOperator);
      expect(result.divergence).toBeUndefined();
    });
  }
});

/** The model's state as the impl's snapshot would list it (rows, matches), order-free. */
function modelStateAsSets(state: JoinState): { wm: unknown; rows: string[]; matches: string[] } {
  return {
    wm: state.wm,
    rows: state.rows.map((r) => JSON.stringify([r.key, r.side, r.id, r.ts, r.start, r.end, r.live])).sort(),
    matches: state.matches.map((m) => matchId(m.key, m.left, m.right)).sort(),
  };
}

function implStateAsSets(s: OperatorSnapshot): { wm: unknown; rows: string[]; matches: string[] } {
  return {
    wm: s.watermarks,
    rows: s.rows.map((r) => JSON.stringify([r.key, r.side, r.id, r.ts, r.start, r.end, r.live])).sort(),
    matches: s.matches.map((m) => matchId(m.key, m.left, m.right)).sort(),
  };
}

const keysOf = (log: readonly LogRecord[]): string[] => [
  ...new Set(log.flatMap((r) => (r.kind === 'watermark' ? [] : [(r as RowRecord).key]))),
];

/**
 * Runs impl and model side by side; returns the first step where they differ
 * on outcome, changes (in order: both sort by match id), or retained counts
 * over all keys and per key. With `compareState`, also the full state.
 */
function lockstep(config: JoinConfig, log: readonly LogRecord[], compareState: boolean): string | undefined {
  const impl = new JoinOperator(config);
  let model = initialJoinState;
  const keys = keysOf(log);
  for (let i = 0; i < log.length; i++) {
    const record = log[i] as LogRecord;
    const a = impl.apply(record);
    const b = stepJoin(config, model, record);
    model = b.state;
    const at = `step ${i} ${JSON.stringify(record)}`;
    if (JSON.stringify(a.outcome) !== JSON.stringify(b.outcome))
      return `${at}: outcome ${JSON.stringify(a.outcome)} vs ${JSON.stringify(b.outcome)}`;
    if (JSON.stringify(a.changes) !== JSON.stringify(b.changes))
      return `${at}: changes ${JSON.stringify(a.changes)} vs ${JSON.stringify(b.changes)}`;
    for (const key of [undefined, ...keys]) {
      const ra = impl.retained(key);
      const rb = retainedCountsOf(model, key);
      if (JSON.stringify(ra) !== JSON.stringify(rb))
        return `${at}: retained(${String(key)}) ${JSON.stringify(ra)} vs ${JSON.stringify(rb)}`;
    }
    if (compareState) {
      const sa = JSON.stringify(implStateAsSets(impl.snapshot()));
      const sb = JSON.stringify(modelStateAsSets(model));
      if (sa !== sb) return `${at}: state ${sa} vs ${sb}`;
    }
  }
  return undefined;
}

describe('J7 JoinCorrect: impl ≡ reference model in lockstep (J1–J8)', () => {
  it('agrees on outcome, change set, retained counts and state after every record (small domains)', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config, log }) => {
        expect(lockstep(config, log, true)).toBeUndefined();
      }),
    );
  });

  it('agrees over long logs with wide domains: deep trees, many overlaps, batch evictions (J3, J6, J8)', () => {
    fc.assert(
      fc.property(wideConfiguredLogArbitrary(), ({ config, log }) => {
        expect(lockstep(config, log, false)).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('orders every change set by code point (§0), for any ids and keys, on insert and on retract (J3, J7)', () => {
    // One record joins with many partners, so the change set needs sorting;
    // ids are arbitrary Unicode (astral characters, "/", "%"), where UTF-16
    // order and code-point order differ.
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(text, fc.uniqueArray(text, { minLength: 2, maxLength: 12 }), text, fc.constantFrom('L', 'R'), (key, many, one, side) => {
        const other = side === 'L' ? 'R' : 'L';
        const log: LogRecord[] = [
          ...many.map((id): LogRecord => ({ kind: 'insert', key, side: other, id, ts: 0, start: 0, end: 2 })),
          { kind: 'insert', key, side, id: one, ts: 1, start: 1, end: 1 },
          { kind: 'retract', key, side, id: one, ts: 1, start: 1, end: 1 },
        ];
        expect(lockstep({ allowedLateness: 0, maxIntervalLength: 2 }, log, true)).toBeUndefined();
      }),
    );
  });

  it('the wide generator really builds large overlapping state', () => {
    // Guards the previous property against a generator that degenerates.
    const samples = fc.sample(wideConfiguredLogArbitrary(), { numRuns: 20 });
    let maxLive = 0;
    let maxChanges = 0;
    for (const { config, log } of samples) {
      const op = new JoinOperator(config);
      for (const r of log) {
        maxChanges = Math.max(maxChanges, op.apply(r).changes.length);
        maxLive = Math.max(maxLive, op.retained().live);
      }
    }
    expect(maxLive).toBeGreaterThanOrEqual(40);
    expect(maxChanges).toBeGreaterThanOrEqual(8);
  });
});

/** Counters after minus before, as a list of the fields that moved. */
function counterDelta(before: OperatorCounters, after: OperatorCounters): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of ['accepted', 'duplicate', 'late', 'stale', 'evictedRows', 'evictedMatches'] as const) {
    if (after[f] !== before[f]) out[f] = after[f] - before[f];
  }
  for (const r of REJECT_REASONS)
    if (after.rejected[r] !== before.rejected[r]) out[`rejected.${r}`] = after.rejected[r] - before.rejected[r];
  return out;
}

const stateJson = (s: OperatorSnapshot): string => JSON.stringify({ watermarks: s.watermarks, rows: s.rows, matches: s.matches });

/** Records failing each J1 check (alone or together with later ones). */
function invalidRecordArbitrary(): fc.Arbitrary<LogRecord> {
  const t = fc.integer({ min: -3, max: 12 });
  const far = fc.constantFrom(2 ** 50 + 1, -(2 ** 50) - 1, Number.NaN);
  const row = fc.record({
    kind: fc.constantFrom('insert' as const, 'retract' as const),
    key: fc.constantFrom('', 'k1', 'k2'),
    side: fc.constantFrom('L', 'R', 'X', '', 'l'),
    id: fc.constantFrom('', 'a', 'b'),
    ts: fc.oneof(t, far),
    start: fc.oneof(t, far),
    end: fc.oneof(t, far),
  });
  const watermark = fc.record({ kind: fc.constant('watermark' as const), side: fc.constantFrom('X', '', 'r'), wm: fc.oneof(t, far) });
  const wmOutOfRange = fc.record({ kind: fc.constant('watermark' as const), side: fc.constantFrom('L', 'R'), wm: far });
  // Passes checks 1–6 and fails only `too_long` (for any D < 2^40).
  const tooLong = fc
    .record({
      kind: fc.constantFrom('insert' as const, 'retract' as const),
      key: fc.constant('k1'),
      side: fc.constantFrom('L', 'R'),
      id: fc.constant('a'),
      ts: t,
      start: t,
      end: t,
    })
    .map((r) => ({ ...r, start: r.ts, end: r.ts + 2 ** 40 }));
  return fc.oneof(row, watermark, wmOutOfRange, tooLong);
}

describe('J1/J7: a rejected, late, duplicate or stale record leaves the state exactly unchanged', () => {
  it('an invalid record is rejected with the J1 reason and the snapshot state is byte-for-byte the same', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), invalidRecordArbitrary(), fc.nat(), ({ config, log }, bad, cut) => {
        // The spec's reason, from the reference model (J1 does not depend on state).
        const reason = stepJoin(config, initialJoinState, bad).outcome;
        fc.pre(reason.code === 'rejected');
        const op = new JoinOperator(config);
        for (const r of log.slice(0, log.length === 0 ? 0 : cut % (log.length + 1))) op.apply(r);
        const before = op.snapshot();
        const result = op.apply(bad);
        const after = op.snapshot();
        expect(result).toEqual({ outcome: reason, changes: [] });
        expect(stateJson(after)).toBe(stateJson(before));
        expect(counterDelta(before.counters, after.counters)).toEqual({ [`rejected.${reason.reason as string}`]: 1 });
      }),
    );
  });

  it('every non-accepted outcome changes nothing but its own counter (J2, J4, J5, J6)', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config, log }) => {
        const op = new JoinOperator(config);
        for (const r of log) {
          const before = op.snapshot();
          const { outcome, changes } = op.apply(r);
          const after = op.snapshot();
          if (outcome.code === 'accepted') continue;
          expect(changes).toEqual([]);
          expect(stateJson(after)).toBe(stateJson(before));
          const field = outcome.code === 'rejected' ? `rejected.${outcome.reason as string}` : outcome.code;
          expect(counterDelta(before.counters, after.counters)).toEqual({ [field]: 1 });
        }
      }),
    );
  });

  it('covers every reject reason, so the properties above cannot pass vacuously', () => {
    const seen = new Set<string>();
    for (const bad of fc.sample(invalidRecordArbitrary(), { numRuns: 20_000 })) {
      const o = new JoinOperator({ allowedLateness: 0, maxIntervalLength: 3 }).apply(bad).outcome;
      if (o.reason !== undefined) seen.add(o.reason);
    }
    // The J1 reasons (conflict needs state; later reasons belong to the cluster).
    expect([...seen].sort()).toEqual(REJECT_REASONS.slice(0, REJECT_REASONS.indexOf('conflict')).sort());
  });
});

describe('snapshot and restore', () => {
  it('snapshot → JSON → restore → continue ≡ continue (outputs, counts, counters, final snapshot)', () => {
    const property = ({ config, log }: { config: JoinConfig; log: LogRecord[] }, cut: number): void => {
      const at = log.length === 0 ? 0 : cut % (log.length + 1);
      const original = new JoinOperator(config);
      for (const r of log.slice(0, at)) original.apply(r);
      const restored = JoinOperator.restore(config, JSON.parse(JSON.stringify(original.snapshot())) as unknown);
      expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(original.snapshot()));
      for (const r of log.slice(at)) {
        expect(restored.apply(r)).toEqual(original.apply(r));
        expect(restored.retained()).toEqual(original.retained());
      }
      expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(original.snapshot()));
      expect(restored.counters()).toEqual(original.counters());
      expect(restored.watermarks()).toEqual(original.watermarks());
    };
    fc.assert(fc.property(configuredLogArbitrary(), fc.nat(), property));
    fc.assert(fc.property(wideConfiguredLogArbitrary(), fc.nat(), property), { numRuns: 30 });
  });

  it('is canonical: the snapshot does not depend on arrival order of independent records', () => {
    const config = { allowedLateness: 1, maxIntervalLength: 4 };
    const rows: LogRecord[] = [
      { kind: 'insert', key: 'k2', side: 'R', id: 'b', ts: 2, start: 1, end: 3 },
      { kind: 'insert', key: 'k1', side: 'L', id: 'z', ts: 2, start: 1, end: 2 },
      { kind: 'insert', key: 'k1', side: 'L', id: 'a', ts: 1, start: 0, end: 4 },
      { kind: 'insert', key: 'k1', side: 'R', id: '\u{1F600}', ts: 1, start: 1, end: 1 },
      { kind: 'insert', key: 'k1', side: 'R', id: '\uFFFD', ts: 1, start: 1, end: 1 },
      { kind: 'retract', key: 'k2', side: 'L', id: 'q', ts: 1, start: 1, end: 1 },
    ];
    const forward = new JoinOperator(config);
    const backward = new JoinOperator(config);
    for (const r of rows) forward.apply(r);
    for (const r of [...rows].reverse()) backward.apply(r);
    const a = forward.snapshot();
    expect(JSON.stringify(a)).toBe(JSON.stringify(backward.snapshot()));
    // §0 code-point order: U+FFFD sorts before the astral U+1F600.
    expect(a.rows.map((r) => `${r.key}${r.side}${r.id}`)).toEqual(['k1La', 'k1Lz', 'k1R\uFFFD', 'k1R\u{1F600}', 'k2Lq', 'k2Rb']);
    expect(a.matches.map((m) => matchId(m.key, m.left, m.right))).toEqual([
      'k1/a/\uFFFD',
      'k1/a/\u{1F600}',
      'k1/z/\uFFFD',
      'k1/z/\u{1F600}',
    ]);
  });

  it('keeps a match with one evicted endpoint across restore, and retracts it later (J7, J8)', () => {
    const config = { allowedLateness: 0, maxIntervalLength: 10 };
    const op = new JoinOperator(config);
    op.apply({ kind: 'insert', key: 'k', side: 'L', id: 'short', ts: 0, start: 0, end: 0 });
    op.apply({ kind: 'insert', key: 'k', side: 'R', id: 'long', ts: 0, start: 0, end: 10 });
    op.apply({ kind: 'watermark', side: 'L', wm: 11 });
    op.apply({ kind: 'watermark', side: 'R', wm: 11 }); // gw 11 > 0 + 0 + 10: 'short' goes
    expect(op.retained()).toEqual({ live: 1, tombstones: 0, matches: 1 });
    const restored = JoinOperator.restore(config, op.snapshot());
    expect(restored.apply({ kind: 'retract', key: 'k', side: 'R', id: 'long', ts: 0, start: 0, end: 10 }).changes).toEqual([
      { op: 'retract', match: 'k/short/long', key: 'k', left: 'short', right: 'long' },
    ]);
    expect(restored.retained()).toEqual({ live: 0, tombstones: 1, matches: 0 });
  });

  describe('refuses a snapshot it could not have taken, naming the field', () => {
    const config = { allowedLateness: 1, maxIntervalLength: 3 };
    const base = (): OperatorSnapshot => {
      const op = new JoinOperator(config);
      op.apply({ kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 0, end: 2 });
      op.apply({ kind: 'insert', key: 'k', side: 'R', id: 'b', ts: 2, start: 2, end: 3 });
      op.apply({ kind: 'retract', key: 'k', side: 'R', id: 'c', ts: 2, start: 2, end: 3 });
      op.apply({ kind: 'watermark', side: 'L', wm: 1 });
      op.apply({ kind: 'watermark', side: 'R', wm: 1 });
      return op.snapshot();
    };
    const cases: [string, (s: OperatorSnapshot) => unknown, string][] = [
      ['not an object', () => [], ''],
      ['wrong format', (s) => ({ ...s, format: 'streamjoin/operator-snapshot@9' }), '/format'],
      ['other config', (s) => ({ ...s, config: { allowedLateness: 2, maxIntervalLength: 3 } }), '/config/allowedLateness'],
      ['unknown field', (s) => ({ ...s, extra: 1 }), '/extra'],
      ['bad watermark', (s) => ({ ...s, watermarks: { L: 1.5, R: 1 } }), '/watermarks/L'],
      ['row with bad side', (s) => ({ ...s, rows: s.rows.map((r, i) => (i === 1 ? { ...r, side: 'X' } : r)) }), '/rows/1/side'],
      ['row with empty id', (s) => ({ ...s, rows: s.rows.map((r, i) => (i === 0 ? { ...r, id: '' } : r)) }), '/rows/0/id'],
      ['row too long', (s) => ({ ...s, rows: s.rows.map((r, i) => (i === 0 ? { ...r, start: -5 } : r)) }), '/rows/0'],
      ['row past horizon', (s) => ({ ...s, watermarks: { L: 9, R: 9 } }), '/rows/0'],
      ['identity twice', (s) => ({ ...s, rows: [...s.rows, s.rows[0]] }), '/rows/3'],
      ['match without endpoint', (s) => ({ ...s, matches: [{ key: 'k', left: 'x', right: 'y' }] }), '/matches/0'],
      ['match with tombstone', (s) => ({ ...s, matches: [{ key: 'k', left: 'a', right: 'c' }] }), '/matches/0'],
      ['match listed twice', (s) => ({ ...s, matches: [...s.matches, ...s.matches] }), '/matches/1'],
      ['negative counter', (s) => ({ ...s, counters: { ...s.counters, late: -1 } }), '/counters/late'],
      [
        'unknown reason',
        (s) => ({ ...s, counters: { ...s.counters, rejected: { ...s.counters.rejected, bogus: 1 } } }),
        '/counters/rejected/bogus',
      ],
      [
        'bad reason count',
        (s) => ({ ...s, counters: { ...s.counters, rejected: { ...s.counters.rejected, conflict: 0.5 } } }),
        '/counters/rejected/conflict',
      ],
    ];
    it('the base snapshot restores', () => {
      expect(JoinOperator.restore(config, base()).retained()).toEqual({ live: 2, tombstones: 1, matches: 1 });
    });
    for (const [name, edit, pointer] of cases) {
      it(name, () => {
        let error: unknown;
        try {
          JoinOperator.restore(config, edit(base()));
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(SnapshotError);
        expect((error as SnapshotError).pointer).toBe(pointer);
      });
    }
  });
});

describe('J8: eviction touches only what is due (no scan of all state per watermark)', () => {
  it('each accepted watermark examines at most the rows it evicts plus one heap entry, and each match at most once per endpoint', () => {
    fc.assert(
      fc.property(wideConfiguredLogArbitrary(), ({ log }) => {
        const op = new JoinOperator({ allowedLateness: 2, maxIntervalLength: 20 });
        let matchesCreated = 0;
        for (const record of log) {
          const before = { work: op.evictionWork(), counters: op.counters(), retained: op.retained() };
          const { outcome, changes } = op.apply(record);
          matchesCreated += changes.filter((c) => c.op === 'insert').length;
          const work = op.evictionWork();
          const counters = op.counters();
          const heap = work.heapEntriesExamined - before.work.heapEntriesExamined;
          const matches = work.matchEntriesExamined - before.work.matchEntriesExamined;
          const evictedRows = counters.evictedRows - before.counters.evictedRows;
          const evictedMatches = counters.evictedMatches - before.counters.evictedMatches;
          if (record.kind !== 'watermark' || outcome.code !== 'accepted') {
            expect([heap, matches, evictedRows]).toEqual([0, 0, 0]);
            continue;
          }
          expect(heap).toBeLessThanOrEqual(evictedRows + 1);
          // A match is examined once per endpoint evicted now: dropped now
          // (once or twice) or kept by its other endpoint (once).
          expect(matches).toBeLessThanOrEqual(2 * evictedMatches + op.retained().matches);
          expect(matches).toBeLessThanOrEqual(2 * before.retained.matches);
        }
        expect(op.evictionWork().matchEntriesExamined).toBeLessThanOrEqual(2 * matchesCreated);
      }),
      { numRuns: 40 },
    );
  });

  it('a watermark that evicts one row out of 10 000 looks at two heap entries', () => {
    const op = new JoinOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    for (let i = 0; i < 10_000; i++)
      op.apply({ kind: 'insert', key: `k${i % 7}`, side: i % 2 ? 'L' : 'R', id: `r${i}`, ts: i, start: i, end: i });
    op.apply({ kind: 'watermark', side: 'L', wm: 5 });
    const before = op.evictionWork().heapEntriesExamined;
    op.apply({ kind: 'watermark', side: 'R', wm: 1 }); // gw 1 > 0: evicts only r0
    expect(op.counters().evictedRows).toBe(1);
    expect(op.evictionWork().heapEntriesExamined - before).toBe(2);
    expect(op.retained().live).toBe(9_999);
  });

  it('drops a key with no retained rows, so per-key state does not leak', () => {
    const op = new JoinOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    op.apply({ kind: 'insert', key: 'gone', side: 'L', id: 'a', ts: 0, start: 0, end: 0 });
    op.apply({ kind: 'insert', key: 'kept', side: 'L', id: 'a', ts: 5, start: 5, end: 5 });
    expect(op.retainedKeys()).toEqual(['gone', 'kept']);
    op.apply({ kind: 'watermark', side: 'L', wm: 1 });
    op.apply({ kind: 'watermark', side: 'R', wm: 1 });
    expect(op.retainedKeys()).toEqual(['kept']);
    expect(op.retained('gone')).toEqual({ live: 0, tombstones: 0, matches: 0 });
  });
});

describe('J0: configuration', () => {
  it('refuses L or D outside [0, 2^50]', () => {
    for (const bad of [-1, 1.5, 2 ** 50 + 1, Number.NaN]) {
      expect(() => new JoinOperator({ allowedLateness: bad, maxIntervalLength: 0 })).toThrow(/J0: allowedLateness/);
      expect(() => new JoinOperator({ allowedLateness: 0, maxIntervalLength: bad })).toThrow(/J0: maxIntervalLength/);
    }
  });

  it('computes horizons exactly at the largest bounds (§0)', () => {
    const max = 2 ** 50;
    const op = new JoinOperator({ allowedLateness: max, maxIntervalLength: max });
    op.apply({ kind: 'insert', key: 'k', side: 'L', id: 'a', ts: max, start: 0, end: max });
    op.apply({ kind: 'watermark', side: 'L', wm: max });
    op.apply({ kind: 'watermark', side: 'R', wm: max });
    expect(op.retained().live).toBe(1);
    expect(op.apply({ kind: 'insert', key: 'k', side: 'R', id: 'b', ts: -max, start: -max, end: -max }).outcome).toEqual({ code: 'late' });
  });
});
