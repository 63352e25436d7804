// Audit reports in CI and across shards: the test cases of an audit report
// (one per property, for JUnit and TAP), and the merge of the reports of
// `audit --shard K/N` into the report of the unsharded audit. The properties
// are per key (SPEC §6) and the shards split the keys, so a property is
// violated when a shard finds it violated, unknown when none does and one
// cannot judge it (or a shard is missing), and holds when every shard says so.
import type { AuditPropertyResult } from '../conformance/audit/findings.ts';
import type { Shard } from '../conformance/job/shard.ts';
import type { AuditJson } from './audit.ts';
import type { OverallVerdict } from '../spec/index.ts';
import { EXIT } from './exitCodes.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';

/** What the shards of one audit share: the same files, config and profile. */
export function auditRunKey(r: AuditJson): string {
  return JSON.stringify([r.format, r.log.path, r.sink.path, r.config, r.profile]);
}

/** An audit's valid, violation, unknown as the verdict of every other command (pass, fail, unknown: SPEC §8). */
export function auditVerdict(verdict: AuditJson['verdict']): OverallVerdict {
  return verdict === 'valid' ? 'pass' : verdict === 'violation' ? 'fail' : 'unknown';
}

function mergeProperty(all: readonly AuditPropertyResult[], missing: boolean): AuditPropertyResult {
  const first = all[0] as AuditPropertyResult;
  const violations = all.reduce((n, p) => n + p.violations, 0);
  const pick = (v: AuditPropertyResult['verdict']): AuditPropertyResult | undefined => all.find((p) => p.verdict === v);
  const chosen = pick('violated') ?? pick('unknown') ?? pick('holds') ?? first;
  if (chosen.verdict !== 'violated' && missing)
    return { ...chosen, verdict: 'unknown', scope: `${chosen.scope}; unknown: a shard's report is missing`, violations };
  return { ...chosen, violations };
}

/** The shards of one audit merged: its verdict, properties, violations and counts. */
export function mergeAudit(shards: readonly AuditJson[], missing: readonly number[]): AuditJson {
  const first = shards[0] as AuditJson;
  const sum = (f: (r: AuditJson) => number): number => shards.reduce((n, r) => n + f(r), 0);
  const properties = first.properties.map((p) =>
    mergeProperty(
      shards.map((s) => s.properties.find((q) => q.property === p.property) as AuditPropertyResult),
      missing.length > 0,
    ),
  );
  const verdict = properties.some((p) => p.verdict === 'violated')
    ? 'violation'
    : properties.some((p) => p.verdict === 'unknown')
      ? 'unknown'
      : 'valid';
  const sequence = shards.some((s) => s.sink.sequence);
  const rejected: Record<string, number> = {};
  for (const s of shards) for (const [k, n] of Object.entries(s.log.rejected)) rejected[k] = (rejected[k] ?? 0) + (n ?? 0);
  return {
    ...first,
    shard: null,
    verdict,
    exitCode: verdict === 'violation' ? EXIT.fail : verdict === 'unknown' ? EXIT.unknown : EXIT.pass,
    seconds: sum((s) => s.seconds),
    // Every shard reads every watermark (they are every key's, J4): counted once.
    log: { ...first.log, records: sum((s) => s.log.records - s.log.watermarks) + first.log.watermarks, rejected },
    sink: {
      ...first.sink,
      changes: sum((s) => s.sink.changes),
      writes: sequence ? sum((s) => s.sink.writes ?? 0) : null,
      sequence,
      epochs: shards.some((s) => s.sink.epochs),
    },
    incomplete: shards.find((s) => s.incomplete !== null)?.incomplete ?? null,
    properties,
    violations: shards.flatMap((s) => s.violations),
    stats: {
      oracleInserts: sum((s) => s.stats.oracleInserts),
      oracleRetracts: sum((s) => s.stats.oracleRetracts),
      peakFollowed: Math.max(...shards.map((s) => s.stats.peakFollowed)),
      forgotten: sum((s) => s.stats.forgotten),
      contractSuspects: sum((s) => s.stats.contractSuspects),
      secondPass: shards.some((s) => s.stats.secondPass),
      partitions: Math.max(...shards.map((s) => s.stats.partitions)),
    },
  };
}

/** An audit report as CI test cases: one per property. */
export function auditCases(r: AuditJson): CiResult {
  const shard = (s: Shard | null): string => (s === null ? '' : ` shard ${s.index}/${s.count}`);
  const cases: TestCase[] = r.properties.map((p) => {
    const status =
      p.verdict === 'violated' ? 'fail' : p.verdict === 'unknown' ? 'unknown' : p.verdict === 'not-checked' ? 'skipped' : 'pass';
    const found = r.violations.filter((v) => v.property === p.property);
    return {
      name: p.property,
      classname: 'audit.properties',
      status,
      ...(status === 'pass' ? {} : { message: status === 'fail' ? `${p.violations} violation(s); ${p.scope}` : p.scope }),
      ...(found.length === 0
        ? {}
        : {
            details: found
              .map((v) => `${v.kind}: ${v.message}\n${v.witness.map((w) => `  ${w.file}:${w.line} ${w.role}`).join('\n')}`)
              .join('\n'),
          }),
    };
  });
  return {
    title: `streamjoin audit --log ${r.log.path} --sink ${r.sink.path}${shard(r.shard)}`,
    verdict: auditVerdict(r.verdict),
    suites: [{ name: 'audit: the properties of a recorded history', properties: { streamjoin: r.streamjoin, spec: r.spec }, cases }],
  };
}
