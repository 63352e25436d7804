// `streamjoin conform`: parse the arguments, build the system under test,
// call the harness, write the counterexamples, print, and map the verdict to
// an exit code.
import type { TraceSource, ConformReport } from '../conformance/job/conformTypes.ts';
import { withDeadline } from '../spec/index.ts';
import { runConform } from '../conformance/job/conform.ts';
import { EXHAUSTIVE_SCENARIOS, type AnyScenario } from '../conformance/generate/exhaustive.ts';
import { needs, runsAt } from '../conformance/job/exhaustivePart.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { regressionTracePaths, specExamplePaths } from '../conformance/job/traceFilesPart.ts';
import { writeCounterexamples } from '../conformance/views/counterexampleFiles.ts';
import { invocationOf, type Output } from './output.ts';
import { nonNegativeIntegerFlag, positiveIntegerFlag, usageError } from './exitCodes.ts';
import { checkedOutDir, parseCommandArgs } from './options.ts';
import {
  SYSTEM_FLAGS_HELP,
  SYSTEM_FLAG_OPTIONS,
  LINK_BASE_HELP,
  LINK_BASE_OPTION,
  buildSystem,
  linkBaseFlag,
  lazyCovers,
  parseLevel,
  scenariosNamed,
} from './harnessArgs.ts';
import { SHARD_HELP, shardFlag, shardSeed } from './shardArgs.ts';
import { conformCases, conformJson, conformSummary } from './conformReport.ts';
import { LiveProgress } from './progress.ts';
import { KILL_HELP, checkKillCommand, killConformCommand } from './kill.ts';
import { isCrashPoint, withKills } from '../conformance/kill/killTraces.ts';
import { exhaustiveKills, messageKills } from '../conformance/kill/everyWritePoint.ts';
import type { ClusterTrace, ExternalAction } from '../spec/index.ts';
import type { SystemFlags } from './harnessArgs.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, emitReports, parseReporters, reporterOnStdout } from './reporters/emit.ts';

export const HARNESS_EXIT_TEXT = `Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0 PASS: it
conforms; 1 FAIL: a divergence; 2 UNKNOWN: the system under test cannot be judged (it died,
hung, babbled, broke the protocol, lacks the level asked for), the time
budget ran out, or the run was interrupted.

SIGINT or SIGTERM (Ctrl-C) stops the run: the report so far is printed
(verdict unknown, unless a divergence was found: that stands), complete
counterexamples are written, nothing half, and the system under test's
processes are stopped. A second signal stops at once. What the harness
expects of a system under test, and what each verdict means:
docs/systems-under-test.md.`;

