import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchId } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { encodeJoinState, evict, globalWatermark, horizonOf, initialJoinState, stepJoin, type JoinState } from './join.ts';
import { firstContractViolation, horizonRetained, identityString, initialOracleState, stepOracle } from './oracle.ts';
import { configArbitrary, configuredLogArbitrary, logArbitrary, smallDomain } from '../../conformance/generate/logs.ts';

type Step = (config: JoinConfig, state: JoinState, record: LogRecord) => ReturnType<typeof stepJoin>;

/** Runs a log through an operator step function and the oracle side by side. */
function lockstep(config: JoinConfig, log: readonly LogRecord[], step: Step = stepJoin) {
  let op = initialJoinState;
  let oracle = initialOracleState;
  const diverged: { index: number; operator: unknown; oracle: unknown }[] = [];
  log.forEach((record, index) => {
    const a = step(config, op, record);
    const b = stepOracle(config, oracle, record);
    op = a.state;
    oracle = b.state;
    const seenA = { outcome: a.outcome, changes: a.changes };
    const seenB = { outcome: b.outcome, changes: b.changes };
    if (JSON.stringify(seenA) !== JSON.stringify(seenB)) diverged.push({ index, operator: seenA, oracle: seenB });
  });
  return { op, oracle, diverged };
}

/** The result relation the changes build up (SPEC §3). */
function relationAfter(config: JoinConfig, log: readonly LogRecord[]): string[] {
  const rel = new Set<string>();
  let state = initialJoinState;
  for (const r of log) {
    const s = stepJoin(config, state, r);
    state = s.state;
    for (const c of s.changes) c.op === 'insert' ? rel.add(c.match) : rel.delete(c.match);
  }
  return [...rel].sort();
}

function finalState(config: JoinConfig, log: readonly LogRecord[]): JoinState {
  return log.reduce((s, r) => stepJoin(config, s, r).state, initialJoinState);
}

const show = (config: JoinConfig, log: readonly LogRecord[]): string =>
  [`config ${JSON.stringify(config)}`, ...log.map((r, i) => `  ${i}: ${JSON.stringify(r)}`)].join('\n');

describe('JoinCorrect: the minimally-evicting operator equals the never-evicting oracle (J7, J8)', () => {
  it('agrees on every outcome and every change set over random logs', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config, log }) => {
        expect(lockstep(config, log).diverged).toEqual([]);
      }),
    );
  });

  it('emits a consistent change stream: inserts only absent matches, retracts only present ones (J7)', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config, log }) => {
        const rel = new Set<string>();
        let state = initialJoinState;
        for (const record of log) {
          const s = stepJoin(config, state, record);
          state = s.state;
          for (const c of s.changes) {
            expect(rel.has(c.match)).toBe(c.op === 'retract');
            c.op === 'insert' ? rel.add(c.match) : rel.delete(c.match);
          }
        }
      }),
    );
  });
});

describe('BoundedState / RetentionSafe: the retained set is exactly what the horizon rule keeps (J8)', () => {
  it('after every record, retained rows and matches equal the horizon rule applied to the oracle', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config, log }) => {
        let op = initialJoinState;
        let oracle = initialOracleState;
        for (const record of log) {
          op = stepJoin(config, op, record).state;
          oracle = stepOracle(config, oracle, record).state;
          const want = horizonRetained(config, oracle);
          const rows = op.rows.map((r) => `${identityString(r)}${r.live ? '' : '†'}`).sort();
          const matchIds = op.matches.map((m) => matchId(m.key, m.left, m.right)).sort();
          expect({ rows, matches: matchIds }).toEqual(want);
        }
      }),
    );
  });
});

/** Evicts rows one tick early: at gw >= end + L + D instead of gw > end + L + D. */
function earlyRowStep(config: JoinConfig, state: JoinState, record: LogRecord) {
  const s = stepJoin(config, state, record);
  if (record.kind !== 'watermark' || s.outcome.code !== 'accepted') return s;
  const gw = globalWatermark(s.state.wm);
  if (gw === null) return s;
  const tooEarly = { ...s.state, rows: s.state.rows.filter((r) => gw < horizonOf(r.end, config)) };
  // Matches follow the normal rule on the rows that are left.
  return { ...s, state: evict(config, tooEarly) };
}

