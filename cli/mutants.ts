// `streamjoin mutants`: runs the harness against every mutant of the
// catalogue (conformance/mutants/) after the unmodified implementation as
// the control, prints a row per mutant, writes each kill's counterexample
// (replayable against `streamjoin serve --mutant NAME`), and maps the verdict
// to an exit code.
import { join } from 'node:path';
import { abortReason } from '../spec/index.ts';
import { MUTANTS, type Mutant } from '../conformance/mutants/catalogue.ts';
import { mutantBuildProblem } from '../conformance/adapters/mutantSut.ts';
import { shardItems, type Shard } from '../conformance/job/shard.ts';
import { runMutantByPart, runMutants, type MutantByPart, type MutantResult, type MutantsReport } from '../conformance/job/mutantsJob.ts';
import { EXHAUSTIVE_SCENARIOS } from '../conformance/generate/exhaustive.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, nonNegativeIntegerFlag, usageError, verdictText } from './exitCodes.ts';
import { checkedOutDir, parseCommandArgs } from './options.ts';
import { LINK_BASE_HELP, LINK_BASE_OPTION, buildCovers, linkBaseFlag } from './harnessArgs.ts';
import { SHARD_HELP, shardFlag, shardSeed } from './shardArgs.ts';
import { specExamplePaths } from '../conformance/job/traceFilesPart.ts';
import { type Argv, shellCommand, writeCounterexample, type WrittenCounterexample } from '../conformance/views/counterexampleFiles.ts';
import { LiveProgress } from './progress.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, emitReports, parseReporters, reporterOnStdout } from './reporters/emit.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';
import { writeFileAtomic } from '../conformance/streams/atomicFiles.ts';
import { prettyJson } from '../conformance/sut/jsonDiff.ts';

export const mutantsHelp = `streamjoin mutants [--seed N] [--runs N] [--mutant NAME,...] [--out DIR] [--json] [--each-part]
                   [--regressions DIR] [--shard K/N] [--reporter junit=FILE] [--reporter tap[=FILE]] [--list]

Runs the conformance harness against each mutant of the catalogue: a
deliberately broken variant of the implementation per known bug class (a
small source patch applied to a copy of impl/). First the unmodified
implementation runs the whole harness as the control; then each mutant runs
the spec's examples, the bounded-exhaustive scenarios and random traces, stopping at
its first divergence (a kill), which is minimized or shrunk. Prints a row per
mutant: killed or not, what found it, the length of the counterexample, the
time to find it, the rules it broke. Each kill's counterexample is written
under --out and replays with the printed command against
\`streamjoin serve --mutant NAME\`.

  --seed N          seed of the random traces (default: random; always printed)
  --runs N          random traces per level (default 100)
  --mutant NAMES    only these mutants (comma-separated)
  --out DIR         where counterexamples are written (default out/)
  --json            print one JSON report on stdout instead of the table
  --itf             also write each counterexample as DIR/NAME.itf.json (Informal
                    Trace Format); each kill also leaves NAME.explain.txt, NAME.md
                    (Mermaid) and NAME.html (the viewer) beside its trace
${LINK_BASE_HELP.replace(/^ {2}--link-base URL\|file /, '  --link-base URL|file\n                       ')}
  --each-part       also run each part alone (examples, exhaustive, random) against
                    each mutant, and say which parts kill it
  --regressions DIR also write each kill's counterexample as a regression trace,
                    DIR/NAME.trace.json, NAME the catalogue's name of what it
                    exercises (conform runs those in
                    conformance/mutants/regressions/ with the examples)
  --list            list the catalogue and exit (with --json:
                    streamjoin/mutants-catalogue@1)
${SHARD_HELP.replace(/^ {2}--shard K\/N {10}/, '  --shard K/N       ')}
                    (mutants: the catalogue is split; every shard runs the
                    control in full)
${REPORTER_HELP}

Mutants patch the TypeScript sources of impl/: they run in a checkout of
streamjoin (npm ci there), not from the installed package, which refuses
with exit 254.

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: every
mutant killed; 1: a mutant survived; 2 unknown: a mutant could not be built
or judged, or the unmodified implementation does not pass; 254 also from the
installed package.`;

/** The command that serves a mutant over the protocol, run as streamjoin was (`node bin/streamjoin.js`). */
export function mutantServeCommand(invocation: Argv, name: string): string {
  return shellCommand([...invocation, 'serve', '--mutant', name]);
}

function mutantsNamed(list: string): Mutant[] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !MUTANTS.some((m) => m.name === n));
  if (names.length === 0 || unknown.length > 0) {
    throw usageError(
      `--mutant: unknown mutant ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}; see streamjoin mutants --list`,
    );
  }
  return MUTANTS.filter((m) => names.includes(m.name));
}

