// `streamjoin mutants`: runs the harness against every mutant of the
// catalogue (conformance/mutants/) after the unmodified implementation as
// the control, prints a row per mutant, writes each kill's counterexample
// (replayable against `streamjoin serve --mutant NAME`), and maps the verdict
// to an exit code.
import { join } from 'node:path';
import { MUTANTS, type Mutant } from '../conformance/mutants/catalogue.ts';
import { runMutantByPart, runMutants, type MutantByPart, type MutantResult, type MutantsReport } from '../conformance/mutants/run.ts';
import { EXHAUSTIVE_SCENARIOS } from '../conformance/generate/exhaustive.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import type { Output } from './output.ts';
import { EXIT, nonNegativeIntegerFlag, parseCommandArgs, seedFlag, usageError } from './exitCodes.ts';
import { buildCovers, outDirProblem, specExamplePaths } from './harnessArgs.ts';
import { shellQuote, writeCounterexample, type WrittenCounterexample } from '../conformance/report/counterexampleFiles.ts';
import { writeFileAtomic } from '../conformance/report/atomicFiles.ts';
import { prettyJson } from '../conformance/lockstep/jsonDiff.ts';

export const mutantsHelp = `streamjoin mutants [--seed N] [--runs N] [--mutant NAME,...] [--out DIR] [--json] [--each-part]
                   [--regressions DIR] [--list]

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
  --each-part       also run each part alone (examples, exhaustive, random) against
                    each mutant, and say which parts kill it
  --regressions DIR also write each kill's counterexample as DIR/NAME.trace.json, a
                    regression trace (conform runs those in
                    conformance/mutants/regressions/ with the examples)
  --list            list the catalogue and exit

Exit codes: 0 every mutant killed; 1 a mutant survived; 2 unknown (a mutant
could not be built or judged, or the unmodified implementation does not pass);
254 bad input or usage. 255 is an internal error of streamjoin.`;

/** The launcher, absolute: a printed replay command works from any directory. */
const BIN = join(import.meta.dirname, '..', 'bin', 'streamjoin.js');

/** The command that serves a mutant over the protocol. */
export function mutantServeCommand(name: string): string {
  return `node ${shellQuote(BIN)} serve --mutant ${name}`;
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
    `control: the unmodified implementation ${b.verdict === 'pass' ? 'passes' : b.verdict === 'fail' ? 'DIVERGES' : 'is UNKNOWN'}: ${b.examples.length} examples, ${b.exhaustive.reduce((n, x) => n + x.run, 0).toLocaleString('en-US')} exhaustive interleavings, ${b.random.reduce((n, r) => n + r.runs, 0)} random traces in ${seconds(report.baselineMs)}`,
  );
  if (b.verdict !== 'pass') {
    lines.push('the mutants were not run: a kill means something only if the implementation as it is passes the same harness');
    for (const f of b.failures)
      lines.push(`  ${f.origin} ${f.scenario ?? f.path ?? f.level}: step ${f.divergence.step}: ${f.divergence.summary}`);
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
    report.verdict === 'pass'
      ? `verdict: all ${killed} mutants killed`
      : report.verdict === 'fail'
        ? `verdict: ${report.results.filter((r) => r.verdict === 'survived').length} mutant(s) SURVIVED (${killed} of ${report.results.length} killed)`
        : 'verdict: UNKNOWN',
  );
  return `${lines.join('\n')}\n`;
}

