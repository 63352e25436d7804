// The streamjoin command line: parses arguments, calls the API, maps results
// to exit codes. Nothing else lives here.
import { InputError } from '../spec/index.ts';
import { runCommand, runHelp, exampleTracePaths, runTraces } from './run.ts';
import { EXIT, worstExit } from './exitCodes.ts';
import { checkCommand, checkHelp } from './check.ts';
import type { Output } from './output.ts';
import { serveCommand, serveHelp } from './serve.ts';
import { conformCommand, conformHelp } from './conform.ts';
import { replayCommand, replayHelp } from './replay.ts';
import { mutantsCommand, mutantsHelp } from './mutants.ts';
import { viewCommand, viewHelp } from './view.ts';
import { exploreCommand, exploreHelp } from './explore.ts';

export const mainHelp = `streamjoin — formal model and conformance harness for a resharded streaming interval join

Usage: streamjoin <command> [options]

Commands:
  ci                 the main job: the example traces, check --preset ci, then conform --sut impl
                     --exhaustive (the implementation against the model, every scenario interleaving)
  run [TRACE...]     validate operator traces and run the reference model over them
  check              model-check a preset (streamjoin check --list), or --replay a counterexample
  conform --sut CMD  check a system under test against the model, trace for trace
  replay FILE --sut CMD   replay one trace (a counterexample) against a system
  serve [--model]    serve the implementation (or the reference model) over the conformance protocol
  mutants            run the harness against every mutant of the implementation: each must be killed
  view FILE          a counterexample in its self-contained HTML viewer (path and URL; --open)
  explore            walk the model by hand in a local web page (enabled and refused actions, properties)
  help [COMMAND]     this text, or a command's

Exit codes (every command, SPEC §8):
  0    pass: every check holds (conforms, every mutant killed, bound exhausted)
  1    failure: a violation, a divergence, a surviving mutant, an unmet expectation
  2    unknown: a budget ran out, or the system under test is dead, hung or
       babbling; never a pass
  254  bad input or usage: one line \`where: SJnnn message\`
  255  internal error: a bug in streamjoin (please report it with the command line)

Environment: STREAMJOIN_SEED fixes the seed of every random run.`;

const helps: Record<string, string> = {
  run: runHelp,
  check: checkHelp,
  conform: conformHelp,
  replay: replayHelp,
  serve: serveHelp,
  mutants: mutantsHelp,
  view: viewHelp,
  explore: exploreHelp,
};

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
  { title: 'example traces through the reference model', run: (out) => runTraces(exampleTracePaths(), out, { json: false }) },
  { title: 'streamjoin check --preset ci', run: (out) => checkCommand(['--preset', 'ci'], out) },
  {
    title: 'streamjoin conform --sut impl --exhaustive: the implementation against the model',
    run: async (out) => {
      const seed = process.env['STREAMJOIN_SEED'];
      const code = await conformCommand(
        ['--sut', 'impl', '--exhaustive', ...(seed !== undefined && seed !== '' ? ['--seed', seed] : [])],
        out,
      );
      // conform's own usage code (254) is this job's bad input (2); its 1 (a divergence) and 2 (unknown) stand.
      return code === 254 ? EXIT.badInput : code;
    },
  },
];

/** Runs every part, numbered, whatever the earlier ones returned; the worst exit code wins (`worstExit`). */
export async function ciJob(out: Output, parts: readonly CiPart[] = CI_PARTS): Promise<number> {
  const codes: number[] = [];
  for (const [i, part] of parts.entries()) {
    out.stdout(`${i > 0 ? '\n' : ''}== ${i + 1}. ${part.title} ==\n`);
    codes.push(await part.run(out));
  }
  return worstExit(codes);
}

function dispatch(argv: readonly string[], out: Output): number | Promise<number> {
  const [command, ...rest] = argv;
  if (rest.includes('--help') || rest.includes('-h')) {
    out.stdout(`${helps[command ?? ''] ?? mainHelp}\n`);
    return EXIT.pass;
  }
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out.stdout(`${helps[rest[0] ?? ''] ?? mainHelp}\n`);
      return EXIT.pass;
    case 'ci':
      return ciJob(out);
    case 'run':
      return runCommand(rest, out);
    case 'conform':
      return conformCommand(rest, out);
    case 'replay':
      return replayCommand(rest, out);
    case 'serve':
      return serveCommand(rest, out, process.stdin);
    case 'mutants':
      return mutantsCommand(rest, out);
    case 'check':
      return checkCommand(rest, out);
    case 'view':
      return viewCommand(rest, out);
    case 'explore':
      return exploreCommand(rest, out, process.stdin);
    default:
      out.stderr(`streamjoin: unknown command "${command}"\n\n${mainHelp}\n`);
      return EXIT.badInput;
  }
}

/** Runs the CLI; returns the process exit code (a promise for the commands that drive processes). */
export function main(argv: readonly string[], out: Output): number | Promise<number> {
  try {
    const code = dispatch(argv, out);
    return typeof code === 'number' ? code : code.catch((e: unknown) => failure(e, out));
  } catch (e) {
    return failure(e, out);
  }
}

function failure(e: unknown, out: Output): number {
  if (e instanceof InputError) {
    out.stderr(`${e.format()}\n`);
    return EXIT.badInput;
  }
  out.stderr(`streamjoin: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  return EXIT.internal;
}
