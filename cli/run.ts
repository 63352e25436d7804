// `streamjoin run [TRACE...]`: validate operator traces and run the reference
// model over them, comparing every step with the trace's expectations.
import { readInputsAhead } from '../spec/index.ts';
import { createModelOperator } from '../conformance/sut/modelOperator.ts';
import { runTraceFile, type TraceFileResult } from '../conformance/lockstep/traceFiles.ts';
import { operatorExamplePaths } from '../conformance/job/traceFilesPart.ts';
import type { Output } from './output.ts';
import { EXIT, usageError } from './exitCodes.ts';
import { parseCommandArgs } from './options.ts';
import { displayPath } from './conformReport.ts';
import {
  REPORTER_HELP,
  REPORTER_OPTION,
  checkStdoutUse,
  emitReports,
  parseReporters,
  reporterOnStdout,
  type Reporter,
} from './reporters/emit.ts';
import type { CiResult } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';

export const runHelp = `streamjoin run [TRACE...] [--json] [--write-expected FILE] [--reporter junit=FILE] [--reporter tap[=FILE]]

Validates operator traces (spec/schemas/operator-trace.schema.json) and the
input contract (J9), runs the reference model over each, and compares every
step with the trace's expectations. With no TRACE, runs spec/examples/.

  --json                 print one JSON report on stdout instead of the summary
                         (streamjoin/run-report@1, spec/schemas/reports/)
  --write-expected FILE  (one TRACE) write it back with the model's outcome,
                         changes and retained counts as its expectations
${REPORTER_HELP}

SIGINT or SIGTERM stops it: the traces run so far are reported, and the steps
run of the one it was in (verdict unknown, exit 2, unless a step already
departed: exit 1); --write-expected writes nothing then.

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: every
expectation met; 1: a step departs from its expectation; 2: interrupted; 254
also for a trace that is unreadable, not JSON, off its schema or out of
contract (J9).`;

function summaryLine(r: TraceFileResult): string {
  if (r.interrupted !== undefined) return `STOP ${r.name.padEnd(36)} interrupted (${r.interrupted}) after ${r.steps} steps`;
  const outcomes = Object.entries(r.outcomes)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const last = r.retained;
  const retained = last ? `retained ${last.live} live/${last.tombstones} tomb/${last.matches} match` : 'no steps';
  const mark = r.divergence ? 'FAIL' : r.checkedSteps === r.steps ? 'pass' : 'ran ';
  return `${mark} ${r.name.padEnd(36)} ${String(r.steps).padStart(3)} steps  ${outcomes}; ${r.changes} changes; ${retained}`;
}

function divergenceText(r: TraceFileResult): string {
  const d = r.divergence;
  if (!d) return '';
  return [
    `     at step ${d.step + 1}: ${JSON.stringify(d.record)}`,
    `     ${d.field} expected ${JSON.stringify(d.expected)}`,
    `     ${d.field} actual   ${JSON.stringify(d.actual)}`,
  ].join('\n');
}

export const RUN_REPORT_FORMAT = 'streamjoin/run-report@1';

/** `streamjoin run --json` (spec/schemas/reports/run-report.schema.json). */
export interface RunJson extends ReportHeader {
  readonly verdict: 'pass' | 'fail' | 'unknown';
  readonly exitCode: number;
  readonly traces: readonly {
    readonly path: string;
    readonly name: string;
    readonly steps: number;
    readonly checkedSteps: number;
    readonly outcomes: Readonly<Record<string, number>>;
    readonly changes: number;
    readonly divergence: TraceFileResult['divergence'] | null;
  }[];
  readonly passed: number;
  readonly failed: number;
  /** Why the run stopped before its end, and where; null for a run that ended. */
  readonly interrupted: { readonly reason: string; readonly path: string; readonly steps: number } | null;
}

