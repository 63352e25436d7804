// `streamjoin merge-reports REPORT...`: the --json reports of the shards of
// one or more runs (`--shard K/N`) combined into one report per run, one
// verdict, one JUnit file, one summary. A shard that is missing leaves its
// run `unknown` (never a pass); the same shard twice, or shards of one run
// that disagree, are bad input (SJ109).
import { InputError, parseJson, readInputsAhead, readTextFile, schemaError } from '../spec/index.ts';
import type { Level, OverallVerdict } from '../spec/index.ts';
import type { ExhaustiveResult, RandomResult } from '../conformance/job/conformTypes.ts';
import type { Shard } from '../conformance/job/shard.ts';
import { groupByCause } from '../conformance/report/causes.ts';
import { EXIT, usageError, worstExit } from './exitCodes.ts';
import { parseCommandArgs } from './options.ts';
import type { Output } from './output.ts';
import { CONFORM_REPORT_FORMAT, conformCases, type ConformJson } from './conformReport.ts';
import { CHECK_REPORT_FORMAT, checkCases, type CheckJson, type PropertyJson, type SimulatedPartJson } from './checkOutput.ts';
import { MUTANTS_REPORT_FORMAT, mutantsCases, type MutantsJson } from './mutants.ts';
import { RUN_REPORT_FORMAT, runCases, type RunJson } from './run.ts';
import { REPLAY_REPORT_FORMAT, replayCases, type ReplayJson } from './replay.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, emitReports, parseReporters, reporterOnStdout } from './reporters/emit.ts';
import type { CiResult } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';
import { AUDIT_REPORT_FORMAT, type AuditJson } from './audit.ts';
import { auditCases, auditRunKey, auditVerdict, mergeAudit } from './auditMerge.ts';
import { KILL_REPORT_FORMAT, killCases, mergeKill, type KillReportJson } from './killReport.ts';

export const mergeReportsHelp = `streamjoin merge-reports REPORT... [--json] [--reporter junit=FILE] [--reporter tap[=FILE]]

Combines the --json reports of sharded runs (conform, conform --kill, check,
mutants and audit with --shard K/N; the shards of one run share its settings and seed) into one
report per run: the examples, interleavings, random traces, parts and
mutants of all its shards, and one verdict, the worst. The shards of a
check --simulate are one simulation: the total walks and steps, each
property's shortest counterexample. Reports of unsharded
runs (and of run and replay) are taken as they are. Prints a summary, or
with --json one document (streamjoin/merge-report@1) holding every merged
report; --reporter writes one JUnit or TAP file for all of them.

  --json               print the merged reports as one JSON document
${REPORTER_HELP}

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 2 unknown
also when a shard's report is missing (never a pass); 254 also when a file is
not a streamjoin report, its exit code and verdict disagree (SJ102), or it
holds the same shard twice, or a shard another version wrote (SJ109).`;

export const MERGE_REPORT_FORMAT = 'streamjoin/merge-report@1';

type AnyReport = ConformJson | CheckJson | MutantsJson | RunJson | ReplayJson | AuditJson | KillReportJson;

const SCHEMAS: Readonly<Record<string, string>> = {
  [CONFORM_REPORT_FORMAT]: 'reports/conform-report',
  [CHECK_REPORT_FORMAT]: 'reports/check-report',
  [MUTANTS_REPORT_FORMAT]: 'reports/mutants-report',
  [RUN_REPORT_FORMAT]: 'reports/run-report',
  [REPLAY_REPORT_FORMAT]: 'reports/replay-report',
  [AUDIT_REPORT_FORMAT]: 'reports/audit-report',
  [KILL_REPORT_FORMAT]: 'reports/conform-kill-report',
};

interface Loaded {
  readonly file: string;
  readonly report: AnyReport;
}

function load(file: string): Loaded {
  const doc = parseJson(readTextFile(file), file);
  const format = (doc as { format?: unknown } | null)?.format;
  const schema = typeof format === 'string' ? SCHEMAS[format] : undefined;
  if (schema === undefined)
    throw new InputError(
      'SJ103',
      file,
      `/format: not a report merge-reports reads (${Object.keys(SCHEMAS).join(', ')}), got ${JSON.stringify(format ?? null)}`,
    );
  const problem = schemaError(schema, doc);
  if (problem) throw new InputError('SJ102', file, problem.text);
  const report = doc as AnyReport;
  // A report whose exit code and verdict disagree was edited or is corrupt: merged, it could pass what failed.
  const exitCode = (report as { exitCode?: unknown }).exitCode;
  if (typeof exitCode === 'number' && (exitCode === EXIT.pass) !== (verdictOf(report) === 'pass'))
    throw new InputError(
      'SJ102',
      file,
      `/exitCode: ${exitCode} contradicts /verdict ${JSON.stringify((report as { verdict?: unknown }).verdict)} (a pass is exit 0, and exit 0 is a pass): the report was edited or is damaged`,
    );
  return { file, report };
}

