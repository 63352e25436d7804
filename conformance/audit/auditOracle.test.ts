// The audit's oracle (auditOracle.ts) against the reference model, record by
// record: the same outcome (with its reject reason), the same changes in
// the same canonical order, the same retained counts (J8), and `boundNew`
// exactly when the record bound an unbound identity (J2, J6), over every
// log generator the harness has. fast-check takes the run's seed
// (test-setup/seed.setup.ts) and prints it with any counterexample.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { initialJoinState, retainedCountsOf, stepJoin } from '../../model/index.ts';
import { AuditOracle } from './auditOracle.ts';
import { collidingDomain, configArbitrary, configuredLogArbitrary, oddDomain, rawLogArbitrary, smallDomain } from '../generate/logs.ts';
import { drainingWatermarks, wideConfiguredLogArbitrary } from '../generate/wideLogs.ts';
import { slidingLog, slidingLogConfig, type SlidingLogOptions } from '../generate/slidingLogs.ts';

/** The first record where the audit oracle and the model differ, described; undefined when they agree on every record. */
function firstDifference(config: JoinConfig, log: Iterable<LogRecord>): string | undefined {
  const oracle = new AuditOracle(config);
  let state = initialJoinState;
  let i = 0;
  for (const record of log) {
    const rowsBefore = state.rows.length;
    const want = stepJoin(config, state, record);
    // The model binds an identity anew when an accepted record adds a row (J2: the rows of its state are the bindings).
    const bound = record.kind !== 'watermark' && want.outcome.code === 'accepted' && want.state.rows.length > rowsBefore;
    state = want.state;
    const code = oracle.apply(record);
    const a = JSON.stringify({
      outcome: want.outcome,
      changes: want.changes.map((c) => ({ op: c.op, match: c.match })),
      retained: retainedCountsOf(state),
      bound,
    });
    const got = code === 'rejected' ? { code, reason: oracle.reason } : { code };
    const b = JSON.stringify({ outcome: got, changes: oracle.changes, retained: oracle.retained(), bound: oracle.boundNew });
    if (a !== b) return `record ${i} ${JSON.stringify(record)}: model ${a}, audit oracle ${b}`;
    if (record.kind !== 'watermark' && record.key !== '') {
      const wantKey = JSON.stringify(retainedCountsOf(state, record.key));
      const gotKey = JSON.stringify(oracle.retained(record.key));
      if (wantKey !== gotKey)
        return `record ${i} ${JSON.stringify(record)}: retained of key ${record.key}: model ${wantKey}, audit oracle ${gotKey}`;
    }
    i++;
  }
  return undefined;
}

/** Drops every watermark of one side: the global watermark stays −∞ and every row is held (J4, J8). */
const stalled = (log: readonly LogRecord[], side: 'L' | 'R'): LogRecord[] => log.filter((r) => r.kind !== 'watermark' || r.side !== side);

const slidingOptions: fc.Arbitrary<SlidingLogOptions> = fc.record({
  records: fc.integer({ min: 1, max: 400 }),
  keys: fc.integer({ min: 1, max: 3 }),
  window: fc.integer({ min: 1, max: 12 }),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  maxIntervalLength: fc.integer({ min: 0, max: 40 }),
  allowedLateness: fc.integer({ min: 0, max: 8 }),
});

describe('AuditOracle decides every record as the reference model does (J1-J8)', () => {
  it('J1-J8: the audit oracle agrees with the reference model on random small-domain logs (outcomes, reasons, changes, retained counts)', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(smallDomain), ({ config, log }) => {
        expect(firstDifference(config, log)).toBeUndefined();
      }),
    );
  });

  it('J1/J3: the same with odd names and names that collide when escaped (match ids, §0 order of changes)', () => {
    fc.assert(
      fc.property(fc.oneof(configuredLogArbitrary(oddDomain), configuredLogArbitrary(collidingDomain)), ({ config, log }) => {
        expect(firstDifference(config, log)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('J3/J8: the same over wide logs (many rows held, long intervals, evictions in batches, L or D = 2^50), drained at the end', () => {
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

  it("J5/J6/J8: the same over sliding logs (the audit benchmark's shape: rows held by a trailing watermark, retractions, resends)", () => {
    fc.assert(
      fc.property(slidingOptions, (options) => {
        const config = slidingLogConfig(options);
        const log = [...slidingLog(options)];
        expect(firstDifference(config, [...log, ...drainingWatermarks(config, log)])).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('J2/J9: the same outside the input contract (identities re-used after eviction, invalid records, odd names)', () => {
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
