// The process around the CLI: arguments from argv, output to the process's
// streams, the exit code from `main`. bin/streamjoin.js loads this module,
// compiled (dist/cli/bin.js) or, for mutation testing in a checkout, as
// TypeScript through tsx.
import { basename, join, relative } from 'node:path';
import { quickAnswer } from './mainHelp.ts';

/**
 * How a printed command (replay a counterexample) starts: `streamjoin` when
 * it was run from the PATH (a global install), else `npx streamjoin`, which
 * works wherever streamjoin is installed and in a checkout of it, so a
 * command copied from a counterexample file runs on another machine too.
 */
function invocation(): string[] {
  const script = process.argv[1] ?? '';
  const local = relative(process.cwd(), script);
  if (basename(script) === 'streamjoin' && local !== join('node_modules', '.bin', 'streamjoin')) return ['streamjoin'];
  return ['npx', 'streamjoin'];
}

// A reader that stops reading (`| head`, a closed pipe) makes the next write
// fail with EPIPE, emitted as an 'error' event that would otherwise end the
// process with a stack trace and exit 1. What the reader did not want is not
// the command's failure: writes to a closed stream are dropped, and the exit
// code stays the command's.
const closed = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    closed.add(stream);
  });
}
const writeTo = (stream: NodeJS.WriteStream, text: string): void => {
  if (!closed.has(stream)) stream.write(text);
};

// `help` and `--version` answer without loading the commands (the model, the harness, ajv, fast-check).
const quick = quickAnswer(process.argv.slice(2));
if (quick !== undefined) writeTo(process.stdout, `${quick}\n`);
else {
  const { exitSoon, installInterrupts, refuseStrayEnds } = await import('./interrupts.ts');
  const argv = process.argv.slice(2);
  const stderr = (text: string): void => writeTo(process.stderr, text);
  // Every command gets SIGINT and SIGTERM as an AbortSignal: it stops, reports what it has, and exits.
  // Installed before the commands load, so that a signal while they load is heard too (the command then stops at once).
  const interrupts = installInterrupts(stderr);
  // Under --json every outcome is a JSON document on stdout: a stray end too (main.ts, the error report).
  const { errorReportText } = await import('./version.ts');
  const finished = refuseStrayEnds(
    argv[0] ?? 'the command',
    stderr,
    argv.includes('--json') ? (text) => writeTo(process.stdout, `${errorReportText(text)}\n`) : undefined,
  );
  if (argv[0] === 'check') (await import('./searchHeap.ts')).keepNurserySmall();
  const { main } = await import('./main.ts');
  const code = await main(argv, {
    stdout: (text) => writeTo(process.stdout, text),
    stderr,
    interactive: Boolean(process.stderr.isTTY),
    invocation: invocation(),
    signal: interrupts.signal,
  });
  interrupts.dispose();
  finished();
  process.exitCode = code;
  // Nothing a command started may keep the process alive (a system under test, a pipe, a server);
  // after an interrupt the user waits for the exit, so the grace is short.
  exitSoon(code, interrupts.signal.aborted ? 500 : 2000, stderr);
}