const shardOf = (r: AnyReport): Shard | null => ('shard' in r ? r.shard : null);

/** What the shards of one run share: their settings (a different value means another run). */
function runKey(r: AnyReport): string {
  switch (r.format) {
    case CONFORM_REPORT_FORMAT: {
      const c = r as ConformJson;
      return JSON.stringify([c.format, c.sut, c.seed, c.exhaustive.map((x) => x.scenario), c.random.map((x) => x.level)]);
    }
    case CHECK_REPORT_FORMAT: {
      const c = r as CheckJson;
      // A simulation's shards share its seed too: another seed is another run.
      return JSON.stringify([
        c.format,
        c.preset,
        c.bounds,
        c.ablate,
        c.joint,
        c.partsTotal,
        c.mode,
        c.mode === 'simulation' ? c.seed : null,
      ]);
    }
    case MUTANTS_REPORT_FORMAT: {
      const m = r as MutantsJson;
      return JSON.stringify([m.format, m.seed, m.runs]);
    }
    case AUDIT_REPORT_FORMAT:
      return auditRunKey(r as AuditJson);
    case KILL_REPORT_FORMAT: {
      const k = r as KillReportJson;
      return JSON.stringify([k.format, k.sut, k.seed]);
    }
    default:
      return JSON.stringify([r.format]);
  }
}

/** A report's verdict as pass, fail or unknown (an audit says valid, violation, unknown). */
const verdictOf = (r: AnyReport): OverallVerdict =>
  r.format === AUDIT_REPORT_FORMAT ? auditVerdict((r as AuditJson).verdict) : (r.verdict as OverallVerdict);

const worstVerdict = (vs: readonly OverallVerdict[]): OverallVerdict =>
  vs.includes('fail') ? 'fail' : vs.includes('unknown') ? 'unknown' : 'pass';
const exitOf = (v: OverallVerdict): number => (v === 'pass' ? EXIT.pass : v === 'fail' ? EXIT.fail : EXIT.unknown);

/** Item j of shard k (1-based) was item j*N + k-1 of the unsharded list: the shards' items back in the unsharded order. */
function interleave<T>(byShard: ReadonlyMap<number, readonly T[]>, count: number): T[] {
  const out: { at: number; item: T }[] = [];
  for (const [k, items] of byShard) items.forEach((item, j) => out.push({ at: j * count + (k - 1), item }));
  return out.sort((a, b) => a.at - b.at).map((x) => x.item);
}

/** Each shard claims coverage over the traces it ran: the run's is their union. */
function mergedCoverage(shards: readonly ConformJson[]): ConformJson['coverage'] {
  const claims = shards.map((s) => s.coverage).filter((c): c is NonNullable<ConformJson['coverage']> => c !== null);
  const first = claims[0];
  if (!first) return null;
  const taken = new Set(claims.flatMap((c) => c.taken));
  return { required: first.required, missing: first.required.filter((l) => !taken.has(l)), taken: [...taken] };
}

