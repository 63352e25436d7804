// The streamjoin command line: parses arguments, calls the API, maps results
// to exit codes. Nothing else lives here.
import { InputError, Interrupted, releaseInputs } from '../spec/index.ts';
import { EXIT, usageError, worstExit } from './exitCodes.ts';
import type { Output } from './output.ts';
import { ERROR_REPORT_FORMAT, errorReport } from './version.ts';
import { mainHelp, versionText } from './mainHelp.ts';

export { mainHelp };

const ciHelp = `Usage: streamjoin ci

The main job, what the README's CI runs: the example traces through the
reference model, check --preset ci, then conform --sut impl --exhaustive
(the implementation against the model, every scenario interleaving). It
takes no arguments; STREAMJOIN_SEED fixes the seed of its random traces.
Every part runs whatever the others returned; the worst exit code wins.

Exit codes: 0 every part passed, 1 a part failed, 2 unknown (a part could
not finish, or the job was interrupted; never a pass), 254 bad usage, 255
an internal error of streamjoin.`;

/** A command: how it runs, and its help text. */
interface Command {
  readonly run: (args: readonly string[], out: Output) => number | Promise<number>;
  readonly help: string;
}

/**
 * The commands, each loaded when it is asked for: a command loads its own
 * modules and no other's (what `check` needs is not what `audit` or
 * `conform` need), which keeps every command's start-up and memory its own.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => {
    const m = await import('./run.ts');
    return { run: m.runCommand, help: m.runHelp };
  },
  check: async () => {
    const m = await import('./check.ts');
    return { run: (args, out) => m.checkCommand(args, out), help: m.checkHelp };
  },
  conform: async () => {
    const m = await import('./conform.ts');
    return { run: m.conformCommand, help: m.conformHelp };
  },
  replay: async () => {
    const m = await import('./replay.ts');
    return { run: m.replayCommand, help: m.replayHelp };
  },
  serve: async () => {
    const m = await import('./serve.ts');
    return { run: (args, out) => m.serveCommand(args, out, process.stdin), help: m.serveHelp };
  },
  mutants: async () => {
    const m = await import('./mutants.ts');
    return { run: m.mutantsCommand, help: m.mutantsHelp };
  },
  'merge-reports': async () => {
    const m = await import('./mergeReports.ts');
    return { run: m.mergeReportsCommand, help: m.mergeReportsHelp };
  },
  view: async () => {
    const m = await import('./view.ts');
    return { run: m.viewCommand, help: m.viewHelp };
  },
  explore: async () => {
    const m = await import('./explore.ts');
    return { run: (args, out) => m.exploreCommand(args, out, process.stdin), help: m.exploreHelp };
  },
  audit: async () => {
    const m = await import('./audit.ts');
    return { run: m.auditCommand, help: m.auditHelp };
  },
  ci: async () => ({ run: (_args, out) => ciJob(out), help: ciHelp }),
};

/** The command named `name`, if there is one (an own key: `constructor` or `toString` names none). */
const commandNamed = (name: string): (() => Promise<Command>) | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);

/** Prints the help of `word` (a command; undefined or a help word: the main help); a word that is neither is an unknown command. */
function printHelp(word: string | undefined, out: Output): Promise<number> {
  const load = word === undefined ? undefined : commandNamed(word);
  if (word !== undefined && load === undefined && !HELP_WORDS.includes(word)) throw unknownCommand(word);
  return (load === undefined ? Promise.resolve(mainHelp) : load().then((c) => c.help)).then((text) => {
    out.stdout(`${text}\n`);
    return EXIT.pass;
  });
}

/** One part of the main job: a title, and the command it runs (its exit code). */
export interface CiPart {
  readonly title: string;
  readonly run: (out: Output) => number | Promise<number>;
}

/**
 * The main job (README): the examples, the `ci` model check, then the
 * conformance suite against the built-in implementation in-process (every
 * example, every interleaving of the exhaustive scenarios, random traces;
 * STREAMJOIN_SEED fixes their seed).
 */
export const CI_PARTS: readonly CiPart[] = [
  {
    title: 'example traces through the reference model',
    run: async (out) => {
      const [{ runTraces }, { operatorExamplePaths }] = await Promise.all([
        import('./run.ts'),
        import('../conformance/job/traceFilesPart.ts'),
      ]);
      return runTraces(operatorExamplePaths(), out, { json: false });
    },
  },
  { title: 'streamjoin check --preset ci', run: async (out) => (await import('./check.ts')).checkCommand(['--preset', 'ci'], out) },
  {
    title: 'streamjoin conform --sut impl --exhaustive: the implementation against the model',
    run: async (out) => {
      const seed = process.env['STREAMJOIN_SEED'];
      const { conformCommand } = await import('./conform.ts');
      const code = await conformCommand(
        ['--sut', 'impl', '--exhaustive', ...(seed !== undefined && seed !== '' ? ['--seed', seed] : [])],
        out,
      );
      // conform's own usage code (254) is this job's bad input (2); its 1 (a divergence) and 2 (unknown) stand.
      return code === 254 ? EXIT.badInput : code;
    },
  },
];

