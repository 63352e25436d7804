// `--reporter junit=FILE`, `--reporter tap[=FILE]`, and on GitHub Actions
// (GITHUB_ACTIONS=true) error annotations and a step summary: the CI side of
// every command that judges something.
import { appendFileSync } from 'node:fs';
import { outFileProblem, writeFileAtomic } from '../../conformance/streams/atomicFiles.ts';
import { usageError } from '../exitCodes.ts';
import { envOf, type Output } from '../output.ts';
import { githubAnnotations, githubSummary } from './github.ts';
import { junitXml } from './junit.ts';
import { tapText } from './tap.ts';
import type { CiResult } from './testCases.ts';

export interface Reporter {
  readonly kind: 'junit' | 'tap';
  /** The file to write; none: stdout (tap only). */
  readonly file?: string;
}

/** The parseArgs option every judging command takes. */
export const REPORTER_OPTION = { reporter: { type: 'string', multiple: true } } as const;

export const REPORTER_HELP = `  --reporter junit=FILE  also write a JUnit XML report to FILE (a test case per
                       example, scenario, random level, property or mutant)
  --reporter tap[=FILE]  also write TAP 13 to FILE, or instead of the summary
                       on stdout; --reporter is repeatable
  On GitHub Actions (GITHUB_ACTIONS=true) failures are also annotations, and a
  Markdown summary is appended to $GITHUB_STEP_SUMMARY.`;

/** Parses the --reporter values; checks before the run that each file can be written. */
export function parseReporters(values: readonly string[] | undefined): Reporter[] {
  const reporters: Reporter[] = [];
  for (const v of values ?? []) {
    const m = /^(junit|tap)(?:=(.+))?$/.exec(v);
    if (!m) throw usageError(`--reporter must be junit=FILE, tap or tap=FILE, got "${v}"`);
    const kind = m[1] as Reporter['kind'];
    const file = m[2];
    if (kind === 'junit' && file === undefined) throw usageError('--reporter junit needs a file: --reporter junit=FILE');
    if (file !== undefined) {
      const problem = outFileProblem(file);
      if (problem) throw usageError(`--reporter ${v}: ${problem}`);
    }
    reporters.push(file === undefined ? { kind } : { kind, file });
  }
  if (reporters.filter((r) => r.file === undefined).length > 1) throw usageError('only one --reporter can write to stdout');
  return reporters;
}

/** Whether a reporter takes stdout (then the command prints no summary there). */
export function reporterOnStdout(reporters: readonly Reporter[]): boolean {
  return reporters.some((r) => r.file === undefined);
}

/** Refuses --json together with a reporter on stdout. */
export function checkStdoutUse(json: boolean, reporters: readonly Reporter[]): void {
  if (json && reporterOnStdout(reporters))
    throw usageError('--json and --reporter tap (on stdout) both want stdout: give tap a file, --reporter tap=FILE');
}

/**
 * Writes every reporter's output and, on GitHub Actions, the annotations
 * (on stdout, or on stderr when stdout carries JSON or TAP: the runner reads
 * both) and the step summary.
 */
export function emitReports(results: readonly CiResult[], reporters: readonly Reporter[], out: Output, stdoutTaken: boolean): void {
  for (const r of reporters) {
    const text = r.kind === 'junit' ? junitXml(results) : tapText(results);
    if (r.file === undefined) out.stdout(text);
    else writeFileAtomic(r.file, text);
  }
  const env = envOf(out);
  if (env['GITHUB_ACTIONS'] !== 'true') return;
  const annotations = githubAnnotations(results);
  if (annotations !== '') (stdoutTaken || reporterOnStdout(reporters) ? out.stderr : out.stdout)(annotations);
  const summaryFile = env['GITHUB_STEP_SUMMARY'];
  if (summaryFile !== undefined && summaryFile !== '') appendFileSync(summaryFile, githubSummary(results));
}