export const conformHelp = `streamjoin conform --sut COMMAND [--level LEVEL] [--seed N] [--runs N] [--out DIR] [--json]
                   [--exhaustive [--scenario NAME,...]] [--examples all|none] [--shard K/N]
                   [--reporter junit=FILE] [--reporter tap[=FILE]]
                   [--timeout MS] [--startup-timeout MS] [--max-line BYTES]
                   [--time-budget SECONDS] [--path PATH]
streamjoin conform --kill --sut "COMMAND ... {data} ..." [--seed N] [--runs N] [--exhaustive] [--out DIR]
                   [--examples all|none] [--json] [--shard K/N] [--time-budget SECONDS]
                   [--reporter junit=FILE] [--reporter tap[=FILE]]

Checks a system under test against the reference model, trace for trace
(SPEC §7): every operator example in spec/examples/, every cluster example in
spec/examples/cluster/, the regression traces of the mutant catalogue
(conformance/mutants/regressions/), with --exhaustive the bounded-exhaustive scenarios,
then random traces (shrunk on failure), at each level the system supports (or
the one asked for). After every step it compares the events and the
observation and reports the first divergence.

  --sut COMMAND        a shell command that speaks protocol v2 (spec/PROTOCOL.md)
                       on stdin/stdout; "model" for the reference model and "impl"
                       for the built-in implementation, both in-process
  --level LEVEL        operator, cluster or faults (default: every level supported)
  --seed N             seed of the random traces (default: random; always printed)
  --runs N             random traces per level (default 100; 0 for examples only)
  --path PATH          with --seed: go straight to the counterexample fast-check
                       reported (its "path"), as printed after a failure
  --out DIR            where counterexamples are written (default out/)
  --json               print one JSON report on stdout instead of the summary
                       (streamjoin/conform-report@1, spec/schemas/reports/)
  --itf                also write each counterexample in the Informal Trace Format
                       of Apalache and Quint (DIR/NAME.itf.json); replay reads it
${LINK_BASE_HELP}
${SYSTEM_FLAGS_HELP}
  --time-budget SECONDS  stop the whole run after this long (verdict unknown
                       unless a divergence was found); the random traces stop
                       at it too
  --examples all|none  run the example and regression traces first (default all)
  --exhaustive         also run the bounded-exhaustive scenarios: at level operator
                       every log up to a bound, or every transition of the
                       operator's state graph to a depth; at the cluster levels
                       traces that take every transition of each scenario's
                       bounded state graph, each completed to quiescence, then
                       each side's latest watermark sent again (stale, unless a
                       restore lost it); at every state, every action the model
                       refuses there and every invalid record (probes). Prints,
                       per scenario, the traces, probes and transitions run (a
                       scenario with no trace at the levels checked is skipped,
                       never passed), and the coverage over the traces that ran
                       (every crash point, at level faults)
  --scenario NAMES     with --exhaustive: only these scenarios (comma-separated), of
${EXHAUSTIVE_SCENARIOS.map((x) => `                         ${x.name}`).join('\n')}
${SHARD_HELP}
${REPORTER_HELP}
${KILL_HELP}

Progress goes to stderr: a live line on a terminal, else a heartbeat line
every few seconds. A divergence writes, atomically: DIR/NAME.trace.json
(the shrunk trace with the model's expectations), DIR/NAME.explain.txt (the
terminal view: config, versions, the steps, expected versus actual, the rules
broken, a sequence diagram, and what the system wrote to stderr while that
trace ran), DIR/NAME.md (the same in Markdown with a Mermaid diagram, for
issues and pull requests) and DIR/NAME.html (a self-contained viewer:
streamjoin view DIR/NAME.html); with --itf also DIR/NAME.itf.json. It prints
the command that replays it. A divergence in an example names both steps:
the example's own, and the minimized counterexample's.

${HARNESS_EXIT_TEXT}`;

/**
 * The furthest trace a --path may start from: fast-check advances its random
 * generator past every trace before it at once, a few microseconds each, deaf
 * to an interrupt meanwhile (100,000 take well under a second).
 */
const MAX_PATH_START = 1_000_000;

/**
 * --path as fast-check prints it: numbers joined by colons, the first the
 * index of the failing trace. Checked before the run: a path of no run of
 * this size would make fast-check generate traces without end.
 */
function pathFlag(path: string): void {
  if (!/^\d{1,9}(:\d{1,9})*$/.test(path))
    throw usageError(`--path must be numbers joined by colons, as printed after a failure (e.g. 41:3:0), got "${path}"`);
  const start = Number(path.split(':')[0]);
  if (start > MAX_PATH_START)
    throw usageError(
      `--path ${path}: its first number (the failing trace's index) is past ${MAX_PATH_START.toLocaleString('en-US')}; replay the counterexample file instead (streamjoin replay FILE --sut ...)`,
    );
}