function mergeConform(shards: readonly ConformJson[], count: number, missing: readonly number[]): ConformJson {
  const first = shards[0] as ConformJson;
  const examples = interleave(new Map(shards.map((s) => [(s.shard as Shard).index, s.examples])), count);
  const exhaustive: ExhaustiveResult[] = first.exhaustive.map((x) => {
    const all = shards.map((s) => s.exhaustive.find((y) => y.scenario === x.scenario) as ExhaustiveResult);
    const levels: Partial<Record<Level, number>> = {};
    for (const a of all) for (const [l, n] of Object.entries(a.levels)) levels[l as Level] = (levels[l as Level] ?? 0) + (n ?? 0);
    const verdicts = all.map((a) => a.verdict);
    return {
      ...x,
      traces: all.reduce((n, a) => n + a.traces, 0),
      steps: all.reduce((n, a) => n + a.steps, 0),
      probes: all.reduce((n, a) => n + a.probes, 0),
      run: all.reduce((n, a) => n + a.run, 0),
      skipped: all.reduce((n, a) => n + a.skipped, 0),
      probesSent: all.reduce((n, a) => n + a.probesSent, 0),
      levels,
      // A scenario no shard ran a trace of is skipped, never passed.
      verdict: verdicts.includes('fail')
        ? 'fail'
        : verdicts.includes('unknown')
          ? 'unknown'
          : verdicts.every((v) => v === 'not run')
            ? 'not run'
            : verdicts.every((v) => v === 'skipped' || v === 'not run')
              ? 'skipped'
              : 'pass',
      ms: all.reduce((n, a) => n + a.ms, 0),
    };
  });
  const random: RandomResult[] = first.random.map((r) => {
    const all = shards.map((s) => s.random.find((y) => y.level === r.level)).filter((y): y is RandomResult => y !== undefined);
    const notes = all.map((a) => a.note).filter((n): n is string => n !== undefined);
    return {
      level: r.level,
      seed: r.seed,
      requested: all.reduce((n, a) => n + a.requested, 0),
      runs: all.reduce((n, a) => n + a.runs, 0),
      shrinks: all.reduce((n, a) => n + a.shrinks, 0),
      probes: all.reduce((n, a) => n + a.probes, 0),
      verdict: worstVerdict(all.map((a) => a.verdict)),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    };
  });
  // Across shards one cause may have a counterexample in several: one to attach per cause, chosen again over all.
  const found = shards.flatMap((s) => s.failures);
  const attached = new Set(groupByCause(found).map((g) => g.attach));
  const failures = found.map((f, i) => ({ ...f, attach: attached.has(i) }));
  const unknown =
    shards.find((s) => s.unknown !== null)?.unknown ??
    (missing.length > 0
      ? {
          reason: `the report of shard ${missing.map((k) => `${k}/${count}`).join(', ')} is missing`,
          stderrTail: [],
          during: 'merge-reports',
        }
      : null);
  const verdict = worstVerdict([...shards.map((s) => s.verdict), ...(missing.length > 0 ? ['unknown' as const] : [])]);
  return {
    ...first,
    verdict,
    exitCode: exitOf(verdict),
    implementation: shards.find((s) => s.implementation !== null)?.implementation ?? null,
    shard: null,
    ms: shards.reduce((n, s) => n + s.ms, 0),
    examples,
    skipped: shards.flatMap((s) => s.skipped),
    exhaustive,
    coverage: mergedCoverage(shards),
    random,
    failures,
    unknown,
  };
}

/** Steps of a property's counterexample; a property without one sorts last. */
const pathLength = (p: PropertyJson): number => p.path?.actions.length ?? Number.POSITIVE_INFINITY;

/**
 * The walks of a simulation's shards as one simulation (the shards ran
 * disjoint walks of one seed): the walks and steps add up; each property is
 * violated if some shard broke it, with the shortest counterexample found;
 * the violation named is the shortest of all. Rates add up (the shards ran
 * side by side); the duration is the longest shard's.
 */
function mergeSimulation(parts: readonly SimulatedPartJson[], missing: readonly number[]): SimulatedPartJson {
  const first = parts[0] as SimulatedPartJson;
  const shortest = (name: string, pick: (p: SimulatedPartJson) => PropertyJson | null | undefined): PropertyJson => {
    const candidates = parts.map(pick).filter((x): x is PropertyJson => x !== null && x !== undefined);
    const violated = candidates.filter((x) => x.verdict === 'violated').sort((a, b) => pathLength(a) - pathLength(b));
    return violated[0] ?? candidates.find((x) => x.name === name) ?? (candidates[0] as PropertyJson);
  };
  const invariants = first.invariants.map((inv) => shortest(inv.name, (p) => p.invariants.find((x) => x.name === inv.name)));
  const progress = first.progress ? shortest(first.progress.name, (p) => p.progress) : null;
  const broken = parts
    .filter((p) => p.violation !== null)
    .map((p) => ({
      p,
      length: Math.min(...[...p.invariants, ...(p.progress ? [p.progress] : [])].filter((x) => x.verdict === 'violated').map(pathLength)),
    }))
    .sort((a, b) => a.length - b.length || (a.p.violation?.walk ?? 0) - (b.p.violation?.walk ?? 0))[0]?.p;
  const kinds: Record<string, number> = {};
  for (const p of parts) for (const [k, n] of Object.entries(p.actionKindCounts)) kinds[k] = (kinds[k] ?? 0) + n;
  const interrupted = parts.some((p) => p.status === 'interrupted');
  const code = worstExit([...parts.map((p) => p.exitCode), ...(missing.length > 0 ? [EXIT.unknown] : [])]);
  return {
    ...first,
    status: interrupted ? 'interrupted' : 'simulated',
    walks: parts.reduce((n, p) => n + p.walks, 0),
    steps: parts.reduce((n, p) => n + p.steps, 0),
    durationMs: Math.max(...parts.map((p) => p.durationMs)),
    walksPerSecond: parts.reduce((n, p) => n + p.walksPerSecond, 0),
    stepsPerSecond: parts.reduce((n, p) => n + p.stepsPerSecond, 0),
    longestWalk: Math.max(...parts.map((p) => p.longestWalk)),
    deadEnds: parts.reduce((n, p) => n + p.deadEnds, 0),
    workers: parts.reduce((n, p) => n + p.workers, 0),
    stoppedBy: broken ? broken.stoppedBy : interrupted ? 'interrupted' : first.stoppedBy,
    violation: broken?.violation ?? null,
    invariants,
    progress,
    actionKindCounts: Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    verdict: code === EXIT.pass ? 'pass' : code === EXIT.unknown ? 'unknown' : 'fail',
    exitCode: code,
  };
}

