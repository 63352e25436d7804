// `streamjoin serve --model`: the reference model as a system under test over
// protocol v1 (spec/PROTOCOL.md) on stdin/stdout, at every level. Phase 2
// serves the implementation from here too: the protocol server takes any
// in-process system.
import { parseArgs } from 'node:util';
import { createProtocolServer, serveStream } from '../conformance/protocolServer.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/lines.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import type { Output } from './output.ts';
import { CONFORM_EXIT, positiveInteger, usageFailure } from './conformArgs.ts';

export const serveHelp = `streamjoin serve --model [--max-line BYTES]

Serves the reference model over protocol v1 (spec/PROTOCOL.md): one JSON
request per line on stdin, one JSON reply per line on stdout, at every level
(operator, cluster, faults). A reference system under test for third parties
and for the harness's own tests. Ends when stdin ends.

  --model           serve the reference model (required for now)
  --max-line BYTES  cap on a request line (default ${DEFAULT_MAX_LINE_BYTES}); a longer
                    line is answered with error 10 and skipped

Exit codes: 0 stdin ended; 254 usage.`;

export async function serveCommand(args: readonly string[], out: Output, input: NodeJS.ReadableStream): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: { model: { type: 'boolean', default: false }, 'max-line': { type: 'string' } },
    }));
  } catch (e) {
    return usageFailure(out, e instanceof Error ? e.message : String(e));
  }
  if (!values.model) return usageFailure(out, 'serve needs --model (serving the implementation comes with phase 2)');
  let maxLine = DEFAULT_MAX_LINE_BYTES;
  if (values['max-line'] !== undefined) {
    const n = positiveInteger(values['max-line']);
    if (n === undefined) return usageFailure(out, `--max-line must be a positive integer, got "${values['max-line']}"`);
    maxLine = n;
  }
  await serveStream(createProtocolServer(modelSut), input, (text) => out.stdout(text), maxLine);
  return CONFORM_EXIT.pass;
}
