// Input that is not a regular file: a FIFO, a pipe (/dev/stdin, a shell's
// <(...)), a character device. Reading one blocks the thread until bytes
// come, or forever: even opening a FIFO blocks until a writer opens it, and
// a blocked read holds Node's main thread (synchronous readers) or a thread
// of its pool (which then keeps the process from exiting at all). So a
// command reads such an input ahead, before anything else reads it: the
// bytes are copied, as they arrive, to a temporary regular file, on the
// event loop (the FIFO opened without blocking, read as a socket is), so the
// copy stops at once when the command is interrupted or its budget runs
// out. Every reader then opens `fileToOpen(path)`: the copy, under the name
// the user gave (so errors still name that file, its lines and columns),
// and a second pass (the audit's) reads the same bytes again. `-` names the
// standard input, whatever it is (a pipe, a file, a terminal): it is always
// read ahead.
import { constants, createReadStream, createWriteStream, fstatSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError } from './errors.ts';
import { Interrupted, abortReason } from './pacing.ts';
import type { AbortSignalLike } from './pacing.ts';

/** The name that stands for the standard input. */
export const STDIN_PATH = '-';
/** The names of the standard input: `-`, and its names in /dev and /proc (opened by name, a socket cannot be). */
const STDIN_NAMES: readonly string[] = [STDIN_PATH, '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'];

/** The path as given (and resolved) → the regular file holding its bytes. */
const copies = new Map<string, string>();
/** Temporary directories holding copies, removed by `releaseInputs`. */
const directories = new Set<string>();

/** The file a reader opens for `path`: `path` itself, or the copy of its bytes if it was read ahead. */
export function fileToOpen(path: string): string {
  return copies.get(path) ?? copies.get(resolve(path)) ?? path;
}

/** The inputs read ahead, as (path as given or resolved, its copy): for a worker thread, which has its own copy of this module. */
export function readAheadCopies(): [string, string][] {
  return [...copies];
}

/** In a worker thread: the read-ahead copies the main thread made (`readAheadCopies`), so its readers open the same files. */
export function adoptReadAheadCopies(entries: readonly (readonly [string, string])[]): void {
  for (const [path, copy] of entries) copies.set(path, copy);
}

/** How a read-ahead may stop early: the command's AbortSignal (an interrupt, or its budget: spec/pacing.ts `withDeadline`). */
export interface ReadAheadOptions {
  readonly signal?: AbortSignalLike | undefined;
}

/** Whether `path` is something other than a regular file or a directory (a FIFO, a character device); false if it cannot be stat'ed. */
export function needsReadAhead(path: string): boolean {
  if (STDIN_NAMES.includes(path)) return true;
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false; // the reader says what is wrong with it
  }
}

/**
 * Reads each input that is not a regular file ahead, into a temporary copy
 * (above). Resolves once every such input has ended; rejects with
 * Interrupted when the signal is aborted first (the copy is then removed),
 * with InputError SJ100 if one cannot be read.
 */
export async function readInputsAhead(paths: readonly (string | undefined)[], options: ReadAheadOptions = {}): Promise<void> {
  for (const path of paths) if (path !== undefined && !copies.has(path) && needsReadAhead(path)) await readAhead(path, options);
}

async function readAhead(path: string, options: ReadAheadOptions): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) throw new Interrupted(`${abortReason(signal)} before ${path} was read`);
  const directory = mkdtempSync(join(tmpdir(), 'streamjoin-input-'));
  directories.add(directory);
  const stdin = STDIN_NAMES.includes(path);
  const copy = join(directory, stdin ? 'stdin' : basename(path) || 'input');
  const fail = (e: unknown, permission = false): InputError => {
    rmSync(directory, { recursive: true, force: true });
    directories.delete(directory);
    const code = (e as NodeJS.ErrnoException).code;
    return new InputError(
      'SJ100',
      path,
      permission && (code === 'EACCES' || code === 'EPERM') ? 'permission denied' : `cannot read (${code ?? String(e)})`,
    );
  };
  let fd: number;
  let streamed: boolean;
  try {
    // The standard input is read from its descriptor, whatever it is: a pipe or a socket (which
    // /dev/stdin cannot be opened as: ENXIO), a file, a terminal.
    const st = stdin ? fstatSync(0) : statSync(path);
    streamed = st.isFIFO() || st.isSocket();
  } catch (e) {
    throw fail(e);
  }
  try {
    // O_NONBLOCK: opening a FIFO no writer has opened yet does not wait for one.
    fd = stdin ? 0 : openSync(path, streamed ? constants.O_RDONLY | constants.O_NONBLOCK : constants.O_RDONLY);
  } catch (e) {
    throw fail(e, true);
  }
  // A FIFO or a socket is read as a pipe is (epoll: no busy waiting; it ends when its last writer closes); a file or
  // a device by plain reads. Either stream closes the descriptor when it ends or is destroyed.
  // node:net is loaded here, not with spec/: it adds about 2 MB to every process that imports spec/ (the explorer's threads too).
  const input: Readable = streamed
    ? new (await import('node:net')).Socket({ fd, readable: true, writable: false })
    : createReadStream('', { fd });
  const sink = createWriteStream(copy);
  let onAbort: (() => void) | undefined;
  try {
    await new Promise<void>((done, fail) => {
      const stop = (e: Error): void => {
        input.destroy();
        sink.destroy();
        fail(e);
      };
      input.on('error', (e: NodeJS.ErrnoException) => stop(new InputError('SJ100', path, `cannot read (${e.code ?? e.message})`)));
      sink.on('error', (e: NodeJS.ErrnoException) => stop(new Error(`cannot copy ${path} to ${copy}: ${e.message}`)));
      onAbort = () => stop(new Interrupted(`${abortReason(signal)} while reading ${path}`));
      // The signal may have come while node:net loaded (above, after the input was opened): an abort
      // event already dispatched is not dispatched again to a listener added now.
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      sink.on('finish', () => done());
      input.pipe(sink);
    });
  } catch (e) {
    rmSync(directory, { recursive: true, force: true });
    directories.delete(directory);
    throw e;
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  copies.set(path, copy);
  copies.set(resolve(path), copy);
}

/** Removes every copy (the command is done, or stopping at once). Synchronous, so a signal handler can call it. */
export function releaseInputs(): void {
  for (const d of directories) rmSync(d, { recursive: true, force: true });
  directories.clear();
  copies.clear();
}