function mergeCheck(shards: readonly CheckJson[], count: number, missing: readonly number[]): CheckJson {
  const first = shards[0] as CheckJson;
  if (first.mode === 'simulation') {
    const merged = mergeSimulation(
      shards.map((s) => s.parts[0] as SimulatedPartJson),
      missing,
    );
    return { ...first, shard: null, parts: [merged], verdict: merged.verdict, exitCode: merged.exitCode };
  }
  const parts = interleave(new Map(shards.map((s) => [(s.shard as Shard).index, s.parts])), count);
  const code = worstExit([...parts.map((p) => p.exitCode), ...(missing.length > 0 ? [EXIT.unknown] : [])]);
  return {
    ...first,
    shard: null,
    parts,
    verdict: code === EXIT.pass ? 'pass' : code === EXIT.unknown ? 'unknown' : 'fail',
    exitCode: code,
  };
}

function mergeMutants(shards: readonly MutantsJson[], count: number, missing: readonly number[]): MutantsJson {
  const first = shards[0] as MutantsJson;
  const mutants = interleave(new Map(shards.map((s) => [(s.shard as Shard).index, s.mutants])), count);
  const control = worstVerdict(shards.map((s) => s.control.verdict));
  const notes = shards.map((s) => s.control.note).filter((n): n is string => n !== null);
  const verdict: OverallVerdict =
    control !== 'pass'
      ? 'unknown'
      : mutants.some((m) => m.verdict === 'survived')
        ? 'fail'
        : missing.length > 0 || mutants.some((m) => m.verdict === 'unknown')
          ? 'unknown'
          : 'pass';
  return {
    ...first,
    verdict,
    exitCode: exitOf(verdict),
    shard: null,
    control: { verdict: control, ms: shards.reduce((n, s) => n + s.control.ms, 0), note: notes.length > 0 ? notes.join('; ') : null },
    mutants,
  };
}

/** One run, merged from its shards (or an unsharded report as it is). */
export interface MergedRun {
  readonly report: AnyReport;
  readonly files: readonly string[];
  readonly shards: number | null;
  readonly missing: readonly number[];
}

/** Groups the reports by run and merges each run's shards. */
export function mergeRuns(loaded: readonly Loaded[]): MergedRun[] {
  const runs: MergedRun[] = [];
  const groups = new Map<string, Loaded[]>();
  for (const l of loaded) {
    const shard = shardOf(l.report);
    if (shard === null) {
      runs.push({ report: l.report, files: [l.file], shards: null, missing: [] });
      continue;
    }
    const key = `${runKey(l.report)} ${shard.count}`;
    const g = groups.get(key) ?? [];
    g.push(l);
    groups.set(key, g);
  }
  for (const group of groups.values()) {
    const count = (shardOf((group[0] as Loaded).report) as Shard).count;
    const byIndex = new Map<number, Loaded>();
    for (const l of group) {
      const k = (shardOf(l.report) as Shard).index;
      const twice = byIndex.get(k);
      if (twice) throw new InputError('SJ109', l.file, `shard ${k}/${count} of this run is also ${twice.file}`);
      byIndex.set(k, l);
    }
    // One run's shards come from one streamjoin and one spec: another version may check other things.
    const first = group[0] as Loaded;
    const other = group.find((l) => l.report.streamjoin !== first.report.streamjoin || l.report.spec !== first.report.spec);
    if (other)
      throw new InputError(
        'SJ109',
        other.file,
        `written by streamjoin ${other.report.streamjoin} (spec ${other.report.spec}), but ${first.file}, a shard of the same run, by streamjoin ${first.report.streamjoin} (spec ${first.report.spec}): run every shard with one version`,
      );
    const present = [...byIndex.keys()].sort((a, b) => a - b);
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !byIndex.has(k));
    const reports = present.map((k) => (byIndex.get(k) as Loaded).report);
    const files = present.map((k) => (byIndex.get(k) as Loaded).file);
    const format = (reports[0] as AnyReport).format;
    const report =
      format === CONFORM_REPORT_FORMAT
        ? mergeConform(reports as ConformJson[], count, missing)
        : format === CHECK_REPORT_FORMAT
          ? mergeCheck(reports as CheckJson[], count, missing)
          : format === AUDIT_REPORT_FORMAT
            ? mergeAudit(reports as AuditJson[], missing)
            : format === KILL_REPORT_FORMAT
              ? mergeKill(reports as KillReportJson[], count, missing)
              : mergeMutants(reports as MutantsJson[], count, missing);
    runs.push({ report, files, shards: count, missing });
  }
  return runs;
}

