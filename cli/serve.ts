// `streamjoin serve`: a system under test over protocol v2 (spec/PROTOCOL.md)
// on stdin/stdout, at every level. By default the implementation (impl/),
// with its durable parts in memory or, with --data, on disk; --model serves
// the reference model instead.
import { existsSync, statSync } from 'node:fs';
import { createProtocolServer, serveStream } from '../conformance/adapters/protocolServer.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import { implSut, implSutOf } from '../conformance/adapters/implSut.ts';
import { builtInImpl } from '../conformance/adapters/implOperator.ts';
import type { InProcessSut } from '../conformance/adapters/sut.ts';
import { MUTANTS, mutantNamed } from '../conformance/mutants/catalogue.ts';
import { mutantBuildProblem, mutantSut } from '../conformance/mutants/load.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, positiveIntegerFlag, usageError } from './exitCodes.ts';

export const serveHelp = `streamjoin serve [--model | --mutant NAME] [--data DIR] [--max-line BYTES]

Serves a system under test over protocol v2 (spec/PROTOCOL.md): one JSON
request per line on stdin, one JSON reply per line on stdout, at every level
(operator, cluster, faults). Ends when stdin ends.

  (no flag)         serve the implementation (impl/), durable parts in memory
  --data DIR        the implementation with its durable parts on disk: each
                    session (init) gets a fresh directory under DIR, removed
                    when the session ends; DIR must exist
  --model           serve the reference model instead (a reference for third
                    parties and for the harness's own tests)
  --mutant NAME     serve a mutant of the implementation (streamjoin mutants --list):
                    what a mutant's counterexample replays against
  --max-line BYTES  cap on a request line (default ${DEFAULT_MAX_LINE_BYTES}); a longer
                    line is answered with error 12 (malformed_request)
                    and skipped

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: stdin
ended.`;

export async function serveCommand(args: readonly string[], out: Output, input: NodeJS.ReadableStream): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    allowPositionals: false,
    options: {
      model: { type: 'boolean', default: false },
      mutant: { type: 'string' },
      data: { type: 'string' },
      'max-line': { type: 'string' },
    },
  });
  const maxLine = values['max-line'] === undefined ? DEFAULT_MAX_LINE_BYTES : positiveIntegerFlag('--max-line', values['max-line']);
  if (values.model && values.data !== undefined) throw usageError('--data is for the implementation; the model keeps no durable parts');
  if (values.data !== undefined && !(existsSync(values.data) && statSync(values.data).isDirectory())) {
    throw usageError(`--data ${values.data}: not an existing directory`);
  }
  if (values.model && values.mutant !== undefined) throw usageError('--model and --mutant exclude each other');
  const mutant = values.mutant === undefined ? undefined : mutantNamed(values.mutant);
  if (values.mutant !== undefined && mutant === undefined) {
    throw usageError(`--mutant: unknown mutant "${values.mutant}"; the mutants are ${MUTANTS.map((m) => m.name).join(', ')}`);
  }
  const problem = mutant !== undefined ? mutantBuildProblem() : undefined;
  if (problem) throw usageError(problem);
  let sut: InProcessSut;
  if (values.model) sut = modelSut;
  else if (mutant !== undefined) sut = await mutantSut(mutant, values.data !== undefined ? { dataDir: values.data } : {});
  else if (values.data !== undefined) sut = implSutOf(builtInImpl, { dataDir: values.data });
  else sut = implSut;
  await serveStream(createProtocolServer(sut), input, (text) => out.stdout(text), maxLine);
  return EXIT.pass;
}
