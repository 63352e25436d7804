// The minimal histories on which a plain incremental join differs from
// SPEC: each is a log that exercises one rule the engine has no notion of
// (J2's duplicates, J6's tombstones, J5's and J6's lateness). `observe`
// runs one through an engine as a job without streamjoin's bookkeeping in
// front would (every insert and retract goes in, one record per batch),
// writes the changelog and audits it. docs/audit.md, "What streamjoin finds
// in d2ts and Postgres", shows what it prints; examples/engines/engines.e2e.test.ts
// pins it.
//
//   npx tsx examples/engines/differences.ts d2ts|pglite
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditHistory, type AuditResult, type JoinConfig, type LogRecord } from '../../index.ts';
import { type IncrementalJoin, writeChangelog } from './engine.ts';

/** One minimal history: what it shows, which rule it exercises, its log. */
export interface Difference {
  readonly name: string;
  readonly rule: string;
  readonly config: JoinConfig;
  readonly records: readonly LogRecord[];
}

const config: JoinConfig = { allowedLateness: 0, maxIntervalLength: 4 };
const row = (kind: 'insert' | 'retract', side: 'L' | 'R', id: string, ts: number, start: number, end: number): LogRecord => ({
  kind,
  key: 'k',
  side,
  id,
  ts,
  start,
  end,
});
const a = (kind: 'insert' | 'retract') => row(kind, 'L', 'a', 1, 0, 2);
const x = (kind: 'insert' | 'retract') => row(kind, 'R', 'x', 2, 2, 3);
const watermarks = (wm: number): LogRecord[] => [
  { kind: 'watermark', side: 'L', wm },
  { kind: 'watermark', side: 'R', wm },
];

export const DIFFERENCES: readonly Difference[] = [
  { name: 'a duplicate insert', rule: 'J2: a redelivered row is a duplicate', config, records: [a('insert'), x('insert'), x('insert')] },
  {
    name: 'a duplicate insert, then one retraction',
    rule: 'J2, J6: the retraction ends the row',
    config,
    records: [a('insert'), x('insert'), x('insert'), x('retract')],
  },
  {
    name: 'a re-insert after a retraction',
    rule: 'J6: a tombstone never lives again',
    config,
    records: [a('insert'), x('insert'), x('retract'), x('insert')],
  },
  {
    name: 'a retraction before its insert',
    rule: 'J6: the retraction binds a tombstone; the insert is a duplicate',
    config,
    records: [x('retract'), a('insert'), x('insert')],
  },
  {
    name: 'a late row',
    rule: 'J5: an insert with ts < gw − L is dropped',
    config,
    records: [a('insert'), ...watermarks(3), x('insert')],
  },
  {
    name: 'a late retraction',
    rule: 'J6: a retraction past the row’s horizon (end + L + D) is dropped',
    config,
    records: [a('insert'), x('insert'), ...watermarks(8), x('retract')],
  },
  {
    name: 'a retraction with other content',
    rule: 'J2: a record with a bound identity and other content is a conflict',
    config,
    records: [a('insert'), x('insert'), row('retract', 'R', 'x', 2, 1, 2)],
  },
  {
    name: 'a retraction with other content, then a row only it overlaps',
    rule: 'J2: a conflict changes nothing',
    config,
    records: [a('insert'), x('insert'), row('retract', 'R', 'x', 2, 1, 2), row('insert', 'L', 'b', 1, 0, 1)],
  },
];

/** What the audit said of the changelog an engine wrote for one history. */
export interface Observed {
  readonly sink: readonly string[];
  readonly verdict: AuditResult['verdict'];
  /** Each violation as `Property (kind): message`. */
  readonly violations: readonly string[];
}

/** Runs `difference` through a fresh engine, without bookkeeping, one record per batch, and audits the changelog. */
export async function observe(engine: IncrementalJoin, difference: Difference): Promise<Observed> {
  const dir = mkdtempSync(join(tmpdir(), 'sj-difference-'));
  try {
    const log = join(dir, 'log.jsonl');
    const sink = join(dir, 'sink.jsonl');
    const header = JSON.stringify({ format: 'streamjoin/history-log@1', config: difference.config });
    writeFileSync(log, `${[header, ...difference.records.map((r) => JSON.stringify(r))].join('\n')}\n`);
    const lines = await writeChangelog(engine, difference.config, difference.records, { batch: 1, gate: 'none' });
    writeFileSync(sink, `${lines.join('\n')}\n`);
    const result = await auditHistory({ log, sink, sinkModel: 'diff' });
    return {
      sink: lines.slice(0, -1),
      verdict: result.verdict,
      violations: result.violations.map((v) => `${v.property} (${v.kind}): ${v.message}`),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(name: string | undefined): Promise<void> {
  const { engineStarter } = await import('./job.ts');
  if (name !== 'd2ts' && name !== 'pglite') throw new Error('usage: differences.ts d2ts|pglite');
  const engines = engineStarter(name);
  try {
    for (const d of DIFFERENCES) {
      const seen = await observe(await engines.start('inclusive'), d);
      process.stdout.write(`## ${d.name} (${d.rule})\nlog:\n${d.records.map((r) => `  ${JSON.stringify(r)}`).join('\n')}\n`);
      process.stdout.write(`${name} sink:\n${seen.sink.map((l) => `  ${l}`).join('\n') || '  (nothing)'}\naudit: ${seen.verdict}\n`);
      for (const v of seen.violations) process.stdout.write(`  ${v}\n`);
      process.stdout.write('\n');
    }
  } finally {
    await engines.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv[2]).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 254;
  });
}