/** Evicts matches one tick early: when gw >= the larger endpoint horizon, rows untouched. */
function earlyMatchStep(config: JoinConfig, state: JoinState, record: LogRecord) {
  const s = stepJoin(config, state, record);
  if (record.kind !== 'watermark' || s.outcome.code !== 'accepted') return s;
  const gw = globalWatermark(s.state.wm);
  if (gw === null) return s;
  const lateEnough = (key: string, side: 'L' | 'R', id: string): boolean =>
    s.state.rows.some((r) => r.key === key && r.side === side && r.id === id && gw < horizonOf(r.end, config));
  const matches = s.state.matches.filter((m) => lateEnough(m.key, 'L', m.left) || lateEnough(m.key, 'R', m.right));
  return { ...s, state: { ...s.state, matches } };
}

describe('RetentionMinimal: evicting one tick earlier is refuted by a concrete log (J8)', () => {
  for (const [what, step] of [
    ['rows', earlyRowStep],
    ['matches', earlyMatchStep],
  ] as const) {
    it(`finds a log where evicting ${what} at gw = end + L + D changes an outcome or a change`, () => {
      const found = fc.check(
        fc.property(configuredLogArbitrary(), ({ config, log }) => lockstep(config, log, step).diverged.length === 0),
        { numRuns: 300_000 },
      );
      expect(found.failed).toBe(true);
      const example = found.counterexample?.[0];
      if (!example) throw new Error('no counterexample');
      const { config, log } = example;
      const divergence = lockstep(config, log, step).diverged[0];
      console.log(
        `RetentionMinimal (${what}): early eviction refuted after ${found.numRuns} runs (seed ${found.seed}):\n${show(config, log)}\n ` +
          ` first divergence at record ${String(divergence?.index)}: ${JSON.stringify(divergence)}`,
      );
      // The same log is fine with the J8 rule: the early eviction is the cause.
      expect(lockstep(config, log).diverged).toEqual([]);
      expect(divergence).toBeDefined();
    });
  }
});

describe('J6: the final relation does not depend on whether a retract comes before or after its insert', () => {
  it('moving an accepted retract in front of its accepted insert leaves the final relation and state unchanged', () => {
    const fresh = fc.record({
      key: fc.constantFrom(...smallDomain.keys),
      side: fc.constantFrom('L', 'R'),
      start: fc.integer({ min: 0, max: smallDomain.maxTime }),
      length: fc.nat({ max: 3 }),
    });
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.record({ config: fc.constant(config), log: logArbitrary(config), row: fresh, i: fc.nat(), j: fc.nat() }),
        ),
        ({ config, log, row, i, j }) => {
          const length = Math.min(row.length, config.maxIntervalLength);
          // A fresh identity ("z" is outside the domain), so the log cannot conflict with it.
          const content = { key: row.key, side: row.side, id: 'z', ts: row.start, start: row.start, end: row.start + length };
          const ins: RowRecord = { kind: 'insert', ...content };
          const ret: RowRecord = { kind: 'retract', ...content };
          const a = i % (log.length + 1);
          const b = a + (j % (log.length - a + 1));
          const insertFirst = [...log.slice(0, a), ins, ...log.slice(a, b), ret, ...log.slice(b)];
          const retractFirst = [...log.slice(0, a), ret, ins, ...log.slice(a, b), ...log.slice(b)];
          // Only meaningful when both are accepted where they stand in the insert-first order.
          const outcomes = insertFirst.reduce<{ s: JoinState; codes: string[] }>(
            (acc, r) => {
              const s = stepJoin(config, acc.s, r);
              return { s: s.state, codes: [...acc.codes, s.outcome.code] };
            },
            { s: initialJoinState, codes: [] },
          ).codes;
          fc.pre(outcomes[a] === 'accepted' && outcomes[b + 1] === 'accepted');
          expect(relationAfter(config, retractFirst)).toEqual(relationAfter(config, insertFirst));
          expect(encodeJoinState(finalState(config, retractFirst))).toBe(encodeJoinState(finalState(config, insertFirst)));
        },
      ),
    );
  });
});