/** A run report as CI test cases: one per trace. */
export function runCases(j: RunJson): CiResult {
  return {
    title: 'streamjoin run',
    verdict: j.verdict,
    suites: [
      {
        name: 'run: traces through the reference model',
        properties: { streamjoin: j.streamjoin, spec: j.spec },
        cases: j.traces.map((t) => {
          const d = t.divergence;
          const stopped = j.interrupted !== null && j.interrupted.path === t.path && !d ? j.interrupted : undefined;
          if (stopped) {
            return {
              name: `${t.name} (${t.path})`,
              classname: 'run.traces',
              status: 'unknown' as const,
              message: `interrupted (${stopped.reason}) after ${stopped.steps} steps`,
              file: t.path,
            };
          }
          return d
            ? {
                name: `${t.name} (${t.path})`,
                classname: 'run.traces',
                status: 'fail' as const,
                message: `step ${d.step + 1}: ${d.field} departs from the trace's expectation`,
                details: [
                  `record: ${JSON.stringify(d.record)}`,
                  `expected ${JSON.stringify(d.expected)}`,
                  `actual   ${JSON.stringify(d.actual)}`,
                ].join('\n'),
                file: t.path,
              }
            : { name: `${t.name} (${t.path})`, classname: 'run.traces', status: 'pass' as const };
        }),
      },
    ],
  };
}

/**
 * Runs traces, each read step by step as it runs; returns the exit code.
 * Bad input throws before anything is printed. Interrupted (`out.signal`),
 * it reports the traces run and the steps run of the one it was in: verdict
 * unknown (exit 2) unless a departure was found (that stands, exit 1).
 */
export async function runTraces(
  paths: readonly string[],
  out: Output,
  opts: { json: boolean; writeExpected?: string; reporters?: readonly Reporter[] },
): Promise<number> {
  if (opts.writeExpected !== undefined && paths.length !== 1) throw usageError('--write-expected needs exactly one TRACE');
  await readInputsAhead(paths, { signal: out.signal });
  const results: TraceFileResult[] = [];
  for (const path of paths) {
    const r = await runTraceFile(path, createModelOperator, {
      signal: out.signal,
      ...(opts.writeExpected === undefined ? {} : { writeExpected: opts.writeExpected }),
    });
    results.push(r);
    if (r.interrupted !== undefined) break;
  }
  const stopped = results.find((r) => r.interrupted !== undefined);
  const failed = results.filter((r) => r.divergence);
  const json: RunJson = {
    ...reportHeader(RUN_REPORT_FORMAT),
    verdict: failed.length > 0 ? 'fail' : stopped ? 'unknown' : 'pass',
    exitCode: failed.length > 0 ? EXIT.fail : stopped ? EXIT.unknown : EXIT.pass,
    traces: results.map((r) => ({
      path: displayPath(r.path),
      name: r.name,
      steps: r.steps,
      checkedSteps: r.checkedSteps,
      outcomes: r.outcomes,
      changes: r.changes,
      divergence: r.divergence ?? null,
    })),
    passed: results.filter((r) => !r.divergence && r.interrupted === undefined).length,
    failed: failed.length,
    interrupted: stopped ? { reason: stopped.interrupted as string, path: displayPath(stopped.path), steps: stopped.steps } : null,
  };
  const reporters = opts.reporters ?? [];
  if (opts.json) {
    out.stdout(`${JSON.stringify(json)}\n`);
  } else if (!reporterOnStdout(reporters)) {
    for (const r of results) out.stdout(`${summaryLine(r)}\n${r.divergence ? `${divergenceText(r)}\n` : ''}`);
    out.stdout(`${json.passed} of ${paths.length} traces met every expectation\n`);
    if (json.interrupted) {
      const left = paths.length - results.length;
      out.stdout(
        `UNKNOWN: interrupted (${json.interrupted.reason}) after ${json.interrupted.steps} steps of ${json.interrupted.path}` +
          `${left > 0 ? `; ${left} more trace(s) not run` : ''}; nothing was written\n`,
      );
    }
  }
  emitReports([runCases(json)], reporters, out, opts.json);
  return json.exitCode;
}

export function runCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, 'write-expected': { type: 'string' }, ...REPORTER_OPTION },
    },
    'run',
  );
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  const paths = positionals.length > 0 ? positionals : operatorExamplePaths();
  if (values['write-expected'] !== undefined && paths.length !== 1) throw usageError('--write-expected needs exactly one TRACE');
  return runTraces(paths, out, {
    json: values.json,
    reporters,
    ...(values['write-expected'] !== undefined ? { writeExpected: values['write-expected'] } : {}),
  });
}
