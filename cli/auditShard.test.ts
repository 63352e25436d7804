// `audit --shard K/N` and merge-reports (docs/audit.md, "Sharded audits"):
// the properties are per key (SPEC §6: JoinCorrect, ExactlyOnce, Fenced), so
// N shards that split the keys, merged, give the unsharded verdict — the same
// properties, counts and violations — on a history with faults in several keys.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JoinOperator } from '../impl/index.ts';
import { type OracleSinkLine as Line, oracleSinkLines, slidingLog, slidingLogConfig } from '../conformance/generate/slidingLogs.ts';
import { keyInShard, shardOfKey } from '../conformance/audit/keyShard.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import type { AuditJson } from './audit.ts';
import type { MergeJson } from './mergeReports.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-audit-shard-', 'all');

/** A sliding history (seed printed) whose sink has a fault in each of several keys. */
function faultyHistory(dir: string, seed: number): { log: string; sink: string; faultyKeys: string[] } {
  const options = { records: 4000, keys: 9, window: 10, seed };
  const config = slidingLogConfig(options);
  const records = [...slidingLog(options)];
  const sink = oracleSinkLines(records, new JoinOperator(config), 2);
  const keys = [...new Set(sink.map((l) => l.key))].sort();
  const [k1, k2, k3, k4] = keys as [string, string, string, string];
  const at = (key: string, nth: number, op: 'insert' | 'retract' = 'insert'): number => {
    let seen = 0;
    return sink.findIndex((l) => l.key === key && l.op === op && seen++ === nth);
  };
  // k1: an insert applied twice (ExactlyOnce); k2: an insert lost (JoinCorrect); k3: a zombie write below the fence (Fenced);
  // k4: a retraction lost (JoinCorrect extra).
  const dup = at(k1, 5);
  const lost = at(k2, 7);
  const zombie = at(k3, 9);
  const unretracted = at(k4, 3, 'retract');
  const out: Line[] = [];
  sink.forEach((l, i) => {
    if (i === lost || i === unretracted) return;
    out.push(i === zombie ? { ...l, epoch: 1 } : l);
    if (i === dup) out.push({ ...l });
  });
  const log = join(dir, 'log.jsonl');
  const sinkPath = join(dir, 'sink.jsonl');
  writeFileSync(log, `${[{ format: 'streamjoin/history-log@1', config }, ...records].map((x) => JSON.stringify(x)).join('\n')}\n`);
  writeFileSync(sinkPath, `${out.map((x) => JSON.stringify(x)).join('\n')}\n`);
  return { log, sink: sinkPath, faultyKeys: [k1, k2, k3, k4] };
}

const violationsOf = (r: AuditJson): string[] =>
  r.violations
    .map((v) =>
      JSON.stringify([v.property, v.kind, v.match ?? null, v.key ?? null, v.message, v.witness.map((w) => [w.file, w.line, w.role])]),
    )
    .sort();

describe('audit --shard K/N, merged by merge-reports, is the unsharded audit', () => {
  it('keys hash to exactly one shard, the same on every run', () => {
    for (const count of [1, 2, 3, 5])
      for (const key of ['k0', 'k1', 'u17', '', 'ключ', 'a/b'])
        expect([1, 2, 3, 4, 5].slice(0, count).filter((index) => keyInShard(key, { index, count }))).toEqual([shardOfKey(key, count)]);
    expect(shardOfKey('k1', 4)).toBe(shardOfKey('k1', 4));
  });

  it('with faults in four keys: N = 2 and 3 shards merged have the unsharded verdict, properties, counts and violations', async () => {
    const seed = 20261206;
    console.log(`audit shards: seed ${seed}`);
    const dir = tmp();
    const h = faultyHistory(dir, seed);
    const whole = await runCli(['audit', '--log', h.log, '--sink', h.sink, '--json', '--quiet', '--keep', '1000']);
    expect(whole.code).toBe(1);
    const w = JSON.parse(whole.stdout) as AuditJson;
    expect(w.properties.map((p) => `${p.property}:${p.verdict}`)).toEqual([
      'JoinCorrect:violated',
      'ExactlyOnce:violated',
      'Fenced:violated',
    ]);
    // The faults sit in four keys that do not all fall to one shard.
    expect(new Set(h.faultyKeys.map((k) => shardOfKey(k, 3))).size).toBeGreaterThan(1);
    for (const count of [2, 3]) {
      const files: string[] = [];
      for (let k = 1; k <= count; k++) {
        const r = await runCli([
          'audit',
          '--log',
          h.log,
          '--sink',
          h.sink,
          '--json',
          '--quiet',
          '--keep',
          '1000',
          '--shard',
          `${k}/${count}`,
        ]);
        const file = join(dir, `shard-${k}-of-${count}.json`);
        writeFileSync(file, r.stdout);
        files.push(file);
        const part = JSON.parse(r.stdout) as AuditJson;
        expect(part.shard).toEqual({ index: k, count });
        // A shard judges only its keys.
        for (const v of part.violations) expect(shardOfKey(v.key as string, count)).toBe(k);
      }
      const merged = await runCli(['merge-reports', ...files, '--json']);
      expect(merged.code, merged.stderr).toBe(1);
      const m = (JSON.parse(merged.stdout) as MergeJson).runs;
      expect(m).toHaveLength(1);
      const r = m[0]?.report as AuditJson;
      expect(r.verdict).toBe(w.verdict);
      expect(r.exitCode).toBe(w.exitCode);
      expect(r.properties).toEqual(w.properties);
      expect(violationsOf(r)).toEqual(violationsOf(w));
      expect([r.log.records, r.sink.changes, r.sink.writes, r.stats.oracleInserts, r.stats.oracleRetracts]).toEqual([
        w.log.records,
        w.sink.changes,
        w.sink.writes,
        w.stats.oracleInserts,
        w.stats.oracleRetracts,
      ]);
      // A missing shard leaves the merged audit unknown, never valid (here: still the violations of the shards present).
      const partial = await runCli(['merge-reports', files[0] as string]);
      expect(partial.stdout).toMatch(/missing: shard 2\//);
    }
  });
});
