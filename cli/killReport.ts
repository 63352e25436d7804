// `conform --kill --json` (spec/schemas/reports/conform-kill-report.schema.json)
// and its CI test cases (JUnit, TAP, GitHub annotations): one case per trace
// of the kill-mode job (kill.ts, conformance/kill/killJob.ts).
import { explainDivergence, type Divergence } from '../conformance/report/divergence.ts';
import type { KillJobReport } from '../conformance/kill/killJob.ts';
import { totalKills } from '../conformance/kill/killRun.ts';
import { killNote } from '../conformance/kill/killTraces.ts';
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
  const step = f?.trace.steps[f.divergence.step];
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
          killNote: f.killed && step?.kill ? killNote(step.kill) : null,
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
      ? `diverges at step ${f.divergence.step + 1} of ${f.steps} (minimized)${f.killNote ? `, ${f.killNote}` : ''}: ${f.divergence.summary}`
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
