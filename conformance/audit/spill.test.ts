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
import { type OracleSinkLine as Line, oracleSinkLines, slidingLog, slidingLogConfig } from '../generate/slidingLogs.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { type AuditOptions, type AuditResult, auditHistory } from './audit.ts';

const freshDirectory = useTemporaryDirectories('sj-spill-');

/** A sliding history over many keys, its sink with faults in three keys, in log order and grouped by key. */
function history(seed: number): { log: string; ordered: string; grouped: string } {
  const options = { records: 6000, keys: 40, window: 6, seed, maxIntervalLength: 200 };
  const config = slidingLogConfig(options);
  const records = [...slidingLog(options)];
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
});
