// `streamjoin explore`: serves the interactive explorer of the model on
// 127.0.0.1 (a free port unless --port), prints its URL, and runs until
// SIGINT or SIGTERM (the CLI's abort signal), or until stdin ends when stdin
// is not a terminal (so a parent process can stop it by closing the pipe).
// Whichever comes first stops it: the server closes, stdin is let go, and
// the process ends, whatever stdin still is.
import { abortReason, loadCheckConfig, readInputsAhead, readTextFile } from '../spec/index.ts';
import { loadIntoExplorer, type ModelSpec } from '../explore/session.ts';
import { startExploreServer } from '../explore/server.ts';
import type { Output } from './output.ts';
import { EXIT, positiveIntegerFlag, usageError } from './exitCodes.ts';
import { parseCommandArgs } from './options.ts';

export const exploreHelp = `streamjoin explore [--preset NAME | --config FILE | --load FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                   [--port N]

Serves a local web page (127.0.0.1, a free port; the URL is printed) to walk
the model by hand: the cluster model of a preset (or the join model of a join
preset) from its initial state. The page draws the current state as the
nodes and the sink, lists the enabled actions (take one by clicking it) and
the refused ones with the reason the model gives, shows the properties'
verdicts on the current state, and goes back and forward along the path
(← → j k Home). A counterexample file (streamjoin check's, a conformance
trace, or either as ITF) can be loaded from the page or with --load, and
stepped through. The URL holds the model and the path: share it to share a
state.

  --preset NAME       the model (default smoke; streamjoin check --list names them)
  --config FILE       a saved check configuration (streamjoin/check-config@1)
  --bound NAME=VALUE  override a bound of the preset (repeatable)
  --ablate ELEMENT    switch off a protocol element
  --load FILE         start on a counterexample or trace file (streamjoin or ITF)
  --port N            listen on this port instead of a free one

How it stops: on SIGINT (Ctrl-C) or SIGTERM, at once, whatever its stdin is
(a terminal, a pipe still open, /dev/null); and, when stdin is not a
terminal, when stdin ends (a parent process stops it by closing the pipe).
Nothing but 127.0.0.1 is listened on or reached.

Exit codes: 0 stopped (by a signal or the end of stdin); 2 interrupted while
reading --config or --load (a FIFO, a pipe); 254 bad input or usage. 255 is
an internal error of streamjoin.`;

function boundsOf(list: readonly string[] | undefined): Record<string, number> {
  const bounds: Record<string, number> = {};
  for (const b of list ?? []) {
    const m = /^([A-Za-z]\w*)=(\d+)$/.exec(b);
    if (!m) throw usageError(`--bound must be NAME=VALUE with an integer value, got "${b}"`);
    bounds[m[1] as string] = Number(m[2]);
  }
  return bounds;
}

/** Runs the explorer until a signal or the end of `stdin`. */
export async function exploreCommand(
  args: readonly string[],
  out: Output,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  const { values } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: false,
      options: {
        preset: { type: 'string' },
        config: { type: 'string' },
        bound: { type: 'string', multiple: true },
        ablate: { type: 'string' },
        load: { type: 'string' },
        port: { type: 'string' },
      },
    },
    'explore',
  );
  const sources = [values.preset, values.config, values.load].filter((x) => x !== undefined);
  if (sources.length > 1) throw usageError('give one of --preset, --config and --load');
  await readInputsAhead([values.config, values.load], { signal: out.signal });
  let start: { spec: ModelSpec; path: unknown[] };
  if (values.load !== undefined) {
    if (values.bound || values.ablate) throw usageError('--load takes the model from the file: no --bound or --ablate');
    start = loadIntoExplorer(readTextFile(values.load), values.load);
  } else if (values.config !== undefined) {
    const c = loadCheckConfig(values.config);
    start = {
      spec: {
        preset: c.preset,
        bounds: { ...(c.bounds ?? {}), ...boundsOf(values.bound) },
        ...((values.ablate ?? c.ablate) ? { ablate: values.ablate ?? c.ablate } : {}),
      },
      path: [],
    };
  } else {
    start = {
      spec: { preset: values.preset ?? 'smoke', bounds: boundsOf(values.bound), ...(values.ablate ? { ablate: values.ablate } : {}) },
      path: [],
    };
  }
  const port = values.port === undefined ? 0 : positiveIntegerFlag('--port', values.port);
  if (port > 65_535) throw usageError(`--port must be a TCP port, 1 to 65535, got ${values.port}`);
  const server = await startExploreServer(start, port).catch((e: unknown) => {
    // A port taken or refused is the user's choice to change, not a bug of streamjoin.
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw usageError(`--port ${port}: ${code === 'EADDRINUSE' ? 'already in use' : 'not allowed'}`);
    throw e;
  });
  out.stdout(`streamjoin explore: ${server.url}\n`);
  out.stderr(`serving on 127.0.0.1 only; Ctrl-C${stdin.isTTY ? '' : ' (or the end of stdin)'} stops it\n`);
  const signal = out.signal;
  let why = 'stdin ended';
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      signal?.removeEventListener('abort', onSignal);
      stdin.off('end', stop);
      stdin.off('close', stop);
      // Let go of stdin: a pipe still open must not keep the process alive.
      stdin.pause();
      if ('destroy' in stdin && typeof stdin.destroy === 'function') stdin.destroy();
      resolve();
    };
    const onSignal = (): void => {
      why = abortReason(signal);
      stop();
    };
    if (signal?.aborted) onSignal();
    else signal?.addEventListener('abort', onSignal, { once: true });
    if (!stdin.isTTY && !signal?.aborted) {
      stdin.on('end', stop);
      stdin.on('close', stop);
      stdin.resume();
    }
  });
  await server.close();
  out.stderr(`streamjoin explore: stopped (${why})\n`);
  return EXIT.pass;
}
