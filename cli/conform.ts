// `streamjoin conform` and `streamjoin replay`: parse the arguments, build the
// system under test, call the harness, write counterexamples, print, and map
// the verdict to an exit code.
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LEVELS } from '../spec/index.ts';
import type { AnyTrace, Level } from '../spec/index.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, spawnSystem } from '../conformance/adapters/process.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import {
  levelOfClusterTrace,
  runConform,
  withExpectations,
  type ConformReport,
  type Failure,
  type TraceSource,
} from '../conformance/conform.ts';
import { EXHAUSTIVE_SCENARIOS, coverScenario, isCrashPoint, type ScenarioCover } from '../conformance/generate/exhaustive.ts';
import { runClusterLockstep } from '../conformance/lockstep/clusterLockstep.ts';
import { runOperatorLockstep } from '../conformance/lockstep/operatorLockstep.ts';
import { describeDivergence, explainCounterexample } from '../conformance/report/explain.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { SutUnavailable, type SystemUnderTest } from '../conformance/adapters/sut.ts';
import { prettyJson } from '../conformance/lockstep/jsonDiff.ts';
import { exampleTracePaths, examplesDir } from './run.ts';
import { writeFileAtomic, writeFilesAtomic, type Output } from './output.ts';
import { EXIT, nonNegativeIntegerFlag, parseCommandArgs, positiveIntegerFlag, seedFlag, usageError } from './exitCodes.ts';

const EXIT_TEXT = `Exit codes: 0 conforms; 1 a divergence (the counterexample is written and the
command that replays it printed); 2 unknown: the system under test cannot be
judged (it died, hung, babbled, broke the protocol, lacks the level asked
for) or the time budget ran out; 254 bad input or usage (one line
\`where: SJnnn message\`). 255 is an internal error of streamjoin.`;

export const conformHelp = `streamjoin conform --sut COMMAND [--level LEVEL] [--seed N] [--runs N] [--out DIR] [--json]
                   [--exhaustive [--scenario NAME,...]] [--examples all|none]
                   [--timeout MS] [--max-line BYTES] [--time-budget SECONDS] [--path PATH]

Checks a system under test against the reference model, trace for trace
(SPEC §7): every operator example in spec/examples/, every cluster example in
spec/examples/cluster/, the regression traces of the mutant catalogue
(conformance/mutants/regressions/), with --exhaustive the bounded-exhaustive scenarios,
then random traces (shrunk on failure), at each level the system supports (or
the one asked for). After every step it compares the events and the
observation and reports the first divergence.

  --sut COMMAND        a shell command that speaks protocol v1 (spec/PROTOCOL.md)
                       on stdin/stdout; "model" for the reference model and "impl"
                       for the built-in implementation, both in-process
  --level LEVEL        operator, cluster or faults (default: every level supported)
  --seed N             seed of the random traces (default: random; always printed)
  --runs N             random traces per level (default 100; 0 for examples only)
  --path PATH          with --seed: go straight to the counterexample fast-check
                       reported (its "path"), as printed after a failure
  --out DIR            where counterexamples are written (default out/)
  --json               print one JSON report on stdout instead of the summary
  --timeout MS         no reply for this long with requests outstanding means the
                       system hung (default ${DEFAULT_TIMEOUT_MS}; the first reply may take ${DEFAULT_STARTUP_TIMEOUT_MS})
  --max-line BYTES     cap on a reply line (default ${DEFAULT_MAX_LINE_BYTES})
  --time-budget SECONDS  stop the random traces after this long
  --examples all|none  run the example and regression traces first (default all)
  --exhaustive         also run every interleaving of the bounded-exhaustive
                       scenarios: traces that take every transition of each
                       scenario's bounded state graph, each completed to
                       quiescence; prints, per scenario, the interleavings and
                       transitions run, and whether every crash point was covered
  --scenario NAMES     with --exhaustive: only these scenarios (comma-separated), of
${EXHAUSTIVE_SCENARIOS.map((x) => `                         ${x.name}`).join('\n')}

Progress goes to stderr. A divergence writes DIR/NAME.trace.json (the shrunk
trace with the model's expectations) and DIR/NAME.explain.txt (the steps,
expected versus actual, the rules broken, a sequence diagram), atomically.

${EXIT_TEXT}`;

