import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { initialJoinState, retainedCountsOf, stepJoin } from './join.ts';
import { IndexedJoin } from './joinIndex.ts';
import { configArbitrary, configuredLogArbitrary, oddDomain, rawLogArbitrary, smallDomain } from '../../conformance/generate/logs.ts';
import { drainingWatermarks, wideConfiguredLogArbitrary } from '../../conformance/generate/wideLogs.ts';

/** The first record where IndexedJoin's outcome, changes or retained counts differ from stepJoin's, if any. */
function firstDifference(config: JoinConfig, log: readonly LogRecord[]): string | undefined {
  const indexed = new IndexedJoin(config);
  let state = initialJoinState;
  for (const [i, record] of log.entries()) {
    const want = stepJoin(config, state, record);
    state = want.state;
    const got = indexed.apply(record);
    const a = JSON.stringify({ outcome: want.outcome, changes: want.changes, retained: retainedCountsOf(state) });
    const b = JSON.stringify({ outcome: got.outcome, changes: got.changes, retained: indexed.retained() });
    if (a !== b) return `record ${i} ${JSON.stringify(record)}: stepJoin ${a}, IndexedJoin ${b}`;
  }
  return undefined;
}

/** Drops every watermark of one side: the global watermark stays −∞ and every row is held (J4, J8). */
const stalled = (log: readonly LogRecord[], side: 'L' | 'R'): LogRecord[] => log.filter((r) => r.kind !== 'watermark' || r.side !== side);

describe('IndexedJoin decides every record as stepJoin does: the same rules over indexes (J7, J8, §3)', () => {
  it('J7/J8: the same outcome, changes and retained counts after every record of random small-domain logs', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(smallDomain), ({ config, log }) => {
        expect(firstDifference(config, log)).toBeUndefined();
      }),
    );
  });

  it('J7/J8: the same over wide logs (many rows held, long intervals, evictions in batches, L or D = 2^50), drained at the end', () => {
    fc.assert(
      fc.property(wideConfiguredLogArbitrary({ keys: 2, maxRecords: 160, maxLateness: 8, maxLength: 40 }), ({ config, log }) => {
        expect(firstDifference(config, [...log, ...drainingWatermarks(config, log)])).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('J4/J8: the same when one side never reports a watermark (nothing evicted, every row held), then both drain', () => {
    fc.assert(
      fc.property(
        wideConfiguredLogArbitrary({ keys: 2, maxRecords: 160, maxLateness: 8, maxLength: 40 }),
        fc.constantFrom('L' as const, 'R' as const),
        ({ config, log }, side) => {
          const held = stalled(log, side);
          expect(firstDifference(config, [...held, ...drainingWatermarks(config, held)])).toBeUndefined();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('J9: the same even outside the input contract (identities reused after eviction, odd names): the model under serve must not depend on it', () => {
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.oneof(rawLogArbitrary(config, smallDomain), rawLogArbitrary(config, oddDomain)).map((log) => ({ config, log })),
        ),
        ({ config, log }) => {
          expect(firstDifference(config, log)).toBeUndefined();
        },
      ),
    );
  });
});
