// `streamjoin run [TRACE...]`: validate operator traces and run the reference
// model over them, comparing every step with the trace's expectations.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createModelOperator } from '../conformance/adapters/modelOperator.ts';
import { runTraceFile, type TraceFileResult } from '../conformance/lockstep/traceFiles.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError } from './exitCodes.ts';

export const runHelp = `streamjoin run [TRACE...] [--json] [--write-expected FILE]

Validates operator traces (spec/schemas/operator-trace.schema.json) and the
input contract (J9), runs the reference model over each, and compares every
step with the trace's expectations. With no TRACE, runs spec/examples/.

  --json                 print one JSON report on stdout instead of the summary
  --write-expected FILE  (one TRACE) write it back with the model's outcome,
                         changes and retained counts as its expectations

Exit codes: 0 every expectation met; 1 a step departs from its expectation;
254 bad input (unreadable, not JSON, not the schema, out of contract) or
usage; 255 internal error.`;

export const examplesDir = join(import.meta.dirname, '..', 'spec', 'examples');

export function exampleTracePaths(): string[] {
  return readdirSync(examplesDir)
    .filter((f) => f.endsWith('.trace.json'))
    .sort()
    .map((f) => join(examplesDir, f));
}

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

/** Runs traces, each read step by step as it runs; returns the exit code. Bad input throws before anything is printed. */
export function runTraces(paths: readonly string[], out: Output, opts: { json: boolean; writeExpected?: string }): number {
  if (opts.writeExpected !== undefined && paths.length !== 1) throw usageError('--write-expected needs exactly one TRACE');
  const results = paths.map((path) =>
    runTraceFile(path, createModelOperator, opts.writeExpected === undefined ? {} : { writeExpected: opts.writeExpected }),
  );
  const failed = results.filter((r) => r.divergence);
  if (opts.json) {
    out.stdout(
      `${JSON.stringify({
        traces: results.map((r) => ({
          path: r.path,
          name: r.name,
          steps: r.steps,
          checkedSteps: r.checkedSteps,
          outcomes: r.outcomes,
          changes: r.changes,
          divergence: r.divergence ?? null,
        })),
        passed: results.length - failed.length,
        failed: failed.length,
      })}\n`,
    );
  } else {
    for (const r of results) out.stdout(`${summaryLine(r)}\n${r.divergence ? `${divergenceText(r)}\n` : ''}`);
    out.stdout(`${results.length - failed.length} of ${results.length} traces met every expectation\n`);
  }
  return failed.length > 0 ? EXIT.fail : EXIT.pass;
}

export function runCommand(args: readonly string[], out: Output): number {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'write-expected': { type: 'string' } },
  });
  const paths = positionals.length > 0 ? positionals : exampleTracePaths();
  if (values['write-expected'] !== undefined && paths.length !== 1) throw usageError('--write-expected needs exactly one TRACE');
  return runTraces(paths, out, {
    json: values.json,
    ...(values['write-expected'] !== undefined ? { writeExpected: values['write-expected'] } : {}),
  });
}