export const replayHelp = `streamjoin replay FILE --sut COMMAND [--level LEVEL] [--json] [--timeout MS] [--max-line BYTES]
streamjoin replay FILE --write-expected OUT

Replays one trace file (an operator or a cluster trace, e.g. a counterexample
written by conform) against a system under test, in lockstep with the model,
and prints the first divergence or "conforms". Expectations in the file are
used where present, the model's elsewhere.

  --sut COMMAND          as for conform ("model", "impl" in-process)
  --level LEVEL          for a cluster trace: cluster or faults (default: the
                         weakest level that has every action of the trace)
  --json                 print one JSON result on stdout
  --write-expected OUT   write the trace with the model's expectations to OUT
                         (atomically) and exit; no --sut needed

${EXIT_TEXT}`;

const clusterExamplesDir = join(examplesDir, 'cluster');

/** The mutant catalogue's regression traces: each kill's shortest counterexample, kept (streamjoin mutants --regressions). */
export const regressionsDir = join(import.meta.dirname, '..', 'conformance', 'mutants', 'regressions');

const traceFilesIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.trace.json'))
    .sort()
    .map((f) => join(dir, f));

/** The hand-checked examples of spec/: operator examples, then cluster examples. */
export function specExamplePaths(): string[] {
  return [...exampleTracePaths(), ...traceFilesIn(clusterExamplesDir)];
}

/** The traces conform runs before the exhaustive and random ones: the spec's examples, then the mutant catalogue's regression traces. */
export function conformExamplePaths(): string[] {
  return [...specExamplePaths(), ...traceFilesIn(regressionsDir)];
}

/**
 * Why counterexamples could not be written under `dir`, or undefined: checked
 * before the run, so that a divergence found is never lost to a bad --out.
 * Creates nothing.
 */
export function outDirProblem(dir: string): string | undefined {
  let at = resolve(dir);
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return 'no existing parent directory';
    at = up;
  }
  if (!statSync(at).isDirectory()) return `${at} is not a directory`;
  try {
    accessSync(at, constants.W_OK);
  } catch {
    return `${at} is not writable`;
  }
  return undefined;
}

/** Quotes a word for a POSIX shell, only when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

interface SystemFlags {
  timeout?: string | undefined;
  'max-line'?: string | undefined;
}

/** `--sut model`, `--sut impl` or a command. */
function buildSystem(sut: string, flags: SystemFlags): SystemUnderTest {
  if (sut === 'model') return inProcessSystem(modelSut, 'model');
  if (sut === 'impl') return inProcessSystem(implSut, 'impl');
  const timeout = flags.timeout === undefined ? DEFAULT_TIMEOUT_MS : positiveIntegerFlag('--timeout', flags.timeout, 'milliseconds');
  const maxLine = flags['max-line'] === undefined ? DEFAULT_MAX_LINE_BYTES : positiveIntegerFlag('--max-line', flags['max-line'], 'bytes');
  return spawnSystem(sut, { timeoutMs: timeout, startupTimeoutMs: Math.max(timeout, DEFAULT_STARTUP_TIMEOUT_MS), maxLineBytes: maxLine });
}

function parseLevel(text: string | undefined): Level | undefined {
  if (text === undefined) return undefined;
  if (!(LEVELS as readonly string[]).includes(text)) throw usageError(`--level must be one of ${LEVELS.join(', ')}, got "${text}"`);
  return text as Level;
}

