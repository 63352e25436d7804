import { describe, expect, it } from 'vitest';
import { TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { RowRecord } from '../../spec/index.ts';
import { initialJoinState, stepJoin, validityOf } from '../../model/index.ts';
import { BOUND_EDGES, conflictOf, invalidRecords } from './edges.ts';

describe('invalidRecords: every way a record fails J1', () => {
  // D at both ends of its range, and the small ones random domains use.
  for (const D of [...BOUND_EDGES, 1, 5]) {
    it(`J1 check 4 reads each time field: for D = ${D}, each of ts, start and end alone out of range, on each side, is probed and rejected out_of_range`, () => {
      const config = { allowedLateness: 0, maxIntervalLength: D };
      const records = invalidRecords(config, { key: 'k', id: 'a' });
      for (const field of ['ts', 'start', 'end'] as const) {
        for (const side of ['below', 'above'] as const) {
          const outside = (v: number, s: 'below' | 'above'): boolean => (s === 'below' ? v < TIME_MIN : v > TIME_MAX);
          const found = records.find(
            (r) =>
              r.kind !== 'watermark' &&
              outside(r[field], side) &&
              (['ts', 'start', 'end'] as const).every((f) => f === field || (r[f] >= TIME_MIN && r[f] <= TIME_MAX)),
          );
          expect(found, `${field} alone ${side} the range`).toBeDefined();
          const { outcome } = stepJoin(config, initialJoinState, found as NonNullable<typeof found>);
          expect(outcome).toEqual({ code: 'rejected', reason: 'out_of_range' });
        }
      }
    });
  }
});

describe('conflictOf: a record of a row’s identity with other content (J2)', () => {
  it('J2: for a row whose ts lies strictly inside its interval, differs from it in exactly the fields n picks, each nonempty subset of ts, start and end, as an insert and as a retract, and stays valid (J1 comes first)', () => {
    const config = { allowedLateness: 0, maxIntervalLength: 4 };
    const rows: RowRecord[] = [
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 0, end: 2 },
      // As long as D allows, so that end cannot move up (too_long): it moves down.
      { kind: 'insert', key: 'k', side: 'R', id: 'b', ts: 2, start: 0, end: 4 },
      // At the top of the range, so that end cannot move up (out_of_range): it moves down.
      { kind: 'retract', key: 'k', side: 'L', id: 'c', ts: TIME_MAX - 1, start: TIME_MAX - 2, end: TIME_MAX },
    ];
    for (const row of rows) {
      const seen = new Set<string>();
      for (let n = 0; n < 14; n++) {
        const c = conflictOf(row, n, config);
        expect(c, `n = ${n}`).toBeDefined();
        const r = c as RowRecord;
        expect(validityOf(r, config)).toBeUndefined();
        expect([r.key, r.side, r.id]).toEqual([row.key, row.side, row.id]);
        seen.add(`${(['ts', 'start', 'end'] as const).filter((f) => r[f] !== row[f]).join('+')}:${r.kind}`);
      }
      expect(seen.size).toBe(14);
    }
  });

  it('J2: none where no field set can move alone and stay valid: ts alone on a one-point interval', () => {
    const point: RowRecord = { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 3, start: 3, end: 3 };
    expect(conflictOf(point, 0, { allowedLateness: 0, maxIntervalLength: 4 })).toBeUndefined();
  });
});
