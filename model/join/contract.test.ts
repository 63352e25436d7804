import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { configArbitrary, oddDomain, rawLogArbitrary, smallDomain } from '../../conformance/generate/logs.ts';
import { firstContractViolation } from './contract.ts';
import { initialOracleState, stepOracle } from './oracle.ts';

/** The brute-force definition (J9): the oracle, which remembers every binding, flags the record. */
function bruteForce(config: JoinConfig, log: readonly LogRecord[]): number | undefined {
  let state = initialOracleState;
  for (const [i, record] of log.entries()) {
    const step = stepOracle(config, state, record);
    if (step.contractViolation) return i;
    state = step.state;
  }
  return undefined;
}

/**
 * A log with re-uses spliced in: at each pick, a record of an earlier row's
 * identity with other content; with `push`, both watermarks first move to
 * that row's horizon plus `delta` (-1..2), and the re-use is timed around
 * the lateness bound, so that violations, and near misses at exactly the
 * horizon, are common.
 */
function withReuses(
  config: JoinConfig,
  log: readonly LogRecord[],
  picks: readonly { at: number; of: number; delta: number; shift: number; push: boolean; retract: boolean }[],
): LogRecord[] {
  const out = [...log];
  for (const { at, of, delta, shift, push, retract } of picks) {
    const pos = at % (out.length + 1);
    const before = out.slice(0, pos);
    const rows = before.filter((r): r is RowRecord => r.kind !== 'watermark');
    const source = rows[of % Math.max(1, rows.length)];
    if (!source) continue;
    const horizon = source.end + config.allowedLateness + config.maxIntervalLength + delta;
    const marks = before.flatMap((r) => (r.kind === 'watermark' ? [r.wm] : []));
    const t = (push ? horizon : Math.max(0, ...marks)) - config.allowedLateness + shift;
    const reuse: LogRecord = { ...source, kind: retract ? 'retract' : 'insert', ts: t, start: t, end: t };
    const marksAt: LogRecord[] = push
      ? [
          { kind: 'watermark', side: 'L', wm: horizon },
          { kind: 'watermark', side: 'R', wm: horizon },
        ]
      : [];
    out.splice(pos, 0, ...marksAt, reuse);
  }
  return out;
}

const picksArbitrary = fc.array(
  fc.record({
    at: fc.nat(),
    of: fc.nat(),
    delta: fc.integer({ min: -1, max: 2 }),
    shift: fc.integer({ min: -1, max: 2 }),
    push: fc.boolean(),
    retract: fc.boolean(),
  }),
  { maxLength: 4 },
);

describe('J9: the linear contract check agrees with the brute-force oracle', () => {
  it('on random logs with identities re-used around their horizons', () => {
    let violating = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.record({ config: fc.constant(config), log: rawLogArbitrary(config, smallDomain), picks: picksArbitrary }),
        ),
        ({ config, log, picks }) => {
          const reused = withReuses(config, log, picks);
          const expected = bruteForce(config, reused);
          runs++;
          if (expected !== undefined) violating++;
          expect(firstContractViolation(config, reused)?.index).toBe(expected);
        },
      ),
    );
    // Not vacuous: logs on both sides of the contract.
    expect(violating).toBeGreaterThan(0);
    expect(violating).toBeLessThan(runs);
  });

  it('on random logs that may reuse identities (small and odd domains)', () => {
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.record({
            config: fc.constant(config),
            log: fc.oneof(rawLogArbitrary(config, smallDomain), rawLogArbitrary(config, oddDomain)),
          }),
        ),
        ({ config, log }) => {
          expect(firstContractViolation(config, log)?.index).toBe(bruteForce(config, log));
        },
      ),
    );
  });

  it('at the horizon boundary: a reuse with gw exactly at end + L + D is in contract, one tick after it is not', () => {
    fc.assert(
      fc.property(
        configArbitrary(),
        fc.record({
          start: fc.integer({ min: 0, max: 6 }),
          length: fc.nat({ max: 3 }),
          delta: fc.constantFrom(-1, 0, 1, 2),
          kind: fc.constantFrom('insert' as const, 'retract' as const),
          reuseKind: fc.constantFrom('insert' as const, 'retract' as const),
          shift: fc.integer({ min: 1, max: 3 }),
          leading: fc.constantFrom('L' as const, 'R' as const),
        }),
        (config, { start, length, delta, kind, reuseKind, shift, leading }) => {
          const L = config.allowedLateness;
          const D = config.maxIntervalLength;
          const end = start + Math.min(length, D);
          const row: RowRecord = { kind, key: 'k', side: 'L', id: 'a', ts: start, start, end };
          const gw = end + L + D + delta;
          // The reuse: same identity, other content, on time at gw (J5: ts >= gw - L; J6: gw <= its end + L + D).
          const reuse: RowRecord = { ...row, kind: reuseKind, ts: gw - L + shift, start: gw - L + shift, end: gw - L + shift };
          const trailing = leading === 'L' ? 'R' : 'L';
          const log: LogRecord[] = [
            row,
            { kind: 'watermark', side: leading, wm: gw + 1 },
            { kind: 'watermark', side: trailing, wm: gw },
            reuse,
          ];
          const linear = firstContractViolation(config, log);
          expect(linear?.index).toBe(bruteForce(config, log));
          expect(linear?.index).toBe(delta >= 1 ? 3 : undefined);
          if (linear) expect(linear.boundAt).toBe(0);
        },
      ),
    );
  });

  it('a conflicting record inside the horizon, and a late identical re-send after it, are in contract', () => {
    const config = { allowedLateness: 1, maxIntervalLength: 2 };
    const a: RowRecord = { kind: 'insert', key: 'k', side: 'R', id: 'a', ts: 5, start: 4, end: 6 };
    const log: LogRecord[] = [
      a,
      { ...a, ts: 6, start: 6, end: 7 },
      { kind: 'watermark', side: 'L', wm: 20 },
      { kind: 'watermark', side: 'R', wm: 20 },
      a,
      { ...a, kind: 'retract' },
    ];
    expect(firstContractViolation(config, log)).toBeUndefined();
    expect(bruteForce(config, log)).toBeUndefined();
  });

  it('is linear: a log of 200,000 fresh rows and rising watermarks is checked (the brute force would take hours)', () => {
    const config = { allowedLateness: 2, maxIntervalLength: 4 };
    function* log(): Generator<LogRecord> {
      for (let i = 0; i < 100_000; i++) {
        yield { kind: 'insert', key: `k${i % 7}`, side: i % 2 === 0 ? 'L' : 'R', id: `r${i}`, ts: i, start: i, end: i + 3 };
        yield { kind: 'watermark', side: i % 2 === 0 ? 'L' : 'R', wm: i };
      }
      // One reuse of a long-forgotten identity, on time.
      yield { kind: 'insert', key: 'k0', side: 'L', id: 'r0', ts: 100_000, start: 100_000, end: 100_000 };
    }
    const v = firstContractViolation(config, log());
    expect(v?.index).toBe(200_000);
    expect(v?.boundAt).toBe(0);
    expect(v?.message).toMatch(/identity \(k0, L, r0\) is reused after its row passed its horizon 3 \+ L \+ D = 9 < gw 99998/);
  });
});