export function casesOf(r: AnyReport): CiResult {
  switch (r.format) {
    case CONFORM_REPORT_FORMAT:
      return conformCases(r as ConformJson);
    case CHECK_REPORT_FORMAT:
      return checkCases(r as CheckJson);
    case MUTANTS_REPORT_FORMAT:
      return mutantsCases(r as MutantsJson);
    case RUN_REPORT_FORMAT:
      return runCases(r as RunJson);
    case AUDIT_REPORT_FORMAT:
      return auditCases(r as AuditJson);
    case KILL_REPORT_FORMAT:
      return killCases(r as KillReportJson);
    default:
      return replayCases(r as ReplayJson);
  }
}

/** `streamjoin merge-reports --json` (spec/schemas/reports/merge-report.schema.json). */
export interface MergeJson extends ReportHeader {
  readonly verdict: OverallVerdict;
  readonly exitCode: number;
  readonly runs: readonly {
    readonly files: readonly string[];
    readonly shards: number | null;
    readonly missing: readonly number[];
    readonly report: AnyReport;
  }[];
}

export async function mergeReportsCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, ...REPORTER_OPTION },
    },
    'merge-reports',
  );
  if (positionals.length === 0) throw usageError('merge-reports needs one or more REPORT files (the --json reports of the shards)');
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  await readInputsAhead(positionals, { signal: out.signal });
  const runs = mergeRuns(positionals.map(load));
  const results = runs.map((r) => casesOf(r.report));
  const verdict = worstVerdict(runs.map((r) => verdictOf(r.report)));
  const json: MergeJson = {
    ...reportHeader(MERGE_REPORT_FORMAT),
    verdict,
    exitCode: exitOf(verdict),
    runs: runs.map((r) => ({ files: r.files, shards: r.shards, missing: r.missing, report: r.report })),
  };
  if (values.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) {
    const lines: string[] = [];
    for (const [i, r] of runs.entries()) {
      const c = results[i] as CiResult;
      const cases = c.suites.flatMap((s) => s.cases);
      const n = (status: string): number => cases.filter((x) => x.status === status).length;
      lines.push(
        `${c.title}${r.shards !== null ? `, ${r.shards - r.missing.length} of ${r.shards} shards` : ''}: ` +
          `${verdictOf(r.report).toUpperCase()} (${cases.length} cases: ${n('pass')} passed, ` +
          `${n('fail')} failed, ${n('unknown')} unknown, ${n('skipped')} skipped)`,
      );
      if (r.missing.length > 0) lines.push(`  missing: shard ${r.missing.map((k) => `${k}/${r.shards}`).join(', ')}`);
      for (const s of c.suites)
        for (const x of s.cases)
          if (x.status === 'fail' || x.status === 'unknown') {
            lines.push(`  ${x.status === 'fail' ? 'FAIL' : 'UNKNOWN'} ${s.name}: ${x.name}${x.message ? `: ${x.message}` : ''}`);
            if (x.details) lines.push(x.details.replace(/^/gm, '    '));
          }
    }
    lines.push('', `verdict: ${verdict === 'pass' ? 'pass' : verdict.toUpperCase()}`);
    out.stdout(`${lines.join('\n')}\n`);
  }
  emitReports(results, reporters, out, values.json);
  return json.exitCode;
}
