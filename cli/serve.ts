// `streamjoin serve`: a system under test over protocol v2 (spec/PROTOCOL.md)
// on stdin/stdout, at every level. By default the implementation (impl/),
// with its durable parts in memory or, with --data, on disk; --model serves
// the reference model instead.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createProtocolServer, serveStream, type ProtocolServer } from '../conformance/adapters/protocolServer.ts';
import { envOf } from './output.ts';
import { KILL_AT_WRITE_VARIABLE } from '../conformance/kill/killRun.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { implSut, implSutOf } from '../conformance/adapters/implSut.ts';
import { builtInImpl } from '../conformance/adapters/implOperator.ts';
import type { InProcessSut } from '../conformance/sut/sut.ts';
import { MUTANTS, mutantNamed } from '../conformance/mutants/catalogue.ts';
import { mutantBuildProblem, mutantSut } from '../conformance/adapters/mutantSut.ts';
import type { Output } from './output.ts';
import { EXIT, positiveIntegerFlag, usageError } from './exitCodes.ts';
import { checkedOutDir, parseCommandArgs } from './options.ts';

export const serveHelp = `streamjoin serve [--model | --mutant NAME] [--data DIR] [--record DIR] [--max-line BYTES]

Serves a system under test over protocol v2 (spec/PROTOCOL.md): one JSON
request per line on stdin, one JSON reply per line on stdout, at every level
(operator, cluster, faults). Ends when stdin ends.

  (no flag)         serve the implementation (impl/), durable parts in memory
  --data DIR        the implementation with its durable parts on disk: each
                    session (init) gets a fresh directory under DIR, removed
                    when the session ends, when stdin ends, and on SIGINT or
                    SIGTERM; DIR must exist and be writable (checked at start)
  --model           serve the reference model instead (a reference for third
                    parties and for the harness's own tests)
  --mutant NAME     serve a mutant of the implementation (streamjoin mutants --list):
                    what a mutant's counterexample replays against. It needs a
                    checkout of streamjoin with its development dependencies
                    (npm ci): a mutant patches the TypeScript sources, which the
                    installed package does not have (254 there)
  --record DIR      record each cluster session's history for streamjoin audit
                    (docs/audit.md): DIR/session-NNNN/ gets log.jsonl (what the
                    log appended), sink.jsonl (what the sink applied) and
                    config.json; when the session ends the cluster is brought
                    back to quiescence first, so the history is complete
  --max-line BYTES  cap on a request line (default ${DEFAULT_MAX_LINE_BYTES}); a longer
                    line is answered with error 12 (malformed_request)
                    and skipped

Ends when stdin ends or on SIGINT or SIGTERM (the session closed, its
directory removed). Exit codes: the one table of \`streamjoin help\` (SPEC
§8). Here 0: ended; 254: usage, or --data not writable.`;

export async function serveCommand(args: readonly string[], out: Output, input: NodeJS.ReadableStream): Promise<number> {
  const { values } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: false,
      options: {
        model: { type: 'boolean', default: false },
        mutant: { type: 'string' },
        data: { type: 'string' },
        record: { type: 'string' },
        'max-line': { type: 'string' },
      },
    },
    'serve',
  );
  if (values.model && values.record !== undefined) throw usageError('--record is for the implementation (and its mutants)');
  // Checked at start, as --data is: a history that cannot be written is found before a session, not by the harness as an error.
  if (values.record !== undefined) checkedOutDir('--record', values.record);
  const killHook = killAtWriteHook(envOf(out)[KILL_AT_WRITE_VARIABLE]);
  if (killHook !== undefined && values.data === undefined)
    throw usageError(`${KILL_AT_WRITE_VARIABLE} needs --data: it kills at a durable write`);
  const dirs = {
    ...(values.data !== undefined ? { dataDir: values.data } : {}),
    ...(values.record !== undefined ? { recordDir: values.record } : {}),
    ...(killHook !== undefined ? { onWritePoint: killHook.writePoint } : {}),
  };
  const maxLine = values['max-line'] === undefined ? DEFAULT_MAX_LINE_BYTES : positiveIntegerFlag('--max-line', values['max-line']);
  if (values.model && values.data !== undefined) throw usageError('--data is for the implementation; the model keeps no durable parts');
  if (values.data !== undefined && !(existsSync(values.data) && statSync(values.data).isDirectory())) {
    throw usageError(`--data ${values.data}: not an existing directory`);
  }
  if (values.data !== undefined) {
    const problem = sessionDirProblem(values.data);
    if (problem) throw usageError(`--data ${values.data}: cannot create a session directory there (${problem})`);
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
  else if (mutant !== undefined) sut = await mutantSut(mutant, dirs);
  else if (values.data !== undefined || values.record !== undefined) sut = implSutOf(builtInImpl, dirs);
  else sut = implSut;
  const server = createProtocolServer(sut);
  const counted: ProtocolServer =
    killHook === undefined
      ? server
      : {
          ...server,
          handle(line) {
            killHook.request();
            return server.handle(line);
          },
        };
  await serveStream(counted, input, (text) => out.stdout(text), maxLine, out.signal);
  // Interrupted: stdin is still open; let go of it so the process can end.
  if (out.signal?.aborted && 'destroy' in input && typeof input.destroy === 'function') input.destroy();
  return EXIT.pass;
}

/**
 * Kill mode's test hook (PROTOCOL.md, "Kill mode"): with
 * `STREAMJOIN_KILL_AT_WRITE=L:N` in its environment, `serve --data` kills
 * itself with SIGKILL at the Nth durable write point (a journal half
 * written, synced; a temporary file written, renamed; ...) of the Lth
 * request line it reads, counting from 1 since it started. So the harness
 * reaches the crash points inside the implementation's own writes.
 */
function killAtWriteHook(value: string | undefined): { request(): void; writePoint(): void } | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^([1-9][0-9]*):([1-9][0-9]*)$/.exec(value);
  if (m === null) throw usageError(`${KILL_AT_WRITE_VARIABLE}=${value}: expected LINE:WRITE, two positive integers`);
  const line = Number(m[1]);
  const write = Number(m[2]);
  let lines = 0;
  let writes = 0;
  return {
    request() {
      lines++;
      writes = 0;
    },
    writePoint() {
      if (lines === line && ++writes === write) process.kill(process.pid, 'SIGKILL');
    },
  };
}

/**
 * Why a session directory cannot be made under `dir`, or undefined: found
 * by making one and removing it (permissions alone do not say: a read-only
 * file system, or root on /sys).
 */
function sessionDirProblem(dir: string): string | undefined {
  try {
    rmSync(mkdtempSync(join(dir, 'session-')), { recursive: true, force: true });
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : (code ?? String(e));
  }
}