/** `conform --kill` (cli/kill.ts): the flags it takes, checked; the cluster examples with a crash point, kills added there. */
async function conformKill(
  values: { [name: string]: string | boolean | (string | boolean)[] | undefined } & SystemFlags,
  out: Output,
): Promise<number> {
  for (const flag of ['itf', 'path', 'scenario'])
    if (values[flag] !== undefined && values[flag] !== false)
      throw usageError(`--${flag} is not available with --kill (kill mode runs the cluster examples and random traces at level faults)`);
  if (values.level !== undefined && values.level !== 'faults') throw usageError('--kill runs at level faults');
  const sut = values.sut;
  if (typeof sut !== 'string' || sut === '') throw usageError('conform --kill needs --sut COMMAND, naming its data directory with {data}');
  checkKillCommand(sut);
  const runs = values.runs === undefined ? 20 : nonNegativeIntegerFlag('--runs', String(values.runs));
  const shard = shardFlag(typeof values.shard === 'string' ? values.shard : undefined);
  const seed = shardSeed(typeof values.seed === 'string' ? values.seed : undefined, shard, runs > 0, out);
  const reporters = parseReporters(Array.isArray(values.reporter) ? values.reporter.map(String) : undefined);
  const json = values.json === true;
  checkStdoutUse(json, reporters);
  const budget =
    values['time-budget'] === undefined ? undefined : positiveIntegerFlag('--time-budget', String(values['time-budget']), 'seconds');
  if (values.examples !== undefined && values.examples !== 'none' && values.examples !== 'all') {
    throw usageError(`--examples must be "all" or "none", got "${String(values.examples)}"`);
  }
  // A run of nothing would pass having checked nothing.
  if (values.examples === 'none' && runs === 0 && values.exhaustive !== true)
    throw usageError('nothing to check: --examples none and --runs 0 (give random traces, the examples or --exhaustive)');
  const outDir = checkedOutDir('--out', String(values.out));
  const examples =
    values.examples === 'none'
      ? []
      : specExamplePaths().flatMap((path) => {
          const t = loadCheckedTrace(path);
          if (t.kind !== 'cluster' || !t.trace.steps.some((s) => isCrashPoint(s.action as ExternalAction))) return [];
          return [{ path, trace: withKills(t.trace, [], { finalKill: true }) }];
        });
  // --exhaustive: the planned migration under traffic, its init and each of its steps killed at every durable write point,
  // then the first step of each other kind the examples have (everyWritePoint.ts exhaustiveKills).
  const clusterExamples = (): { path: string; trace: ClusterTrace }[] =>
    specExamplePaths().flatMap((path) => {
      const t = loadCheckedTrace(path);
      return t.kind === 'cluster' ? [{ path, trace: t.trace }] : [];
    });
  const exhaustive = values.exhaustive === true ? exhaustiveKills(clusterExamples()) : [];
  // Without --exhaustive, with the examples: after them, the migration's install and release, each killed at every write
  // point (everyWritePoint.ts messageKills, C11: a step and its message saved in two writes).
  const afterExamples = values.exhaustive !== true && values.examples !== 'none' ? messageKills(clusterExamples()) : [];
  out.stderr(`streamjoin conform --kill: seed ${seed} (replay: --seed=${seed})${shard ? `; shard ${shard.index}/${shard.count}` : ''}\n`);
  return killConformCommand(
    {
      sut,
      seed,
      runs,
      examples,
      exhaustive,
      afterExamples,
      outDir,
      flags: values,
      json,
      reporters,
      ...(shard ? { shard } : {}),
      ...(budget !== undefined ? { timeBudgetSeconds: budget } : {}),
    },
    out,
  );
}

