// `streamjoin run [TRACE...]`: validate operator traces and run the reference
// model over them, comparing every step with the trace's expectations.
import { createModelOperator } from '../conformance/adapters/modelOperator.ts';
import { runTraceFile, type TraceFileResult } from '../conformance/lockstep/traceFiles.ts';
import { operatorExamplePaths } from '../conformance/job/traceFilesPart.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError } from './exitCodes.ts';
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

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: every
expectation met; 1: a step departs from its expectation; 254 also for a trace
that is unreadable, not JSON, off its schema or out of contract (J9).`;

function summaryLine(r: TraceFileResult): string {
  const outcomes = Object.entries(r.outcomes)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const last = r.retained;
  const retained = last ? `retained ${last.live} live/${last.tombstones} tomb/${last.matches} match` : 'no steps';
  const mark = r.divergence ? 'FAIL' : r.checkedSteps === r.steps ? 'ok  ' : 'ran ';
  return `${mark} ${r.name.padEnd(36)} ${String(r.steps).padStart(3)} steps  ${outcomes}; ${r.changes} changes; ${retained}`;
}

function divergenceText(r: TraceFileResult): string {
  const d = r.divergence;
  if (!d) return '';
  return [
    `     at step ${d.step}: ${JSON.stringify(d.record)}`,
    `     ${d.field} expected ${JSON.stringify(d.expected)}`,
    `     ${d.field} actual   ${JSON.stringify(d.actual)}`,
  ].join('\n');
}

export const RUN_REPORT_FORMAT = 'streamjoin/run-report@1';

/** `streamjoin run --json` (spec/schemas/reports/run-report.schema.json). */
export interface RunJson extends ReportHeader {
  readonly verdict: 'pass' | 'fail';
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
          return d
            ? {
                name: `${t.name} (${t.path})`,
                classname: 'run.traces',
                status: 'fail' as const,
                message: `step ${d.step}: ${d.field} departs from the trace's expectation`,
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

/** Runs traces, each read step by step as it runs; returns the exit code. Bad input throws before anything is printed. */
export function runTraces(
  paths: readonly string[],
  out: Output,
  opts: { json: boolean; writeExpected?: string; reporters?: readonly Reporter[] },
): number {
  if (opts.writeExpected !== undefined && paths.length !== 1) throw usageError('--write-expected needs exactly one TRACE');
  const results = paths.map((path) =>
    runTraceFile(path, createModelOperator, opts.writeExpected === undefined ? {} : { writeExpected: opts.writeExpected }),
  );
  const failed = results.filter((r) => r.divergence);
  const json: RunJson = {
    ...reportHeader(RUN_REPORT_FORMAT),
    verdict: failed.length > 0 ? 'fail' : 'pass',
    exitCode: failed.length > 0 ? EXIT.fail : EXIT.pass,
    traces: results.map((r) => ({
      path: displayPath(r.path),
      name: r.name,
      steps: r.steps,
      checkedSteps: r.checkedSteps,
      outcomes: r.outcomes,
      changes: r.changes,
      divergence: r.divergence ?? null,
    })),
    passed: results.length - failed.length,
    failed: failed.length,
  };
  const reporters = opts.reporters ?? [];
  if (opts.json) {
    out.stdout(`${JSON.stringify(json)}\n`);
  } else if (!reporterOnStdout(reporters)) {
    for (const r of results) out.stdout(`${summaryLine(r)}\n${r.divergence ? `${divergenceText(r)}\n` : ''}`);
    out.stdout(`${results.length - failed.length} of ${results.length} traces met every expectation\n`);
  }
  emitReports([runCases(json)], reporters, out, opts.json);
  return json.exitCode;
}

export function runCommand(args: readonly string[], out: Output): number {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'write-expected': { type: 'string' }, ...REPORTER_OPTION },
  });
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
