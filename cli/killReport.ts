// `conform --kill --json` (spec/schemas/reports/conform-kill-report.schema.json)
// and its CI test cases (JUnit, TAP, GitHub annotations): one case per trace
// of the kill-mode job (kill.ts, conformance/kill/killJob.ts).
import { divergenceStepText, explainDivergence, type Divergence } from '../conformance/report/divergence.ts';
import type { KillJobReport } from '../conformance/kill/killJob.ts';
import { totalKills } from '../conformance/kill/killRun.ts';
import { killNoteAt } from '../conformance/kill/killTraces.ts';
import type { Shard } from '../conformance/job/shard.ts';
import { shellQuote } from '../conformance/views/counterexampleFiles.ts';
import { displayPath } from './conformReport.ts';
import { EXIT } from './exitCodes.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';
import { reportHeader, type ReportHeader } from './version.ts';

export const KILL_REPORT_FORMAT = 'streamjoin/conform-kill-report@1';

/** `conform --kill --json`. */
export interface KillReportJson extends ReportHeader {
  readonly verdict: KillJobReport['verdict'];
  readonly exitCode: number;
  readonly sut: string;
  readonly seed: number;
  readonly shard: Shard | null;
  readonly ms: number;
  readonly examples: number;
  readonly exhaustiveRuns: number;
  readonly exhaustiveDiedAtWrite: number;
  readonly requested: number;
  readonly runs: number;
  readonly steps: number;
  readonly kills: KillJobReport['kills'] & { readonly total: number };
  readonly restarts: KillJobReport['restarts'];
  readonly traces: readonly {
    readonly kind: 'exhaustive' | 'example' | 'random';
    readonly source: string;
    readonly steps: number;
    readonly kills: number;
    readonly verdict: 'pass' | 'fail' | 'unknown' | 'not run';
    readonly ms: number;
  }[];
  readonly failure: {
    readonly source: string;
    readonly steps: number;
    readonly originalSteps: number;
    readonly shrinks: number;
    readonly killed: boolean;
    /** The note of the kill step the divergence is at ("killed here: ..."), when it is one. */
    readonly killNote: string | null;
    readonly divergence: Divergence;
    readonly counterexample: string | null;
    readonly replay: readonly string[] | null;
  } | null;
  readonly unknown: { readonly reason: string; readonly stderrTail: readonly string[] } | null;
}

const exitOf = (verdict: KillJobReport['verdict']): number =>
  verdict === 'pass' ? EXIT.pass : verdict === 'fail' ? EXIT.fail : EXIT.unknown;

/** The JSON report of a kill-mode run (of one shard); `written` and `replay`: the counterexample file and the command that replays it. */
export function killJson(
  report: KillJobReport,
  shard: Shard | undefined,
  written: string | undefined,
  replay: readonly string[] | undefined,
): KillReportJson {
  const f = report.failure;
  return {
    ...reportHeader(KILL_REPORT_FORMAT),
    verdict: report.verdict,
    exitCode: exitOf(report.verdict),
    sut: report.sut,
    seed: report.seed,
    shard: shard ?? null,
    ms: report.ms,
    examples: report.examples,
    exhaustiveRuns: report.exhaustiveRuns,
    exhaustiveDiedAtWrite: report.exhaustiveDiedAtWrite,
    requested: report.requested,
    runs: report.runs,
    steps: report.steps,
    kills: { ...report.kills, total: totalKills(report.kills) },
    restarts: report.restarts,
    traces: report.traces.map((t) => ({ ...t, source: displayPath(t.source) })),
    failure: f
      ? {
          source: displayPath(f.source),
          steps: f.trace.steps.length,
          originalSteps: f.originalSteps,
          shrinks: f.shrinks,
          killed: f.killed,
          killNote: (f.killed ? killNoteAt(f.trace, f.divergence.step) : undefined) ?? null,
          divergence: explainDivergence(f.divergence),
          counterexample: written ?? null,
          replay: replay ?? null,
        }
      : null,
    unknown: report.unknown ? { reason: report.unknown.reason, stderrTail: [...report.unknown.stderrTail] } : null,
  };
}