const seconds = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);

function foundBy(r: MutantResult): string {
  const f = r.failure;
  if (!f) return '-';
  if (f.origin === 'exhaustive') return `exhaustive ${f.scenario ?? ''}`;
  if (f.origin === 'example')
    return `example ${
      (f.path ?? '')
        .split('/')
        .pop()
        ?.replace(/\.trace\.json$/, '') ?? ''
    }`;
  return `random ${f.level}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function summary(
  report: MutantsReport,
  written: ReadonlyMap<string, WrittenCounterexample>,
  seed: number,
  byPart: readonly MutantByPart[],
): string {
  const lines: string[] = [];
  const b = report.baseline;
  lines.push(`streamjoin mutants: seed ${seed}; ${report.results.length} mutants of the implementation`);
  lines.push(
    `control (the unmodified implementation): ${verdictText(b.verdict)}: ` +
      `${b.examples.length} examples, ${b.exhaustive.reduce((n, x) => n + x.run, 0).toLocaleString('en-US')} ` +
      `exhaustive interleavings, ${b.random.reduce((n, r) => n + r.runs, 0)} random traces in ${seconds(report.baselineMs)}`,
  );
  if (b.verdict !== 'pass') {
    lines.push('the mutants were not run: a kill means something only if the implementation as it is passes the same harness');
    for (const f of b.failures)
      lines.push(`  ${f.origin} ${f.scenario ?? f.path ?? f.level}: step ${f.divergence.step + 1}: ${f.divergence.summary}`);
    if (b.unknown) lines.push(`  unknown: ${b.unknown.reason}`);
  }
  if (report.results.length > 0) {
    lines.push('');
    const rows = report.results.map((r) => [
      r.mutant.name,
      r.mutant.rule,
      r.verdict === 'killed' ? 'killed' : r.verdict.toUpperCase(),
      foundBy(r),
      r.steps === undefined ? '-' : String(r.steps),
      seconds(r.foundAfterMs),
      r.broke
        ? [r.broke.rules.join(', '), ...(r.broke.properties.length > 0 ? [`property ${r.broke.properties.join(', ')}`] : [])].join('; ')
        : (r.note ?? ''),
    ]);
    lines.push(table(['mutant', 'rule', 'verdict', 'found by', 'steps', 'found in', 'the divergence breaks'], rows));
  }
  if (byPart.length > 0) {
    lines.push('');
    lines.push('each part alone (killed: steps of the counterexample, time to find it):');
    const cell = (r: MutantResult): string => (r.verdict === 'killed' ? `killed: ${r.steps} steps, ${seconds(r.foundAfterMs)}` : r.verdict);
    lines.push(
      table(
        ['mutant', 'examples', 'exhaustive', 'random'],
        byPart.map((p) => [p.mutant.name, cell(p.examples), cell(p.exhaustive), cell(p.random)]),
      ),
    );
  }
  const killed = report.results.filter((r) => r.verdict === 'killed').length;
  if (written.size > 0) {
    lines.push('');
    lines.push('counterexamples (replay one against its mutant over the protocol):');
    for (const w of written.values()) lines.push(`  ${w.replay}`);
  }
  lines.push('');
  lines.push(
    `verdict: ${verdictText(report.verdict)}` +
      (report.verdict === 'pass'
        ? ` (all ${killed} mutants killed)`
        : report.verdict === 'fail'
          ? ` (${report.results.filter((r) => r.verdict === 'survived').length} mutant(s) SURVIVED, ${killed} of ${report.results.length} killed)`
          : ''),
  );
  return `${lines.join('\n')}\n`;
}

export async function mutantsCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: false,
      options: {
        seed: { type: 'string' },
        runs: { type: 'string' },
        mutant: { type: 'string' },
        out: { type: 'string', default: 'out' },
        json: { type: 'boolean', default: false },
        itf: { type: 'boolean', default: false },
        ...LINK_BASE_OPTION,
        'each-part': { type: 'boolean', default: false },
        regressions: { type: 'string' },
        list: { type: 'boolean', default: false },
        shard: { type: 'string' },
        ...REPORTER_OPTION,
      },
    },
    'mutants',
  );
  if (values.list && values.json) {
    const mutants = MUTANTS.map((m) => ({
      name: m.name,
      rule: m.rule,
      bugClass: m.bugClass,
      description: m.description,
      regression: `conformance/mutants/regressions/${m.regression}.trace.json`,
    }));
    out.stdout(`${JSON.stringify({ ...reportHeader(MUTANTS_CATALOGUE_FORMAT), mutants })}\n`);
    return EXIT.pass;
  }
  if (values.list) {
    out.stdout(
      `${table(
        ['mutant', 'rule', 'bug class', 'what the patch does'],
        MUTANTS.map((m) => [m.name, m.rule, m.bugClass, m.description]),
      )}\n`,
    );
    return EXIT.pass;
  }
  const problem = mutantBuildProblem();
  if (problem) throw usageError(problem);
  const runs = values.runs === undefined ? 100 : nonNegativeIntegerFlag('--runs', values.runs);
  const shard = shardFlag(values.shard);
  const seed = shardSeed(values.seed, shard, runs > 0, out);
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  const mutants = shardItems(values.mutant === undefined ? MUTANTS : mutantsNamed(values.mutant), shard);
  checkedOutDir('--out', values.out);
  const linkBase = linkBaseFlag(values['link-base']);
  if (values.regressions !== undefined) checkedOutDir('--regressions', values.regressions);
  // The spec's examples only: the catalogue's own regression traces would find each mutant by construction.
  const examples = specExamplePaths().map((path) => ({ path, trace: loadCheckedTrace(path) }));
  out.stderr(
    `streamjoin mutants: seed ${seed} (replay: --seed=${seed})${shard ? `; shard ${shard.index}/${shard.count}: ${mutants.map((m) => m.name).join(', ') || 'no mutant'}` : ''}\n`,
  );
  const covers = await buildCovers(EXHAUSTIVE_SCENARIOS, out);
  const live = new LiveProgress(out, 'streamjoin mutants');
  live.part('the unmodified implementation (control)');
  const progress = (line: string): void => {
    live.line(line);
    live.part('mutants');
  };
  let report: MutantsReport;
  try {
    report = await runMutants({ seed, runs, examples, exhaustive: covers, mutants, progress, signal: out.signal });
  } finally {
    live.stop();
  }
  const byPart: MutantByPart[] = [];
  if (values['each-part'] && report.baseline.verdict === 'pass') {
    for (const m of mutants) {
      if (out.signal?.aborted) break;
      const p = await runMutantByPart(m, { seed, runs, examples, exhaustive: covers, signal: out.signal });
      byPart.push(p);
      progress(`each part: ${m.name}: examples ${p.examples.verdict}, exhaustive ${p.exhaustive.verdict}, random ${p.random.verdict}`);
    }
  }
  const written = new Map<string, WrittenCounterexample>();
  for (const r of report.results) {
    if (!r.failure) continue;
    written.set(
      r.mutant.name,
      writeCounterexample(r.failure, {
        outDir: values.out,
        name: `mutant-${r.mutant.name}`,
        invocation: invocationOf(out),
        sutCommand: mutantServeCommand(invocationOf(out), r.mutant.name),
        sut: `mutant ${r.mutant.name}`,
        implementation: `streamjoin-impl-mutant-${r.mutant.name}`,
        itf: values.itf,
        ...(linkBase !== undefined ? { linkBase } : {}),
      }),
    );
  }
  if (values.regressions !== undefined) {
    for (const r of report.results) {
      if (!r.failure) continue;
      const t = r.failure.trace.trace;
      // Named and described by what it exercises: a system that fails it need not have the mutant's bug.
      const description =
        `A regression trace for ${r.mutant.rule}; kept (found by streamjoin mutants --seed ${seed}). ${t.description ?? ''}`.trim();
      writeFileAtomic(
        join(values.regressions, `${r.mutant.regression}.trace.json`),
        `${prettyJson({ ...t, name: r.mutant.regression, description })}\n`,
      );
    }
  }
  const json = mutantsJson(report, written, seed, shard, byPart);
  if (values.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) {
    out.stdout(summary(report, written, seed, byPart));
    if (out.signal?.aborted)
      out.stdout(`UNKNOWN: interrupted (${abortReason(out.signal)}); ${mutants.length - report.results.length} mutant(s) not judged\n`);
  }
  emitReports([mutantsCases(json)], reporters, out, values.json);
  return json.exitCode;
}

export const MUTANTS_CATALOGUE_FORMAT = 'streamjoin/mutants-catalogue@1';
export const MUTANTS_REPORT_FORMAT = 'streamjoin/mutants-report@1';

interface MutantRowJson {
  readonly verdict: MutantResult['verdict'];
  readonly by: string | null;
  readonly level: string | null;
  readonly scenario: string | null;
  readonly example: string | null;
  readonly steps: number | null;
  readonly foundAfterMs: number | null;
  readonly totalMs: number;
  readonly breaks: MutantResult['broke'] | null;
  readonly note: string | null;
}

export interface MutantJson extends MutantRowJson {
  readonly name: string;
  readonly bugClass: string;
  readonly rule: string;
  readonly counterexample: string | null;
  /** The counterexample's self-contained HTML viewer. */
  readonly html: string | null;
  readonly replay: readonly string[] | null;
  readonly replayCommand: string | null;
  readonly parts?: { readonly examples: MutantRowJson; readonly exhaustive: MutantRowJson; readonly random: MutantRowJson } | null;
}

/** `streamjoin mutants --json` (spec/schemas/reports/mutants-report.schema.json). */
export interface MutantsJson extends ReportHeader {
  readonly verdict: 'pass' | 'fail' | 'unknown';
  readonly exitCode: number;
  readonly seed: number;
  readonly runs: number;
  readonly shard: Shard | null;
  readonly control: { readonly verdict: 'pass' | 'fail' | 'unknown'; readonly ms: number; readonly note: string | null };
  readonly mutants: readonly MutantJson[];
}

function mutantsJson(
  report: MutantsReport,
  written: ReadonlyMap<string, WrittenCounterexample>,
  seed: number,
  shard: Shard | undefined,
  byPart: readonly MutantByPart[],
): MutantsJson {
  const row = (r: MutantResult): MutantRowJson => ({
    verdict: r.verdict,
    by: r.by ?? null,
    level: r.level ?? null,
    scenario: r.failure?.scenario ?? null,
    example: r.failure?.origin === 'example' ? (r.failure.path ?? null) : null,
    steps: r.steps ?? null,
    foundAfterMs: r.foundAfterMs === undefined ? null : Math.round(r.foundAfterMs),
    totalMs: Math.round(r.totalMs),
    breaks: r.broke ?? null,
    note: r.note ?? null,
  });
  const b = report.baseline;
  const controlNote =
    b.verdict === 'pass'
      ? null
      : [
          ...b.failures.map(
            (f) => `${f.origin} ${f.scenario ?? f.path ?? f.level}: step ${f.divergence.step + 1}: ${f.divergence.summary}`,
          ),
          ...(b.unknown ? [`unknown: ${b.unknown.reason}`] : []),
        ].join('; ');
  return {
    ...reportHeader(MUTANTS_REPORT_FORMAT),
    verdict: report.verdict,
    exitCode: report.verdict === 'pass' ? EXIT.pass : report.verdict === 'fail' ? EXIT.fail : EXIT.unknown,
    seed,
    runs: b.random[0]?.requested ?? 0,
    shard: shard ?? null,
    control: { verdict: b.verdict, ms: Math.round(report.baselineMs), note: controlNote },
    mutants: report.results.map((r) => {
      const w = written.get(r.mutant.name);
      const p = byPart.find((x) => x.mutant === r.mutant);
      return {
        name: r.mutant.name,
        bugClass: r.mutant.bugClass,
        rule: r.mutant.rule,
        ...row(r),
        counterexample: w?.tracePath ?? null,
        html: w?.htmlPath ?? null,
        replay: w?.replayArgv ?? null,
        replayCommand: w?.replay ?? null,
        ...(byPart.length > 0
          ? { parts: p ? { examples: row(p.examples), exhaustive: row(p.exhaustive), random: row(p.random) } : null }
          : {}),
      };
    }),
  };
}

/** A mutants report as CI test cases: the control, then a case per mutant (a survivor fails). */
export function mutantsCases(j: MutantsJson): CiResult {
  const shard = j.shard ? ` shard ${j.shard.index}/${j.shard.count}` : '';
  const control: TestCase = {
    name: 'the unmodified implementation passes the harness (control)',
    classname: 'mutants.control',
    status: j.control.verdict === 'pass' ? 'pass' : 'unknown',
    timeMs: j.control.ms,
    ...(j.control.note ? { message: `the control does not pass: ${j.control.note}` } : {}),
  };
  const cases: TestCase[] = j.mutants.map((m) => {
    const name = `${m.name} (${m.rule}: ${m.bugClass})`;
    const classname = 'mutants.catalogue';
    if (m.verdict === 'killed') return { name, classname, status: 'pass', timeMs: m.totalMs };
    if (m.verdict === 'survived')
      return {
        name,
        classname,
        status: 'fail',
        message: `the mutant ${m.name} SURVIVED: no example, scenario or random trace (seed ${j.seed}) told it from the model`,
        details: `streamjoin mutants --mutant ${m.name} --seed ${j.seed} reproduces it`,
        timeMs: m.totalMs,
      };
    return { name, classname, status: 'unknown', message: m.note ?? 'not judged', timeMs: m.totalMs };
  });
  return {
    title: `streamjoin mutants${shard}`,
    verdict: j.verdict,
    suites: [
      {
        name: `mutants${shard}`,
        cases: [control, ...cases],
        properties: {
          seed: String(j.seed),
          ...(j.shard ? { shard: `${j.shard.index}/${j.shard.count}` } : {}),
          streamjoin: j.streamjoin,
          spec: j.spec,
        },
      },
    ],
  };
}
