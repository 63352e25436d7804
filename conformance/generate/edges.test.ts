import { describe, expect, it } from 'vitest';
import { TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import { stepJoin, initialJoinState } from '../../model/index.ts';
import { BOUND_EDGES, invalidRecords } from './edges.ts';

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