/** A kill-mode report as CI test cases: one per trace (one per write point in the exhaustive part). */
export function killCases(j: KillReportJson): CiResult {
  const shard = j.shard ? ` shard ${j.shard.index}/${j.shard.count}` : '';
  const cases: TestCase[] = j.traces.map((t) => {
    const name = `${t.source}: ${t.steps} steps, ${t.kills} kills`;
    const classname = `conform.kill.${t.kind}`;
    const timeMs = t.ms;
    if (t.verdict === 'not run') return { name, classname, status: 'skipped', message: 'not run: the job stopped before it' };
    if (t.verdict === 'unknown') return { name, classname, status: 'unknown', message: j.unknown?.reason ?? 'not judged', timeMs };
    if (t.verdict === 'pass') return { name, classname, status: 'pass', timeMs };
    const f = j.failure;
    const message = f
      ? `diverges at ${f.divergence.step < 0 ? `${divergenceStepText(f.divergence.step)}, before step 1` : divergenceStepText(f.divergence.step)} of ${f.steps} (minimized)${f.killNote ? `, ${f.killNote}` : ''}: ${f.divergence.summary}`
      : 'diverges';
    const details = f
      ? [f.counterexample ? `counterexample: ${f.counterexample}` : '', f.replay ? `replay: ${f.replay.join(' ')}` : '']
      : [];
    return {
      name,
      classname,
      status: 'fail',
      message,
      details: details.filter((l) => l !== '').join('\n'),
      ...(f?.counterexample ? { file: f.counterexample } : {}),
      timeMs,
    };
  });
  const system: TestCase[] = j.unknown
    ? [
        {
          name: 'the system under test',
          classname: 'conform.kill.system',
          status: 'unknown',
          message: j.unknown.reason,
          details: j.unknown.stderrTail.map((l) => `| ${l}`).join('\n'),
        },
      ]
    : [];
  const properties = {
    sut: j.sut,
    seed: String(j.seed),
    kills: String(j.kills.total),
    ...(j.shard ? { shard: `${j.shard.index}/${j.shard.count}` } : {}),
    streamjoin: j.streamjoin,
    spec: j.spec,
  };
  return {
    title: `streamjoin conform --kill --sut ${shellQuote(j.sut)}${shard}`,
    verdict: j.verdict,
    suites: [
      { name: `conform --kill${shard}: traces`, cases, properties },
      ...(system.length > 0 ? [{ name: `conform --kill${shard}: system under test`, cases: system, properties }] : []),
    ],
  };
}

/**
 * The shards of one kill-mode run (`--shard K/N`, one seed) as one report:
 * the traces of each kind back in the unsharded order (the exhaustive
 * part's write points in shard order), the counts summed, the restart times
 * pooled, the first failure; a missing shard leaves the run unknown.
 */
export function mergeKill(shards: readonly KillReportJson[], count: number, missing: readonly number[]): KillReportJson {
  const first = shards[0] as KillReportJson;
  const sum = (pick: (j: KillReportJson) => number): number => shards.reduce((n, j) => n + pick(j), 0);
  const ofKind = (kind: KillReportJson['traces'][number]['kind']): KillReportJson['traces'] => {
    const byShard = shards.map((j) => ({ index: (j.shard as Shard).index, traces: j.traces.filter((t) => t.kind === kind) }));
    if (kind === 'exhaustive') return byShard.flatMap((s) => s.traces);
    // Item j of shard k was item j*N + k-1 of the unsharded list.
    return byShard
      .flatMap((s) => s.traces.map((t, j) => ({ at: j * count + (s.index - 1), t })))
      .sort((a, b) => a.at - b.at)
      .map((x) => x.t);
  };
  const restarts = sum((j) => j.restarts.count);
  const verdicts = [...shards.map((j) => j.verdict), ...(missing.length > 0 ? ['unknown' as const] : [])];
  const verdict = verdicts.includes('fail') ? 'fail' : verdicts.includes('unknown') ? 'unknown' : 'pass';
  const unknown =
    shards.find((j) => j.unknown !== null)?.unknown ??
    (missing.length > 0
      ? { reason: `the report of shard ${missing.map((k) => `${k}/${count}`).join(', ')} is missing`, stderrTail: [] }
      : null);
  return {
    ...first,
    verdict,
    exitCode: exitOf(verdict),
    shard: null,
    ms: sum((j) => j.ms),
    examples: sum((j) => j.examples),
    exhaustiveRuns: sum((j) => j.exhaustiveRuns),
    exhaustiveDiedAtWrite: sum((j) => j.exhaustiveDiedAtWrite),
    requested: sum((j) => j.requested),
    runs: sum((j) => j.runs),
    steps: sum((j) => j.steps),
    kills: {
      afterReply: sum((j) => j.kills.afterReply),
      inFlightLost: sum((j) => j.kills.inFlightLost),
      inFlightApplied: sum((j) => j.kills.inFlightApplied),
      inFlightPartly: sum((j) => j.kills.inFlightPartly),
      inInit: sum((j) => j.kills.inInit ?? 0),
      total: sum((j) => j.kills.total),
    },
    restarts: {
      count: restarts,
      meanMs: restarts === 0 ? 0 : sum((j) => j.restarts.meanMs * j.restarts.count) / restarts,
      maxMs: Math.max(0, ...shards.map((j) => j.restarts.maxMs)),
    },
    traces: [...ofKind('exhaustive'), ...ofKind('example'), ...ofKind('random')],
    failure: shards.find((j) => j.failure !== null)?.failure ?? null,
    unknown,
  };
}