/**
 * Runs every part, numbered, whatever the earlier ones returned; the worst
 * exit code wins (`worstExit`). Once interrupted, the parts not begun are
 * listed as not run (unknown: never a pass).
 */
export async function ciJob(out: Output, parts: readonly CiPart[] = CI_PARTS): Promise<number> {
  const codes: number[] = [];
  for (const [i, part] of parts.entries()) {
    out.stdout(`${i > 0 ? '\n' : ''}== ${i + 1}. ${part.title} ==\n`);
    if (out.signal?.aborted) {
      out.stdout('not run: the job was interrupted\n');
      codes.push(EXIT.unknown);
      continue;
    }
    try {
      codes.push(await part.run(out));
    } catch (e) {
      // A part's bad input (a working directory it cannot write, say) is that part's 254: the other parts still run.
      if (!(e instanceof InputError)) throw e;
      out.stderr(`${e.format()}\n`);
      codes.push(EXIT.badInput);
    }
  }
  const code = worstExit(codes);
  // One line that says how the whole job went, each part's exit code with it.
  const word = code === EXIT.pass ? 'PASS' : code === EXIT.fail ? 'FAIL' : code === EXIT.unknown ? 'UNKNOWN' : 'ERROR';
  out.stdout(`\n== ci: ${word} (exit ${code}; ${codes.map((c, i) => `part ${i + 1}: ${c}`).join(', ')}) ==\n`);
  return code;
}

function dispatch(argv: readonly string[], out: Output): number | Promise<number> {
  const [command, ...rest] = argv;
  if (rest.includes('--help') || rest.includes('-h')) return printHelp(command, out);
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return printHelp(rest[0], out);
    case '--version':
    case '-V':
    case 'version':
      out.stdout(`${versionText()}\n`);
      return EXIT.pass;
    case 'ci':
      // The job is fixed (STREAMJOIN_SEED is its one knob): an argument is a mistake, never something it would ignore.
      if (rest.length > 0) throw usageError(`ci takes no arguments, got "${rest[0]}" (streamjoin help ci)`);
      return ciJob(out);
  }
  const load = commandNamed(command);
  if (load === undefined) throw unknownCommand(command);
  return load().then((c) => c.run(rest, out));
}

/** Words that ask for help or the version rather than name a command. */
const HELP_WORDS: readonly string[] = ['help', '--help', '-h', 'version', '--version', '-V'];

function unknownCommand(command: string): Error {
  const names = ['ci', ...Object.keys(COMMANDS).filter((n) => n !== 'ci'), 'help'];
  return usageError(`unknown command "${command}"; the commands are ${names.join(', ')} (streamjoin help)`);
}

/**
 * Runs the CLI; returns the process exit code (a promise for the commands
 * that read input ahead or drive processes). Every command stops cleanly on
 * `out.signal` (SIGINT, SIGTERM: cli/interrupts.ts): it reports what it has
 * with verdict unknown (exit 2, never a pass), stops what it started and
 * writes nothing half. The servers (`serve`, `explore`) take it as their
 * ordinary end.
 */
export function main(argv: readonly string[], out: Output): number | Promise<number> {
  // Under --json every outcome is a JSON document on stdout, errors included.
  const json = argv.includes('--json');
  try {
    const code = dispatch(argv, out);
    if (typeof code === 'number') {
      releaseInputs();
      return code;
    }
    return code.catch((e: unknown) => failure(e, out, json)).finally(releaseInputs);
  } catch (e) {
    releaseInputs();
    return failure(e, out, json);
  }
}

export { ERROR_REPORT_FORMAT };

function failure(e: unknown, out: Output, json: boolean): number {
  if (e instanceof Interrupted) return interrupted(e, out, json);
  const input = e instanceof InputError;
  const code = input ? EXIT.badInput : EXIT.internal;
  const text = input ? e.format() : `streamjoin: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
  out.stderr(`${text}\n`);
  if (json)
    out.stdout(
      `${errorReport(
        input ? 'bad-input' : 'internal-error',
        code,
        input
          ? { code: e.code, where: e.where, message: e.message }
          : { code: null, where: null, message: e instanceof Error ? e.message : String(e) },
        text,
      )}\n`,
    );
  return code;
}

/**
 * A command interrupted before it had anything to report (while it read its
 * input): verdict unknown, exit 2; never a pass.
 */
function interrupted(e: Interrupted, out: Output, json: boolean): number {
  const text = `streamjoin: ${e.message}; nothing was judged (exit ${EXIT.unknown})`;
  out.stderr(`${text}\n`);
  if (json) out.stdout(`${errorReport('interrupted', EXIT.unknown, { code: null, where: null, message: e.message }, text)}\n`);
  return EXIT.unknown;
}