describe('J2/J4: redelivering any earlier record changes nothing', () => {
  it('a copy of an earlier record is never accepted, has no changes, and leaves the state as it was', () => {
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.record({ config: fc.constant(config), log: logArbitrary(config), i: fc.nat(), p: fc.nat() }),
        ),
        ({ config, log, i, p }) => {
          fc.pre(log.length > 0);
          const from = i % log.length;
          const at = from + 1 + (p % (log.length - from));
          const original = log[from] as LogRecord;
          const extended = [...log.slice(0, at), { ...original }, ...log.slice(at)];
          fc.pre(firstContractViolation(config, extended) === undefined);
          const before = finalState(config, log.slice(0, at));
          const copy = stepJoin(config, before, original);
          expect(['duplicate', 'late', 'stale', 'rejected']).toContain(copy.outcome.code);
          expect(copy.changes).toEqual([]);
          expect(encodeJoinState(copy.state)).toBe(encodeJoinState(before));
        },
      ),
    );
  });
});

describe('J1: an invalid record is rejected with its reason and changes nothing', () => {
  const defects = ['empty_key', 'empty_id', 'bad_side', 'out_of_range', 'ts_before_start', 'ts_after_end', 'too_long'] as const;
  it('each single defect of an otherwise valid record yields exactly its reason', () => {
    fc.assert(
      fc.property(
        configArbitrary().chain((config) =>
          fc.record({
            config: fc.constant(config),
            log: logArbitrary(config),
            defect: fc.constantFrom(...defects, 'watermark_side' as const, 'watermark_range' as const),
            kind: fc.constantFrom('insert' as const, 'retract' as const),
            start: fc.integer({ min: 0, max: 8 }),
          }),
        ),
        ({ config, log, defect, kind, start }) => {
          const base: RowRecord = { kind, key: 'k1', side: 'L', id: 'a', ts: start, start, end: start };
          const bad: LogRecord =
            defect === 'watermark_side'
              ? { kind: 'watermark', side: 'LR', wm: start }
              : defect === 'watermark_range'
                ? { kind: 'watermark', side: 'R', wm: -(2 ** 50) - 1 }
                : defect === 'empty_key'
                  ? { ...base, key: '' }
                  : defect === 'empty_id'
                    ? { ...base, id: '' }
                    : defect === 'bad_side'
                      ? { ...base, side: 'R ' }
                      : defect === 'out_of_range'
                        ? { ...base, start: 2 ** 50 + 1, ts: 2 ** 50 + 1, end: 2 ** 50 + 1 }
                        : defect === 'ts_before_start'
                          ? { ...base, ts: start - 1 }
                          : defect === 'ts_after_end'
                            ? { ...base, ts: start + 1 }
                            : { ...base, end: start + config.maxIntervalLength + 1 };
          const reason = defect === 'watermark_side' ? 'bad_side' : defect === 'watermark_range' ? 'out_of_range' : defect;
          const before = finalState(config, log);
          const s = stepJoin(config, before, bad);
          expect(s.outcome).toEqual({ code: 'rejected', reason });
          expect(s.changes).toEqual([]);
          expect(encodeJoinState(s.state)).toBe(encodeJoinState(before));
        },
      ),
    );
  });
});

describe('J9: the input contract', () => {
  const config = { allowedLateness: 0, maxIntervalLength: 0 };
  const a5: RowRecord = { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 5, start: 5, end: 5 };
  const wm = (side: 'L' | 'R', w: number): LogRecord => ({ kind: 'watermark', side, wm: w });

  it('flags an on-time record that reuses a forgotten identity with other content', () => {
    const log = [a5, wm('L', 6), wm('R', 6), { ...a5, ts: 7, start: 7, end: 7 }];
    expect(firstContractViolation(config, log)?.index).toBe(3);
  });

  it('does not flag a late redelivery of a forgotten row, nor a conflict inside the horizon', () => {
    expect(firstContractViolation(config, [a5, wm('L', 6), wm('R', 6), a5])).toBeUndefined();
    expect(firstContractViolation(config, [a5, { ...a5, ts: 6, start: 6, end: 6 }])).toBeUndefined();
  });

  it('generated logs are in contract', () => {
    fc.assert(
      fc.property(configuredLogArbitrary(), ({ config: c, log }) => {
        expect(firstContractViolation(c, log)).toBeUndefined();
      }),
    );
  });
});