export async function mutantsCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    allowPositionals: false,
    options: {
      seed: { type: 'string' },
      runs: { type: 'string' },
      mutant: { type: 'string' },
      out: { type: 'string', default: 'out' },
      json: { type: 'boolean', default: false },
      itf: { type: 'boolean', default: false },
      'each-part': { type: 'boolean', default: false },
      regressions: { type: 'string' },
      list: { type: 'boolean', default: false },
    },
  });
  if (values.list) {
    out.stdout(
      `${table(
        ['mutant', 'rule', 'bug class', 'what the patch does'],
        MUTANTS.map((m) => [m.name, m.rule, m.bugClass, m.description]),
      )}\n`,
    );
    return EXIT.pass;
  }
  const seed = seedFlag(values.seed);
  const runs = values.runs === undefined ? 100 : nonNegativeIntegerFlag('--runs', values.runs);
  const mutants = values.mutant === undefined ? MUTANTS : mutantsNamed(values.mutant);
  const outProblem = outDirProblem(values.out);
  if (outProblem) throw usageError(`--out ${values.out}: ${outProblem}`);
  const regressionsProblem = values.regressions === undefined ? undefined : outDirProblem(values.regressions);
  if (regressionsProblem) throw usageError(`--regressions ${values.regressions}: ${regressionsProblem}`);
  // The spec's examples only: the catalogue's own regression traces would find each mutant by construction.
  const examples = specExamplePaths().map((path) => ({ path, trace: loadCheckedTrace(path) }));
  out.stderr(`streamjoin mutants: seed ${seed} (replay: --seed=${seed})\n`);
  const covers = buildCovers(EXHAUSTIVE_SCENARIOS, out);
  const progress = (line: string): void => out.stderr(`${line}\n`);
  const report = await runMutants({ seed, runs, examples, exhaustive: covers, mutants, progress });
  const byPart: MutantByPart[] = [];
  if (values['each-part'] && report.baseline.verdict === 'pass') {
    for (const m of mutants) {
      const p = await runMutantByPart(m, { seed, runs, examples, exhaustive: covers });
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
        sutWord: shellQuote(mutantServeCommand(r.mutant.name)),
        sut: `mutant ${r.mutant.name}`,
        implementation: `streamjoin-impl-mutant-${r.mutant.name}`,
        stderrTail: [],
        itf: values.itf,
      }),
    );
  }
  if (values.regressions !== undefined) {
    for (const r of report.results) {
      if (!r.failure) continue;
      const t = r.failure.trace.trace;
      const description =
        `Regression trace of the mutant ${r.mutant.name} (${r.mutant.bugClass}, ${r.mutant.rule}: ${r.mutant.description}); found by streamjoin mutants --seed ${seed}. ${t.description ?? ''}`.trim();
      writeFileAtomic(
        join(values.regressions, `${r.mutant.name}.trace.json`),
        `${prettyJson({ ...t, name: r.mutant.name, description })}\n`,
      );
    }
  }
  if (values.json) {
    const row = (r: MutantResult) => ({
      verdict: r.verdict,
      by: r.by ?? null,
      level: r.level ?? null,
      scenario: r.failure?.scenario ?? null,
      example: r.failure?.origin === 'example' ? (r.failure.path ?? null) : null,
      steps: r.steps ?? null,
      foundAfterMs: r.foundAfterMs ?? null,
      totalMs: r.totalMs,
      breaks: r.broke ?? null,
      note: r.note ?? null,
    });
    out.stdout(
      `${JSON.stringify({
        verdict: report.verdict,
        seed,
        control: { verdict: report.baseline.verdict, ms: report.baselineMs },
        mutants: report.results.map((r) => ({
          name: r.mutant.name,
          bugClass: r.mutant.bugClass,
          rule: r.mutant.rule,
          ...row(r),
          counterexample: written.get(r.mutant.name)?.tracePath ?? null,
          html: written.get(r.mutant.name)?.htmlPath ?? null,
          replay: written.get(r.mutant.name)?.replay ?? null,
          ...(byPart.length > 0
            ? {
                parts: (([p]) => (p ? { examples: row(p.examples), exhaustive: row(p.exhaustive), random: row(p.random) } : null))(
                  byPart.filter((p) => p.mutant === r.mutant),
                ),
              }
            : {}),
        })),
      })}\n`,
    );
  } else {
    out.stdout(summary(report, written, seed, byPart));
  }
  return report.verdict === 'pass' ? EXIT.pass : report.verdict === 'fail' ? EXIT.fail : EXIT.unknown;
}
