// `streamjoin serve`: a system under test over protocol v1 (spec/PROTOCOL.md)
// on stdin/stdout, at every level. By default the implementation (impl/),
// with its durable parts in memory or, with --data, on disk; --model serves
// the reference model instead.
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { createProtocolServer, serveStream } from '../conformance/adapters/protocolServer.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import { implSut, implSutOf } from '../conformance/adapters/implSut.ts';
import { builtInImpl } from '../conformance/adapters/implOperator.ts';
import type { InProcessSut } from '../conformance/adapters/sut.ts';
import { MUTANTS, mutantNamed } from '../conformance/mutants/catalogue.ts';
import { mutantSut } from '../conformance/mutants/load.ts';
import type { Output } from './output.ts';
import { CONFORM_EXIT, positiveInteger, usageFailure } from './conformArgs.ts';

export const serveHelp = `streamjoin serve [--model | --mutant NAME] [--data DIR] [--max-line BYTES]

Serves a system under test over protocol v1 (spec/PROTOCOL.md): one JSON
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
                    line is answered with error 10 and skipped

Exit codes: 0 stdin ended; 254 usage.`;

export async function serveCommand(args: readonly string[], out: Output, input: NodeJS.ReadableStream): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        model: { type: 'boolean', default: false },
        mutant: { type: 'string' },
        data: { type: 'string' },
        'max-line': { type: 'string' },
      },
    }));
  } catch (e) {
    return usageFailure(out, e instanceof Error ? e.message : String(e));
  }
  let maxLine = DEFAULT_MAX_LINE_BYTES;
  if (values['max-line'] !== undefined) {
    const n = positiveInteger(values['max-line']);
    if (n === undefined) return usageFailure(out, `--max-line must be a positive integer, got "${values['max-line']}"`);
    maxLine = n;
  }
  if (values.model && values.data !== undefined)
    return usageFailure(out, '--data is for the implementation; the model keeps no durable parts');
  if (values.data !== undefined && !(existsSync(values.data) && statSync(values.data).isDirectory())) {
    return usageFailure(out, `--data ${values.data}: not an existing directory`);
  }
  if (values.model && values.mutant !== undefined) return usageFailure(out, '--model and --mutant exclude each other');
  const mutant = values.mutant === undefined ? undefined : mutantNamed(values.mutant);
  if (values.mutant !== undefined && mutant === undefined) {
    return usageFailure(out, `--mutant: unknown mutant "${values.mutant}"; the mutants are ${MUTANTS.map((m) => m.name).join(', ')}`);
  }
  let sut: InProcessSut;
  if (values.model) sut = modelSut;
  else if (mutant !== undefined) sut = await mutantSut(mutant, values.data !== undefined ? { dataDir: values.data } : {});
  else if (values.data !== undefined) sut = implSutOf(builtInImpl, { dataDir: values.data });
  else sut = implSut;
  await serveStream(createProtocolServer(sut), input, (text) => out.stdout(text), maxLine);
  return CONFORM_EXIT.pass;
}
