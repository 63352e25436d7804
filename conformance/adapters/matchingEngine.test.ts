import { describe, expect, inject, it } from 'vitest';
import { PROTOCOL_ERRORS, type JoinConfig, type LogRecord, type RowRecord } from '../../spec/index.ts';
import { runConform } from '../job/conform.ts';
import { regressionTracePaths, specExamplePaths } from '../job/traceFilesPart.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { JoinBookkeeping, matchingEngineSystem, type EngineMatch, type MatchingEngine } from './matchingEngine.ts';

// The run's seed (test-setup/): random traces here replay with STREAMJOIN_SEED.
const seed = inject('fcSeed');
const traces = (paths: string[]) => paths.map((path) => ({ path, trace: loadCheckedTrace(path) }));

/**
 * A matcher that knows nothing of the spec but overlap: it keeps every row
 * it is given, forever, and pairs it with the opposite side's rows of its
 * key. `overlaps` is the one thing it decides; the bookkeeping does the rest.
 */
function naiveMatcher(overlaps: (a: RowRecord, b: RowRecord) => boolean): MatchingEngine {
  const rows = new Map<string, RowRecord>();
  return {
    apply(record) {
      const name = `${record.key}\u0000${record.side}\u0000${record.id}`;
      const matches: EngineMatch[] = [];
      for (const other of rows.values()) {
        if (other.key !== record.key || other.side === record.side || !overlaps(record, other)) continue;
        const [l, r] = record.side === 'L' ? [record, other] : [other, record];
        matches.push({ op: record.kind, key: record.key, left: l.id, right: r.id });
      }
      if (record.kind === 'insert') rows.set(name, record);
      else rows.delete(name);
      return matches;
    },
  };
}

const inclusive = (a: RowRecord, b: RowRecord) => a.start <= b.end && b.start <= a.end;
const system = (overlaps: (a: RowRecord, b: RowRecord) => boolean, name = 'naive') =>
  matchingEngineSystem({ implementation: { name, version: '1' }, engine: () => naiveMatcher(overlaps) });

describe('JoinBookkeeping: the spec decides, the engine sees only what changes the live rows', () => {
  const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 4 };
  const row = (kind: 'insert' | 'retract', side: 'L' | 'R', id: string, ts: number, other: Partial<RowRecord> = {}): LogRecord => ({
    kind,
    key: 'k',
    side,
    id,
    ts,
    start: ts,
    end: ts + 1,
    ...other,
  });
  it('J2, J5, J6: an accepted insert and the retract of a live row are forwarded; a duplicate, a late insert, a retract before its insert and the insert after it are not', () => {
    const books = new Bookkeeper(config);
    expect(books.admit(row('insert', 'L', 'a', 5))).toEqual({ code: 'accepted', forwarded: true });
    expect(books.admit(row('insert', 'L', 'a', 5))).toEqual({ code: 'duplicate', forwarded: false });
    expect(books.admit(row('retract', 'R', 'x', 5))).toEqual({ code: 'accepted', forwarded: false });
    expect(books.admit(row('insert', 'R', 'x', 5))).toEqual({ code: 'duplicate', forwarded: false });
    expect(books.admit(row('retract', 'L', 'a', 5))).toEqual({ code: 'accepted', forwarded: true });
    expect(books.admit(row('insert', 'L', 'a', 5))).toEqual({ code: 'duplicate', forwarded: false });
    expect(books.admit({ kind: 'watermark', side: 'L', wm: 20 })).toEqual({ code: 'accepted', forwarded: false });
    expect(books.admit({ kind: 'watermark', side: 'R', wm: 20 })).toEqual({ code: 'accepted', forwarded: false });
    expect(books.admit({ kind: 'watermark', side: 'R', wm: 20 })).toEqual({ code: 'stale', forwarded: false });
    expect(books.admit(row('insert', 'L', 'b', 18))).toEqual({ code: 'late', forwarded: false });
    expect(books.admit(row('insert', 'L', 'c', 19))).toEqual({ code: 'accepted', forwarded: true });
  });

  it('J1, J2, J6: an invalid retract (ts after end), a conflicting retract of a live row and a late retract are not forwarded', () => {
    const books = new Bookkeeper(config);
    expect(books.admit(row('insert', 'L', 'a', 5))).toEqual({ code: 'accepted', forwarded: true });
    expect(books.admit(row('retract', 'L', 'a', 5, { end: 4 }))).toEqual({ code: 'rejected', forwarded: false });
    expect(books.admit(row('retract', 'L', 'a', 5, { start: 4 }))).toEqual({ code: 'rejected', forwarded: false });
    expect(books.admit({ kind: 'watermark', side: 'L', wm: 12 })).toEqual({ code: 'accepted', forwarded: false });
    expect(books.admit({ kind: 'watermark', side: 'R', wm: 12 })).toEqual({ code: 'accepted', forwarded: false });
    // gw 12 > end 6 + L 1 + D 4: the row is past its horizon, its retraction late.
    expect(books.admit(row('retract', 'L', 'a', 5))).toEqual({ code: 'late', forwarded: false });
  });
});

