// Bounded memory whatever the order of the sink (docs/audit.md, "At
// scale"): a sink grouped by key makes the one-pass check hold what waits,
// so past a bound the audit goes on by partitions by key hash on disk
// (spill.ts). Checked by partitions or in one pass, a history has the same
// verdict, properties (JoinCorrect, ExactlyOnce, Fenced: SPEC §6 P1, P4, P5),
// counts and violations.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JoinOperator } from '../../impl/index.ts';
import type { LogRecord } from '../../spec/index.ts';
import { type OracleSinkLine as Line, oracleSinkLines, slidingLog, slidingLogConfig } from '../generate/slidingLogs.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { type AuditOptions, type AuditResult, auditHistory } from './audit.ts';

const freshDirectory = useTemporaryDirectories('sj-spill-');

/**
 * A sliding history over many keys, its sink with faults in three keys, in
 * log order and grouped by key. `oddWatermarks`: after every 97th record, a
 * stale watermark (below its side's, J4) and an invalid one (J1: out of
 * range), which change nothing but the counts.
 */
function history(seed: number, oddWatermarks = false): { log: string; ordered: string; grouped: string } {
  const options = { records: 6000, keys: 40, window: 6, seed, maxIntervalLength: 200 };
  const config = slidingLogConfig(options);
  const records: LogRecord[] = [];
  let seen = 0;
  for (const r of slidingLog(options)) {
    records.push(r);
    if (!oddWatermarks || ++seen % 97 !== 0) continue;
    records.push({ kind: 'watermark', side: seen % 2 === 0 ? 'L' : 'R', wm: -(2 ** 40) });
    records.push({ kind: 'watermark', side: 'R', wm: 2 ** 51 });
  }
  const sink = oracleSinkLines(records, new JoinOperator(config), 2);
  const keys = [...new Set(sink.map((l) => l.key))].sort();
  const nth = (key: string, n: number): number => {
    let seen = 0;
    return sink.findIndex((l) => l.key === key && l.op === 'insert' && seen++ === n);
  };
  const dup = nth(keys[0] as string, 3);
  const lost = nth(keys[1] as string, 4);
  const zombie = nth(keys[2] as string, 5);
  const faulty: Line[] = [];
  sink.forEach((l, i) => {
    if (i === lost) return;
    faulty.push(i === zombie ? { ...l, epoch: 1 } : l);
    if (i === dup) faulty.push({ ...l });
  });
  const dir = freshDirectory();
  const write = (name: string, xs: readonly unknown[]): string => {
    const path = join(dir, name);
    writeFileSync(path, `${xs.map((x) => JSON.stringify(x)).join('\n')}\n`);
    return path;
  };
  const byKey = [...faulty].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    log: write('log.jsonl', [{ format: 'streamjoin/history-log@1', config }, ...records]),
    ordered: write('ordered.jsonl', faulty),
    grouped: write('grouped.jsonl', byKey),
  };
}

const summary = (r: AuditResult): unknown => ({
  verdict: r.verdict,
  properties: r.properties,
  records: r.log.records,
  watermarks: r.log.watermarks,
  rejected: r.log.rejected,
  changes: r.sink.changes,
  writes: r.sink.writes,
  inserts: r.stats.oracleInserts,
  retracts: r.stats.oracleRetracts,
  violations: r.violations
    .map((v) => JSON.stringify([v.property, v.kind, v.match, v.message, v.witness.map((w) => [w.file, w.line, w.role, w.text])]))
    .sort(),
});

describe('by partitions on disk, whatever the order of the sink', () => {
  it('a sink grouped by key goes by partitions past the bound, with the verdict, counts and violations of one pass', async () => {
    const seed = 515;
    console.log(`spill: seed ${seed}`);
    const h = history(seed);
    const run = (sink: string, o: Partial<AuditOptions>) => auditHistory({ log: h.log, sink, keepViolations: 1000, ...o });
    const onePass = await run(h.ordered, { spill: 'never' });
    expect(onePass.verdict).toBe('violation');
    expect(onePass.properties.map((p) => p.verdict)).toEqual(['violated', 'violated', 'violated']);
    expect(onePass.stats.partitions).toBe(1);
    const groupedOnePass = await run(h.grouped, { spill: 'never' });
    // Grouped by key, the one pass holds most of the history at once.
    expect(groupedOnePass.stats.peakFollowed).toBeGreaterThan(2 * onePass.stats.peakFollowed);
    const auto = await run(h.grouped, { spillAt: 2000, partitions: 7 });
    expect(auto.stats.partitions).toBe(7);
    expect(auto.stats.peakFollowed).toBeLessThan(groupedOnePass.stats.peakFollowed);
    expect(summary(auto)).toEqual(summary(groupedOnePass));
    const always = await run(h.ordered, { spill: 'always', partitions: 3 });
    expect(always.stats.partitions).toBe(3);
    expect(summary(always)).toEqual(summary(onePass));
    // In log order the bound is never reached: one pass.
    expect((await run(h.ordered, { spillAt: 2000 })).stats.partitions).toBe(1);
  });

  it('J4, J1: stale and invalid watermarks change nothing by partitions either, and are counted once', async () => {
    const seed = 516;
    console.log(`spill: seed ${seed}`);
    const h = history(seed, true);
    const run = (sink: string, o: Partial<AuditOptions>) =>
      auditHistory({ log: h.log, sink, keepViolations: 1000, allowInvalid: true, ...o });
    const onePass = await run(h.grouped, { spill: 'never' });
    expect(onePass.log.rejected).toEqual({ out_of_range: 61 });
    // Each partition sees the watermarks of a whole run as their last of each side: still the same verdict, counts and witnesses.
    for (const partitions of [1, 2, 9]) {
      const parts = await run(h.grouped, { spill: 'always', partitions });
      expect(parts.stats.partitions).toBe(partitions);
      expect(summary(parts)).toEqual(summary(onePass));
    }
  });
});
