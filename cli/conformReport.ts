// What `streamjoin conform` prints: the summary for people, and the JSON
// report for tools.
import type { ConformReport } from '../conformance/conform.ts';
import { isCrashPoint } from '../conformance/generate/exhaustive.ts';
import { type WrittenCounterexample, shellQuote } from '../conformance/report/counterexampleFiles.ts';
import { describeDivergence } from '../conformance/report/explain.ts';
import { EXIT } from './exitCodes.ts';

export function conformSummary(report: ConformReport, written: readonly WrittenCounterexample[]): string {
  const lines: string[] = [];
  const impl = report.implementation ? `${report.implementation.name} ${report.implementation.version}` : 'unknown implementation';
  lines.push(`streamjoin conform: ${impl} (--sut ${shellQuote(report.sut)})`);
  lines.push(
    `levels checked: ${report.levels.join(', ') || 'none'} (supported: ${report.supported.join(', ') || 'none'}); seed ${report.seed}`,
  );
  const failedExamples = report.examples.filter((e) => e.verdict === 'fail').length;
  lines.push(`examples: ${report.examples.length - failedExamples} conform, ${failedExamples} diverge, ${report.skipped.length} skipped`);
  lines.push(...exhaustiveLines(report));
  for (const r of report.random) {
    lines.push(
      `random ${r.level}: ${r.runs} of ${r.requested} traces, ${r.verdict}${r.verdict === 'fail' ? ` (shrunk ${r.shrinks} times)` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
  for (const w of written) {
    const f = w.failure;
    lines.push('');
    const what =
      f.origin === 'random'
        ? `random trace, shrunk to ${f.trace.trace.steps.length} steps`
        : f.origin === 'exhaustive'
          ? `exhaustive scenario ${f.scenario ?? ''}, minimized to ${f.trace.trace.steps.length} steps`
          : `example ${f.path ?? ''}`;
    lines.push(`FAIL at level ${f.level}: ${what}`);
    lines.push(describeDivergence(f.divergence).replace(/^/gm, '  '));
    lines.push(`  counterexample: ${w.tracePath}`);
    lines.push(`  explanation:    ${w.explainPath}`);
    lines.push(`  markdown:       ${w.markdownPath}`);
    lines.push(`  viewer:         ${w.htmlPath} (streamjoin view ${w.htmlPath})`);
    if (w.itfPath) lines.push(`  ITF:            ${w.itfPath}`);
    lines.push(`  replay:         ${w.replay}`);
    if (w.search) lines.push(`  replay search:  ${w.search}`);
  }
  if (report.unknown) {
    lines.push('');
    lines.push(`UNKNOWN during ${report.unknown.during}: ${report.unknown.reason}`);
    if (report.unknown.stderrTail.length > 0) {
      lines.push('  last stderr lines of the system under test:');
      for (const l of report.unknown.stderrTail) lines.push(`  | ${l}`);
    }
  }
  lines.push('');
  lines.push(
    report.verdict === 'pass'
      ? 'verdict: conforms'
      : report.verdict === 'fail'
        ? `verdict: DIVERGES (${report.failures.length} counterexample${report.failures.length === 1 ? '' : 's'})`
        : 'verdict: UNKNOWN',
  );
  return `${lines.join('\n')}\n`;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The exhaustive part of a summary: a line per scenario, then the coverage. */
export function exhaustiveLines(report: ConformReport): string[] {
  const lines: string[] = [];
  for (const x of report.exhaustive) {
    const levels = Object.entries(x.levels)
      .map(([l, n]) => `${count(n)} at ${l}`)
      .join(', ');
    lines.push(
      `exhaustive ${x.scenario}: ${count(x.run)} of ${count(x.traces)} interleavings (${count(x.steps)} steps${levels ? `; ${levels}` : ''}), ${count(x.transitions)} transitions of ${count(x.states)} states, ${x.verdict}${x.skipped > 0 ? ` (${count(x.skipped)} skipped: level not checked)` : ''}${x.verdict === 'not run' ? '' : ` in ${(x.ms / 1000).toFixed(1)} s`}`,
    );
  }
  const c = report.coverage;
  if (c && report.exhaustive.length > 0) {
    const crash = c.required.filter(isCrashPoint);
    const missed = c.missing.filter(isCrashPoint);
    lines.push(
      c.missing.length === 0
        ? `coverage: every required crash point (${crash.length}: source, destination and coordinator after each handoff step and between the parts of commit and failover, owner, coordinator and idle worker in steady state) and every other step kind (${c.required.length - crash.length}) taken, ${c.taken.filter(isCrashPoint).length} crash points in all`
        : `coverage: NOT COMPLETE with these scenarios: missing ${c.missing.join(', ')}${missed.length > 0 ? ` (${missed.length} crash points)` : ''}`,
    );
  }
  return lines;
}

/** The JSON report of a conform run. */
export function conformJson(report: ConformReport, written: readonly WrittenCounterexample[]): unknown {
  return {
    verdict: report.verdict,
    sut: report.sut,
    implementation: report.implementation ?? null,
    supported: report.supported,
    levels: report.levels,
    seed: report.seed,
    examples: report.examples,
    skipped: report.skipped,
    exhaustive: report.exhaustive,
    coverage: report.coverage ?? null,
    random: report.random,
    failures: written.map((w) => ({
      level: w.failure.level,
      origin: w.failure.origin,
      path: w.failure.path ?? null,
      scenario: w.failure.scenario ?? null,
      seed: w.failure.seed ?? null,
      fcPath: w.failure.fcPath ?? null,
      steps: w.failure.trace.trace.steps.length,
      divergence: w.failure.divergence,
      counterexample: w.tracePath,
      explanation: w.explainPath,
      markdown: w.markdownPath,
      html: w.htmlPath,
      itf: w.itfPath ?? null,
      replay: w.replay,
    })),
    unknown: report.unknown ?? null,
  };
}

export function exitOfVerdict(verdict: ConformReport['verdict']): number {
  return verdict === 'pass' ? EXIT.pass : verdict === 'fail' ? EXIT.fail : EXIT.unknown;
}