export async function conformCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
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
        itf: { type: 'boolean', default: false },
        ...SYSTEM_FLAG_OPTIONS,
        ...LINK_BASE_OPTION,
        'time-budget': { type: 'string' },
        examples: { type: 'string' },
        exhaustive: { type: 'boolean', default: false },
        scenario: { type: 'string' },
        shard: { type: 'string' },
        kill: { type: 'boolean', default: false },
        ...REPORTER_OPTION,
      },
    },
    'conform',
  );
  if (values.kill) return conformKill(values, out);
  if (positionals.length > 0) throw usageError(`conform takes no positional arguments, got "${positionals[0]}"`);
  if (values.scenario !== undefined && !values.exhaustive)
    throw usageError('--scenario selects exhaustive scenarios: give --exhaustive too');
  const scenarios = values.scenario === undefined ? EXHAUSTIVE_SCENARIOS : scenariosNamed(values.scenario);
  if (values.sut === undefined || values.sut === '') throw usageError('conform needs --sut COMMAND (or --sut model, --sut impl)');
  const level = parseLevel(values.level);
  // A scenario asked for by name whose traces --level leaves out would be skipped: the two flags conflict.
  const outOfLevel = values.scenario === undefined || level === undefined ? [] : scenarios.filter((x) => !runsAt(x.kind, [level]));
  if (outOfLevel.length > 0)
    throw usageError(
      `--scenario ${outOfLevel.map((x) => x.name).join(',')} needs level ${needs((outOfLevel[0] as AnyScenario).kind)}; --level ${level} leaves ${outOfLevel.length === 1 ? 'it' : 'them'} out`,
    );
  if (values.path !== undefined && values.seed === undefined)
    throw usageError('--path replays a counterexample of one seed: give --seed too');
  if (values.path !== undefined) pathFlag(values.path);
  // A path is one level's (the search command printed with it names it): tried at every level, it would be judged at the wrong ones.
  if (values.path !== undefined && values.level === undefined)
    throw usageError('--path replays a counterexample of one level: give --level too (as the printed search command does)');
  const runs = values.runs === undefined ? 100 : nonNegativeIntegerFlag('--runs', values.runs);
  const shard = shardFlag(values.shard);
  if (shard && values.path !== undefined) throw usageError('--path replays one counterexample: it takes no --shard');
  const seed = shardSeed(values.seed, shard, runs > 0, out);
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  const budget = values['time-budget'] === undefined ? undefined : positiveIntegerFlag('--time-budget', values['time-budget'], 'seconds');
  if (values.examples !== undefined && values.examples !== 'none' && values.examples !== 'all') {
    throw usageError(`--examples must be "all" or "none", got "${values.examples}"`);
  }
  // A run of nothing would pass having checked nothing.
  if (values.examples === 'none' && runs === 0 && !values.exhaustive && values.path === undefined)
    throw usageError('nothing to check: --examples none and --runs 0 (give random traces, the examples or --exhaustive)');
  const linkBase = linkBaseFlag(values['link-base']);
  checkedOutDir('--out', values.out);
  // All input is read and checked before the system under test starts.
  const load = (paths: readonly string[]): TraceSource[] =>
    values.examples === 'none' ? [] : paths.map((path) => ({ path, trace: loadCheckedTrace(path) }));
  const examples = load(specExamplePaths());
  const regressions = load(regressionTracePaths());
  // The budget bounds the whole command: everything stops at it as at an interrupt.
  const bounded = withDeadline(out.signal, budget === undefined ? undefined : budget * 1000, `--time-budget ${budget}`);
  const signal = bounded.signal;
  const system = buildSystem(values.sut, values, signal, level === undefined ? undefined : [level]);
  out.stderr(`streamjoin conform: seed ${seed} (replay: --seed=${seed})${shard ? `; shard ${shard.index}/${shard.count}` : ''}\n`);
  const covers = values.exhaustive ? lazyCovers(scenarios, out, signal) : undefined;
  const live = new LiveProgress(out, 'streamjoin conform');
  live.part('conform');
  let report: ConformReport;
  try {
    report = await runConform({
      system,
      ...(level !== undefined ? { levels: [level] } : {}),
      seed,
      runs,
      ...(values.path !== undefined ? { path: values.path } : {}),
      examples,
      regressions,
      ...(covers !== undefined ? { exhaustive: covers } : {}),
      ...(budget !== undefined ? { timeBudgetMs: budget * 1000 } : {}),
      ...(shard ? { shard } : {}),
      progress: (line) => live.line(line),
      tick: (line: string) => live.tick(line),
      ...(signal ? { signal } : {}),
    });
  } finally {
    bounded.dispose();
    live.stop();
    await system.close();
  }
  // After the system is closed: each counterexample's stderr (its own trace's) is complete by now.
  const written = writeCounterexamples(report, values.out, invocationOf(out), values.sut, values.itf, linkBase);
  const json = conformJson(report, written);
  if (values.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) out.stdout(conformSummary(report, written, EXHAUSTIVE_SCENARIOS.length));
  emitReports([conformCases(json)], reporters, out, values.json);
  return json.exitCode;
}
