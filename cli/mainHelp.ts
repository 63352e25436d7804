// The main help text and the version line: what `streamjoin help` and
// `streamjoin --version` print. Kept free of every heavy import (the model,
// the harness, ajv, fast-check), so that bin.ts answers them at once.
import { SPEC_VERSION } from '../spec/constants.ts';
import { PROTOCOL_VERSION } from '../spec/protocol.ts';
import { STREAMJOIN_VERSION } from './version.ts';

export const mainHelp = `streamjoin — formal model and conformance harness for a resharded streaming interval join

Usage: streamjoin <command> [options]
       streamjoin --version

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
  merge-reports REPORT...  combine the --json reports of --shard K/N runs into one verdict
  audit --log F --sink F  check a recorded history (what went in, what the sink applied) against the spec;
                     audit --example DIR writes one to try it on
  help [COMMAND]     this text, or a command's

Exit codes (every command, SPEC §8):
  0    pass: every check holds (conforms, every mutant killed, bound exhausted)
  1    failure: a violation, a divergence, a surviving mutant, an unmet expectation
  2    unknown: a budget ran out, the system under test is dead, hung or
       babbling, or the command was interrupted; never a pass
  254  bad input or usage: one line \`where: SJnnn message\`
  255  internal error: a bug in streamjoin (please report it with the command line)

Reports for tools: --json prints one JSON document on stdout (its "format",
"streamjoin" version and "spec" version first; schemas in spec/schemas/reports/);
under --json a usage or input error is a JSON document on stdout too
(streamjoin/error-report@1), with the plain line on stderr. --reporter
junit=FILE and --reporter tap[=FILE] write CI reports; on GitHub Actions
failures become annotations and a step summary. --shard K/N splits a run
across CI machines. Set-up for CI: docs/ci.md.

SIGINT or SIGTERM (Ctrl-C) stops any command within a second: it prints what
it has (verdict unknown, exit 2), writes nothing half and stops what it
started; a second signal stops it at once. An input that is a FIFO or a pipe
is read ahead, so no command waits on one past an interrupt or its budget.

Environment: STREAMJOIN_SEED fixes the seed of every random run.`;

export function versionText(): string {
  return `streamjoin ${STREAMJOIN_VERSION} (spec ${SPEC_VERSION}, protocol ${PROTOCOL_VERSION})`;
}

/** `help` or `--version` alone: the text to print, or undefined for anything else. */
export function quickAnswer(argv: readonly string[]): string | undefined {
  if (argv.length === 0 || (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0] as string))) return mainHelp;
  if (argv.length === 1 && ['--version', '-V', 'version'].includes(argv[0] as string)) return versionText();
  return undefined;
}