/** The bookkeeping's verdict on each record, as the test reads it. */
class Bookkeeper {
  private readonly books: JoinBookkeeping;
  constructor(config: JoinConfig) {
    this.books = new JoinBookkeeping(config);
  }
  admit(record: LogRecord) {
    const a = this.books.admit(record);
    return { code: a.outcome.code, forwarded: a.forward === record };
  }
}

describe('matchingEngineSystem: an engine that decides matches only, checked live at level operator', () => {
  it(`a matcher that decides overlap right conforms: every operator example, the regression traces, 60 random traces (seed ${seed})`, async () => {
    const report = await runConform({
      system: system(inclusive),
      seed,
      runs: 60,
      examples: traces(specExamplePaths()),
      regressions: traces(regressionTracePaths()),
    });
    expect(report.failures.map((f) => f.divergence.summary)).toEqual([]);
    expect(report.verdict).toBe('pass');
    expect(report.levels).toEqual(['operator']);
    expect(report.random[0]?.runs).toBe(60);
  });

  it(`J3: the same matcher with \`<\` for \`<=\` diverges in changes, on a short witness (seed ${seed})`, async () => {
    const report = await runConform({
      system: system((a, b) => a.start < b.end && b.start < a.end, 'naive-strict'),
      seed,
      runs: 100,
      examples: [],
    });
    expect(report.verdict).toBe('fail');
    const failure = report.failures[0];
    expect(failure?.divergence.field).toBe('changes');
    expect(failure?.trace.trace.steps.length).toBeLessThanOrEqual(4);
  });

  it('an engine may stream its matches (an async iterable): they are read to the end, in order', async () => {
    const sut = matchingEngineSystem({
      implementation: { name: 'streaming', version: '1' },
      engine: () => ({
        apply: async function* (record) {
          if (record.side === 'R') {
            yield { op: 'insert' as const, key: 'k', left: 'a', right: record.id };
            yield { op: 'insert' as const, key: 'k', left: 'b', right: record.id };
          }
        },
      }),
    });
    const session = await sut.openOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    const [, reply] = await session.records([
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 0, start: 0, end: 0 },
      { kind: 'insert', key: 'k', side: 'R', id: 'x/y', ts: 0, start: 0, end: 0 },
    ]);
    expect(reply && 'changes' in reply ? reply.changes.map((c) => c.match) : []).toEqual(['k/a/x%2Fy', 'k/b/x%2Fy']);
    await sut.close();
  });

  it('an engine that throws, or returns what is no match, gets an internal_error reply: a divergence, not a crash', async () => {
    for (const apply of [
      () => {
        throw new Error('engine down');
      },
      () => [{ op: 'upsert', key: 'k', left: 'a', right: 'b' }] as unknown as EngineMatch[],
    ]) {
      const sut = matchingEngineSystem({ implementation: { name: 'broken', version: '1' }, engine: () => ({ apply }) });
      const session = await sut.openOperator({ allowedLateness: 0, maxIntervalLength: 0 });
      const [reply] = await session.records([{ kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 0, start: 0, end: 0 }]);
      expect(reply && 'error' in reply ? reply.error.code : undefined).toBe(PROTOCOL_ERRORS.internal_error);
      await sut.close();
    }
  });

  it('it supports level operator only, and ends each session by closing its engine', async () => {
    let closed = 0;
    const sut = matchingEngineSystem({
      implementation: { name: 'closing', version: '1' },
      engine: () => ({ apply: () => [], close: () => void closed++ }),
    });
    expect((await sut.info()).levels).toEqual(['operator']);
    await sut.openOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    await sut.openOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    expect(closed).toBe(1);
    await expect(
      sut.openCluster({ join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w'], keys: [{ key: 'k', owner: 'w' }] }, 'cluster'),
    ).rejects.toThrow(/does not support level cluster/);
    await sut.close();
    expect(closed).toBe(2);
  });
});
