// What `streamjoin conform` prints: the summary for people, and the JSON
// report for tools.
import { isAbsolute, relative } from 'node:path';
import type { ImplementationInfo, Level } from '../spec/index.ts';
import { exampleStepText } from '../conformance/job/traceFilesPart.ts';
import type {
  ConformReport,
  ExampleResult,
  ExhaustiveResult,
  RandomResult,
  Unknown,
  ConformVerdict as Verdict,
} from '../conformance/job/conformTypes.ts';
import { isCrashPoint } from '../conformance/generate/exhaustive.ts';
import { needs } from '../conformance/job/exhaustivePart.ts';
import type { Divergence } from '../conformance/report/divergence.ts';
import type { Failure } from '../conformance/report/failure.ts';
import { type WrittenCounterexample, portablePath, shellCommand, shellQuote } from '../conformance/views/counterexampleFiles.ts';
import { describeDivergence } from '../conformance/views/explain.ts';
import { causeOf } from '../conformance/report/causes.ts';
import type { Shard } from '../conformance/job/shard.ts';
import { EXIT, verdictText } from './exitCodes.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';

/** The summary of a conform run; `scenarios`, how many --exhaustive would add, for a run without them. */
export function conformSummary(report: ConformReport, written: readonly WrittenCounterexample[], scenarios?: number): string {
  const lines: string[] = [];
  const impl = report.implementation ? `${report.implementation.name} ${report.implementation.version}` : 'unknown implementation';
  lines.push(`streamjoin conform: ${impl} (--sut ${shellQuote(report.sut)})`);
  lines.push(`${levelsLine(report)}; seed ${report.seed}`);
  const failedExamples = report.examples.filter((e) => e.verdict === 'fail').length;
  const unknownExamples = report.examples.filter((e) => e.verdict === 'unknown').length;
  lines.push(
    `examples: ${report.examples.length - failedExamples - unknownExamples} conform, ${failedExamples} diverge, ` +
      `${unknownExamples > 0 ? `${unknownExamples} unknown, ` : ''}${report.skipped.length} skipped`,
  );
  lines.push(...exhaustiveLines(report, scenarios));
  for (const r of report.random) {
    lines.push(
      `random ${r.level}: ${r.runs} of ${r.requested} traces (${count(r.probes)} probes), ${r.verdict}` +
        `${r.verdict === 'fail' ? ` (shrunk ${r.shrinks} times)` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
  // One block per cause: the counterexample to attach in full, the others of that cause a line each.
  const groups = report.causes.filter((g) => written[g.attach] !== undefined);
  for (const g of groups) {
    const w = written[g.attach] as WrittenCounterexample;
    lines.push('');
    lines.push(`FAIL at level ${w.failure.level}: ${failureOrigin(w.failure)}`);
    lines.push(describeDivergence(w.failure.divergence).replace(/^/gm, '  '));
    lines.push(`  counterexample: ${w.tracePath}`);
    lines.push(`  explanation:    ${w.explainPath}`);
    lines.push(`  markdown:       ${w.markdownPath}`);
    lines.push(`  viewer:         ${w.htmlPath} (npx streamjoin view ${w.htmlPath})`);
    if (w.itfPath) lines.push(`  ITF:            ${w.itfPath}`);
    lines.push(`  replay:         ${w.replay}`);
    if (w.search) lines.push(`  replay search:  ${w.search}`);
    const others = g.members.filter((i) => i !== g.attach && written[i] !== undefined);
    if (others.length > 0) {
      lines.push(`  the same cause (${g.cause}) in ${others.length} more:`);
      for (const i of others) {
        const o = written[i] as WrittenCounterexample;
        lines.push(`    ${o.markdownPath}: ${failureOrigin(o.failure)}`);
      }
    }
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
    `verdict: ${verdictText(report.verdict)}` +
      (report.verdict === 'fail' ? ` (${plural(report.failures.length, 'counterexample')}, ${plural(report.causes.length, 'cause')})` : ''),
  );
  // Last, what to attach to a bug report: one counterexample per cause.
  for (const g of groups) {
    const w = written[g.attach] as WrittenCounterexample;
    lines.push(
      `attach: ${w.markdownPath} (${plural(w.failure.trace.trace.steps.length, 'step')})${groups.length > 1 ? ` for ${g.cause}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Where a failure came from, in the words of the summary. */
function failureOrigin(f: Failure): string {
  const steps = f.trace.trace.steps.length;
  return f.origin === 'random'
    ? `random trace, shrunk to ${plural(steps, 'step')}`
    : f.origin === 'exhaustive'
      ? `exhaustive scenario ${f.scenario ?? ''}, minimized to ${plural(steps, 'step')}`
      : `example ${f.path !== undefined ? portablePath(f.path) : ''}: ${exampleStepText(f.exampleStep ?? f.divergence.step, f.divergence.step, steps)}`;
}

/**
 * Which levels were checked: all those asked for, unless the run stopped
 * (unknown); then only those whose every part ran (their random traces, the
 * last part of a level, came to a verdict).
 */
export function levelsLine(report: ConformReport): string {
  const supported = `supported: ${report.supported.join(', ') || 'none'}`;
  if (!report.unknown) return `levels checked: ${report.levels.join(', ') || 'none'} (${supported})`;
  if (report.levels.length === 0) {
    return `levels checked: none (${report.supported.length === 0 ? `the system could not be judged during ${report.unknown.during}` : supported})`;
  }
  const done = report.levels.filter((l) => report.random.some((r) => r.level === l && r.verdict !== 'unknown'));
  const rest = report.levels.filter((l) => !done.includes(l));
  return `levels checked: ${done.join(', ') || 'none'}${rest.length > 0 ? `; not checked: ${rest.join(', ')} (the run stopped, see UNKNOWN below)` : ''} (${supported})`;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The exhaustive part of a summary: a line per scenario, then the coverage (claimed over the traces that ran only). */
export function exhaustiveLines(report: ConformReport, scenarios?: number): string[] {
  const lines: string[] = [];
  // A pass of examples and random traces alone is a weaker pass: say so where the verdict is read.
  if (report.exhaustive.length === 0)
    lines.push(
      `exhaustive: not run (--exhaustive adds the ${scenarios === undefined ? '' : `${scenarios} `}bounded-exhaustive scenarios: some bugs need an interleaving random traces rarely reach)`,
    );
  for (const x of report.exhaustive) {
    const what = x.kind === 'operator' ? 'logs' : 'interleavings';
    if (x.verdict === 'skipped') {
      const need = needs(x.kind);
      lines.push(
        x.traces > 0
          ? `exhaustive ${x.scenario}: skipped: none of its ${count(x.traces)} ${what} runs at the levels checked (it needs level ${need})`
          : `exhaustive ${x.scenario}: skipped: it needs level ${need}, which is not checked`,
      );
      continue;
    }
    const levels = Object.entries(x.levels)
      .map(([l, n]) => `${count(n)} at ${l}`)
      .join(', ');
    lines.push(
      `exhaustive ${x.scenario}: ${count(x.run)} of ${count(x.traces)} ${what} ` +
        `(${count(x.steps)} steps, ${count(x.probesSent)} probes sent${levels ? `; ${levels}` : ''}), ` +
        `${count(x.transitions)} transitions of ${count(x.states)} states, ${x.verdict}` +
        `${x.skipped > 0 ? ` (${count(x.skipped)} skipped: level not checked)` : ''}${x.verdict === 'not run' ? '' : ` in ${(x.ms / 1000).toFixed(1)} s`}`,
    );
  }
  const c = report.coverage;
  if (c && report.exhaustive.length > 0) {
    const ranAny = report.exhaustive.some((x) => x.run > 0);
    const crash = c.required.filter(isCrashPoint);
    const missed = c.missing.filter(isCrashPoint);
    if (!ranAny) lines.push('coverage: none claimed: no exhaustive trace ran at the levels checked');
    else if (c.missing.length === 0) {
      const parts: string[] = [];
      if (crash.length > 0)
        parts.push(
          `every required crash point (${crash.length}: source, destination and coordinator after each handoff step and between ` +
            'the parts of commit and failover, owner, coordinator and idle worker in steady state)',
        );
      parts.push(`every ${crash.length > 0 ? 'other ' : ''}required step kind and outcome (${c.required.length - crash.length})`);
      lines.push(
        `coverage: ${parts.join(' and ')} taken by the traces that ran` +
          `${crash.length > 0 ? `, ${c.taken.filter(isCrashPoint).length} crash points in all` : ''}`,
      );
    } else {
      lines.push(
        `coverage: NOT COMPLETE with these scenarios at these levels: missing ${c.missing.join(', ')}` +
          `${missed.length > 0 ? ` (${missed.length} crash points)` : ''}`,
      );
    }
  }
  return lines;
}

/** A path as the user sees it: relative to the working directory when inside it. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const r = relative(cwd, path);
  return r === '' || isAbsolute(r) ? path : r;
}

export const CONFORM_REPORT_FORMAT = 'streamjoin/conform-report@1';

/** One counterexample in a JSON report. */
export interface FailureJson {
  readonly level: Level;
  readonly origin: Failure['origin'];
  readonly path: string | null;
  readonly scenario: string | null;
  readonly seed: number | null;
  /** For an example: its own step where it diverged (`divergence.step` is the minimized counterexample's). */
  readonly exampleStep: number | null;
  readonly fcPath: string | null;
  readonly steps: number;
  readonly divergence: Divergence;
  readonly counterexample: string;
  readonly explanation: string;
  /** The same counterexample in Markdown (a Mermaid diagram), as a self-contained HTML viewer, and with --itf in the Informal Trace Format. */
  readonly markdown: string;
  readonly html: string;
  readonly itf: string | null;
  /** The replay command as words (run it with execFile or spawn), and as printed. */
  readonly replay: readonly string[];
  readonly replayCommand: string;
  readonly search: readonly string[] | null;
  /** Its cause (report/causes.ts): failures with the same cause are taken for one bug. */
  readonly cause: string;
  /** The one of its cause to attach to a bug report. */
  readonly attach: boolean;
}

/** `streamjoin conform --json` (spec/schemas/reports/conform-report.schema.json). */
export interface ConformJson extends ReportHeader {
  readonly verdict: Verdict;
  readonly exitCode: number;
  readonly sut: string;
  readonly implementation: ImplementationInfo | null;
  readonly supported: readonly Level[];
  readonly levels: readonly Level[];
  readonly seed: number;
  readonly shard: Shard | null;
  readonly ms: number;
  readonly examples: readonly ExampleResult[];
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
  readonly exhaustive: readonly ExhaustiveResult[];
  readonly coverage: ConformReport['coverage'] | null;
  readonly random: readonly RandomResult[];
  readonly failures: readonly FailureJson[];
  readonly unknown: Unknown | null;
}

export function failureJson(w: WrittenCounterexample, attach: boolean): FailureJson {
  return {
    level: w.failure.level,
    origin: w.failure.origin,
    path: w.failure.path !== undefined ? displayPath(w.failure.path) : null,
    scenario: w.failure.scenario ?? null,
    seed: w.failure.seed ?? null,
    exampleStep: w.failure.exampleStep ?? null,
    fcPath: w.failure.fcPath ?? null,
    steps: w.failure.trace.trace.steps.length,
    divergence: w.failure.divergence,
    counterexample: w.tracePath,
    explanation: w.explainPath,
    markdown: w.markdownPath,
    html: w.htmlPath,
    itf: w.itfPath ?? null,
    replay: w.replayArgv,
    replayCommand: w.replay,
    search: w.searchArgv ?? null,
    cause: causeOf(w.failure.level, w.failure.divergence),
    attach,
  };
}

/** The JSON report of a conform run. */
export function conformJson(report: ConformReport, written: readonly WrittenCounterexample[]): ConformJson {
  return {
    ...reportHeader(CONFORM_REPORT_FORMAT),
    verdict: report.verdict,
    exitCode: exitOfVerdict(report.verdict),
    sut: report.sut,
    implementation: report.implementation ?? null,
    supported: report.supported,
    levels: report.levels,
    seed: report.seed,
    shard: report.shard ?? null,
    ms: Math.round(report.ms),
    examples: report.examples.map((e) => ({ ...e, path: displayPath(e.path) })),
    skipped: report.skipped.map((s) => ({ ...s, path: displayPath(s.path) })),
    exhaustive: report.exhaustive.map((x) => ({ ...x, ms: Math.round(x.ms) })),
    coverage: report.coverage ?? null,
    random: report.random,
    failures: written.map((w, i) =>
      failureJson(
        w,
        report.causes.some((g) => g.attach === i),
      ),
    ),
    unknown: report.unknown ?? null,
  };
}

/** The text of a failed case: the divergence, where the counterexample is, and the command that replays it. */
export function failureDetails(f: FailureJson): string {
  return [
    describeDivergence(f.divergence),
    `counterexample: ${f.counterexample}`,
    `explanation:    ${f.explanation}`,
    `replay:         ${f.replayCommand}`,
    ...(f.search ? [`replay search:  ${shellCommand(f.search)}`] : []),
  ].join('\n');
}

function failureCase(name: string, classname: string, f: FailureJson, timeMs?: number): TestCase {
  return {
    name,
    classname,
    status: 'fail',
    message: `diverges at step ${f.divergence.step + 1} (level ${f.level}): ${f.divergence.summary}`,
    details: failureDetails(f),
    file: f.counterexample,
    ...(timeMs !== undefined ? { timeMs } : {}),
  };
}

/** A conform report as CI test cases: a case per example, per exhaustive scenario, per random level. */
export function conformCases(j: ConformJson): CiResult {
  const examples: TestCase[] = [];
  for (const e of j.examples) {
    const f = j.failures.find((x) => x.origin === 'example' && x.path === e.path && x.level === e.level);
    const name = `${e.name} (${e.path})`;
    const classname = `conform.examples.${e.level}`;
    examples.push(f ? failureCase(name, classname, f) : { name, classname, status: e.verdict });
  }
  for (const s of j.skipped) examples.push({ name: s.path, classname: 'conform.examples', status: 'skipped', message: s.why });
  const exhaustive: TestCase[] = j.exhaustive.map((x) => {
    const classname = 'conform.exhaustive';
    const name = `${x.scenario}: ${x.run} of ${x.traces} ${x.kind === 'operator' ? 'logs' : 'interleavings'}, ${x.probesSent} probes`;
    const f = j.failures.find((y) => y.origin === 'exhaustive' && y.scenario === x.scenario);
    if (f) return failureCase(name, classname, f, x.ms);
    if (x.verdict === 'not run') return { name, classname, status: 'skipped', message: 'not run: an earlier part failed' };
    // Never a vacuous pass: no trace at the levels checked.
    if (x.verdict === 'skipped' || (x.run === 0 && x.skipped > 0))
      return {
        name,
        classname,
        status: 'skipped',
        message: `no trace at the levels checked (it needs level ${x.kind === 'operator' ? 'operator' : 'cluster or faults'})`,
        timeMs: x.ms,
      };
    return { name, classname, status: x.verdict === 'fail' ? 'fail' : x.verdict === 'unknown' ? 'unknown' : 'pass', timeMs: x.ms };
  });
  const random: TestCase[] = j.random.map((r) => {
    const classname = `conform.random.${r.level}`;
    const name = `${r.level}: ${r.runs} of ${r.requested} random traces (seed ${r.seed})`;
    const f = j.failures.find((y) => y.origin === 'random' && y.level === r.level);
    if (f) return failureCase(name, classname, f);
    if (r.verdict === 'unknown') return { name, classname, status: 'unknown', message: r.note ?? 'not judged' };
    return { name, classname, status: r.verdict === 'fail' ? 'fail' : 'pass' };
  });
  const system: TestCase[] = j.unknown
    ? [
        {
          name: `the system under test (${j.unknown.during})`,
          classname: 'conform.system',
          status: 'unknown',
          message: j.unknown.reason,
          details: [
            `during ${j.unknown.during}`,
            ...(j.unknown.stderrTail.length > 0
              ? ['last stderr lines of the system under test:', ...j.unknown.stderrTail.map((l) => `| ${l}`)]
              : []),
          ].join('\n'),
        },
      ]
    : [];
  const shard = j.shard ? ` shard ${j.shard.index}/${j.shard.count}` : '';
  const properties = {
    sut: j.sut,
    seed: String(j.seed),
    ...(j.implementation ? { implementation: `${j.implementation.name} ${j.implementation.version}` } : {}),
    ...(j.shard ? { shard: `${j.shard.index}/${j.shard.count}` } : {}),
    streamjoin: j.streamjoin,
    spec: j.spec,
  };
  const suites = [
    { name: `conform${shard}: examples`, cases: examples, properties },
    ...(exhaustive.length > 0 ? [{ name: `conform${shard}: exhaustive`, cases: exhaustive, properties }] : []),
    ...(random.length > 0 ? [{ name: `conform${shard}: random`, cases: random, properties }] : []),
    ...(system.length > 0 ? [{ name: `conform${shard}: system under test`, cases: system, properties }] : []),
  ];
  return { title: `streamjoin conform --sut ${shellQuote(j.sut)}${shard}`, verdict: j.verdict, suites };
}

export function exitOfVerdict(verdict: ConformReport['verdict']): number {
  return verdict === 'pass' ? EXIT.pass : verdict === 'fail' ? EXIT.fail : EXIT.unknown;
}