/** The base file name of a failure's counterexample. */
function failureName(f: Failure): string {
  const base =
    f.origin === 'random'
      ? `${f.level}-seed${f.seed ?? 0}`
      : f.origin === 'exhaustive'
        ? `exhaustive-${f.scenario ?? 'scenario'}.${f.level}`
        : `${f.trace.trace.name}.${f.level}`;
  return base.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export interface WrittenCounterexample {
  readonly failure: Failure;
  readonly tracePath: string;
  readonly explainPath: string;
  readonly replay: string;
  readonly search?: string;
}

/** Where a counterexample goes and how its replay command names the system. */
export interface CounterexampleTarget {
  readonly outDir: string;
  /** Base file name (no extension). */
  readonly name: string;
  /** The --sut word of the printed commands, shell-quoted. */
  readonly sutWord: string;
  /** The system as the explanation names it. */
  readonly sut: string;
  readonly implementation?: string;
  readonly stderrTail: readonly string[];
}

/** Writes one counterexample (trace and explanation, atomically); returns the paths and the command that replays it. */
export function writeCounterexample(f: Failure, target: CounterexampleTarget): WrittenCounterexample {
  const tracePath = join(target.outDir, `${target.name}.trace.json`);
  const explainPath = join(target.outDir, `${target.name}.explain.txt`);
  const replay = `streamjoin replay ${shellQuote(tracePath)} --sut ${target.sutWord} --level ${f.level}`;
  const search =
    f.origin === 'random'
      ? `streamjoin conform --sut ${target.sutWord} --level ${f.level} --seed=${f.seed ?? 0}${f.fcPath !== undefined ? ` --path ${shellQuote(f.fcPath)}` : ''} --examples none`
      : undefined;
  const origin =
    f.origin === 'random'
      ? `random traces at level ${f.level}, seed ${f.seed ?? 0}, fast-check path ${f.fcPath ?? '?'} (shrunk)`
      : f.origin === 'exhaustive'
        ? `the bounded-exhaustive scenario ${f.scenario ?? '?'} (minimized)`
        : `the example ${f.path ?? '?'}`;
  const explanation = explainCounterexample(f.trace, f.divergence, {
    sut: target.sut,
    ...(target.implementation !== undefined ? { implementation: target.implementation } : {}),
    level: f.level,
    origin,
    replay,
    stderrTail: target.stderrTail,
  });
  writeFilesAtomic([
    { path: tracePath, text: `${prettyJson(f.trace.trace)}\n` },
    { path: explainPath, text: explanation },
  ]);
  return { failure: f, tracePath, explainPath, replay, ...(search ? { search } : {}) };
}

function writeCounterexamples(
  report: ConformReport,
  outDir: string,
  sutWord: string,
  stderrTail: readonly string[],
): WrittenCounterexample[] {
  return report.failures.map((f) =>
    writeCounterexample(f, {
      outDir,
      name: failureName(f),
      sutWord,
      sut: report.sut,
      ...(report.implementation ? { implementation: `${report.implementation.name} ${report.implementation.version}` } : {}),
      stderrTail,
    }),
  );
}

function summary(report: ConformReport, written: readonly WrittenCounterexample[]): string {
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

function exitOf(verdict: ConformReport['verdict']): number {
  return verdict === 'pass' ? EXIT.pass : verdict === 'fail' ? EXIT.fail : EXIT.unknown;
}

/** The scenarios a --scenario list names, or a usage message. */
export function scenariosNamed(list: string): ScenarioCover['scenario'][] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const known = new Map(EXHAUSTIVE_SCENARIOS.map((x) => [x.name, x]));
  const unknown = names.filter((n) => !known.has(n));
  if (names.length === 0 || unknown.length > 0) {
    throw usageError(
      `--scenario: unknown scenario ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}; the scenarios are ${EXHAUSTIVE_SCENARIOS.map((x) => x.name).join(', ')}`,
    );
  }
  return EXHAUSTIVE_SCENARIOS.filter((x) => names.includes(x.name));
}

/** Each scenario's bounded graph and covering traces, with a progress line per scenario. */
export function buildCovers(scenarios: readonly ScenarioCover['scenario'][], out: Output): ScenarioCover[] {
  return scenarios.map((scenario) => {
    const t0 = performance.now();
    const cover = coverScenario(scenario);
    out.stderr(
      `exhaustive ${scenario.name}: ${cover.states} states, ${cover.transitions} transitions, ${cover.traces.length} interleavings (built in ${Math.round(performance.now() - t0)} ms)\n`,
    );
    return cover;
  });
}

export async function conformCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      sut: { type: 'string' },
      level: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      path: { type: 'string' },
      out: { type: 'string', default: 'out' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'max-line': { type: 'string' },
      'time-budget': { type: 'string' },
      examples: { type: 'string' },
      exhaustive: { type: 'boolean', default: false },
      scenario: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw usageError(`conform takes no positional arguments, got "${positionals[0]}"`);
  if (values.scenario !== undefined && !values.exhaustive)
    throw usageError('--scenario selects exhaustive scenarios: give --exhaustive too');
  const scenarios = values.scenario === undefined ? EXHAUSTIVE_SCENARIOS : scenariosNamed(values.scenario);
  if (values.sut === undefined || values.sut === '') throw usageError('conform needs --sut COMMAND (or --sut model, --sut impl)');
  const level = parseLevel(values.level);
  const seed = seedFlag(values.seed);
  if (values.path !== undefined && values.seed === undefined)
    throw usageError('--path replays a counterexample of one seed: give --seed too');
  const runs = values.runs === undefined ? 100 : nonNegativeIntegerFlag('--runs', values.runs);
  const budget = values['time-budget'] === undefined ? undefined : positiveIntegerFlag('--time-budget', values['time-budget'], 'seconds');
  if (values.examples !== undefined && values.examples !== 'none' && values.examples !== 'all') {
    throw usageError(`--examples must be "all" or "none", got "${values.examples}"`);
  }
  const outProblem = outDirProblem(values.out);
  if (outProblem) throw usageError(`--out ${values.out}: ${outProblem}`);
  // All input is read and checked before the system under test starts.
  const examples: TraceSource[] =
    values.examples === 'none' ? [] : conformExamplePaths().map((path) => ({ path, trace: loadCheckedTrace(path) }));
  const system = buildSystem(values.sut, values);
  const sutWord = shellQuote(values.sut);
  out.stderr(`streamjoin conform: seed ${seed} (replay: --seed=${seed})\n`);
  const covers = values.exhaustive ? buildCovers(scenarios, out) : undefined;
  let report: ConformReport;
  try {
    report = await runConform({
      system,
      ...(level !== undefined ? { levels: [level] } : {}),
      seed,
      runs,
      ...(values.path !== undefined ? { path: values.path } : {}),
      examples,
      ...(covers !== undefined ? { exhaustive: covers } : {}),
      ...(budget !== undefined ? { timeBudgetMs: budget * 1000 } : {}),
      progress: (line) => out.stderr(`${out.interactive ? '\r\x1b[K' : ''}${line}\n`),
      ...(out.interactive ? { tick: (line: string) => out.stderr(`\r\x1b[K${line}`) } : {}),
    });
  } finally {
    await system.close();
  }
  const written = writeCounterexamples(report, values.out, sutWord, system.stderrTail?.() ?? []);
  if (values.json) {
    out.stdout(
      `${JSON.stringify({
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
          replay: w.replay,
        })),
        unknown: report.unknown ?? null,
      })}\n`,
    );
  } else {
    out.stdout(summary(report, written));
  }
  return exitOf(report.verdict);
}

export async function replayCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      sut: { type: 'string' },
      level: { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'max-line': { type: 'string' },
      'write-expected': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw usageError(`replay takes exactly one FILE, got ${positionals.length}`);
  const file = positionals[0] as string;
  const level = parseLevel(values.level);
  const trace: AnyTrace = loadCheckedTrace(file);
  if (values['write-expected'] !== undefined) {
    writeFileAtomic(values['write-expected'], `${prettyJson(withExpectations(trace).trace)}\n`);
    out.stdout(`wrote ${values['write-expected']}\n`);
    return EXIT.pass;
  }
  if (values.sut === undefined || values.sut === '') throw usageError('replay needs --sut COMMAND (or --sut model, --sut impl)');
  let chosen: Level;
  if (trace.kind === 'operator') {
    if (level !== undefined && level !== 'operator') throw usageError(`an operator trace replays at level operator, not ${level}`);
    chosen = 'operator';
  } else {
    const need = levelOfClusterTrace(trace.trace);
    if (level === 'operator') throw usageError('a cluster trace replays at level cluster or faults');
    if (level === 'cluster' && need === 'faults') throw usageError('this trace has fault actions: it needs level faults');
    chosen = level ?? need;
  }
  const system = buildSystem(values.sut, values);
  try {
    const info = await system.info();
    if (!info.levels.includes(chosen))
      throw new SutUnavailable(`it does not support level ${chosen} (it supports ${info.levels.join(', ')})`);
    const result =
      trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, chosen) : await runOperatorLockstep(trace.trace, system);
    for (const d of result.disagreements) {
      out.stderr(`note: ${file}: step ${d.step}: the file's expected ${d.field} differs from the reference model's; the file's is used\n`);
    }
    const d = result.divergence;
    if (values.json) {
      out.stdout(
        `${JSON.stringify({ file, level: chosen, verdict: d ? 'fail' : 'pass', steps: trace.trace.steps.length, divergence: d ?? null })}\n`,
      );
    } else if (d) {
      out.stdout(`${file}: DIVERGES at level ${chosen}\n${describeDivergence(d)}\n`);
    } else {
      out.stdout(`${file}: conforms (${trace.trace.steps.length} steps at level ${chosen})\n`);
    }
    return d ? EXIT.fail : EXIT.pass;
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    const tail = e.stderrTail.map((l) => `  | ${l}\n`).join('');
    if (values.json)
      out.stdout(`${JSON.stringify({ file, level: chosen, verdict: 'unknown', reason: e.reason, stderrTail: e.stderrTail })}\n`);
    else out.stdout(`${file}: UNKNOWN: ${e.reason}\n${tail ? `  last stderr lines of the system under test:\n${tail}` : ''}`);
    return EXIT.unknown;
  } finally {
    await system.close();
  }
}
