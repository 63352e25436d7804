// Files written completely or not at all (temporary file, then rename), so
// an interrupted run never leaves half a counterexample or half a report;
// piece by piece for output of any length (a trace of a million steps).
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../../spec/index.ts';

/** The nearest place at or above `dir` that exists (undefined: none), and the directories below it down to `dir`, deepest first. */
function nearestExisting(dir: string): { at: string | undefined; missing: string[] } {
  const missing: string[] = [];
  for (let at = resolve(dir); ; ) {
    if (existsSync(at)) return { at, missing };
    missing.push(at);
    const up = dirname(at);
    if (up === at) return { at: undefined, missing };
    at = up;
  }
}

/**
 * Creates `dir` and the directories above it that are missing, one level at
 * a time from the top. Not node's recursive mkdir: where a parent refuses a
 * child with ENOENT (under /proc) it retries forever, blocking the event loop
 * so that not even an interrupt is heard.
 */
export function makeDirectories(dir: string): void {
  const { missing } = nearestExisting(dir);
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (e) {
      // Another run made it meanwhile (shards sharing an --out, sessions sharing a --record): it is there, as asked.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw e;
    }
  }
}

/** The errors that say the path is wrong (not the disk full, nor the machine out of something): SJ113. */
const PATH_PROBLEMS: ReadonlySet<string> = new Set([
  'EISDIR',
  'ENOTDIR',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOENT',
  'EEXIST',
  'ENAMETOOLONG',
  'ELOOP',
]);

/**
 * A file the run could not write, as bad input (SJ113, exit 254): the path
 * the user gave (a directory, a file's child, a place they may not write),
 * not a bug of streamjoin. Anything else passes through unchanged.
 */
export function notWritten(path: string, e: unknown): unknown {
  if (e instanceof InputError) return e;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !PATH_PROBLEMS.has(code)) return e;
  const why = e instanceof Error ? e.message.replace(/^[A-Z]+: /, '') : code;
  return new InputError('SJ113', path, `cannot be written: ${why}`);
}

/** Removes a temporary file if it is there; never throws (under a file, rmSync's force still says ENOTDIR): a cleanup must not hide why it ran. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was made there.
  }
}

/** Writes a file completely or not at all: temporary file, then rename (`writeFilesAtomic` of one file). */
export function writeFileAtomic(path: string, text: string): void {
  writeFilesAtomic([{ path, text }]);
}

/**
 * Writes several files completely or not at all: every temporary file first,
 * then the renames. If anything fails before the renames, nothing is left.
 */
export function writeFilesAtomic(files: readonly { path: string; text: string }[]): void {
  const staged: { tmp: string; path: string }[] = [];
  let at = '';
  try {
    for (const { path, text } of files) {
      at = path;
      makeDirectories(dirname(path));
      const tmp = `${path}.${process.pid}.tmp`;
      staged.push({ tmp, path });
      writeFileSync(tmp, text);
    }
    // A path that is a directory refuses its rename: found before any file is put in place.
    for (const { path } of staged)
      if (existsSync(path) && statSync(path).isDirectory()) throw new InputError('SJ113', path, 'cannot be written: it is a directory');
    for (const { tmp, path } of staged) {
      at = path;
      renameSync(tmp, path);
    }
  } catch (e) {
    // The temporaries not yet renamed go; the files already in place stay (a failed rename is the path's, found above).
    for (const { tmp } of staged) removeQuietly(tmp);
    throw notWritten(at, e);
  }
}

/**
 * A file written piece by piece, completely or not at all: the pieces go to
 * a temporary file, `commit` renames it into place, `abort` removes it. For
 * output too long to hold as one string (a trace with a million steps).
 */
export class AtomicFileWriter {
  private readonly tmp: string;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(private readonly path: string) {
    this.tmp = `${path}.${process.pid}.tmp`;
    try {
      makeDirectories(dirname(path));
      this.fd = openSync(this.tmp, 'w');
    } catch (e) {
      throw notWritten(path, e);
    }
  }

  write(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.fd === undefined || this.pending.length === 0) return;
    try {
      writeSync(this.fd, this.pending.join(''));
    } catch (e) {
      this.abort();
      throw notWritten(this.path, e);
    }
    this.pending = [];
    this.pendingLength = 0;
  }

  /** Puts the file in place. */
  commit(): void {
    this.flush();
    this.close();
    try {
      renameSync(this.tmp, this.path);
    } catch (e) {
      removeQuietly(this.tmp);
      throw notWritten(this.path, e);
    }
  }

  /** Leaves nothing behind. */
  abort(): void {
    this.close();
    removeQuietly(this.tmp);
  }

  private close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Why files could not be written under `dir`, or undefined: checked
 * before the run, so that a divergence found is never lost to a bad --out.
 * Leaves nothing behind: its nearest existing ancestor must take a
 * directory made and removed at once (permission bits alone do not say it:
 * root passes them under /proc, which makes nothing).
 */
export function outDirProblem(dir: string): string | undefined {
  if (dir === '') return 'names no directory';
  const { at } = nearestExisting(dir);
  if (at === undefined) return 'no existing parent directory';
  if (!statSync(at).isDirectory()) return `${at} is not a directory`;
  try {
    accessSync(at, constants.W_OK);
    rmdirSync(mkdtempSync(join(at, '.streamjoin-probe-')));
  } catch {
    return `${at} is not writable`;
  }
  return undefined;
}

/** Why the file `path` could not be written, or undefined (`outDirProblem` for its directory; not a directory itself). */
export function outFileProblem(path: string): string | undefined {
  if (path === '' || /[/\\]$/.test(path)) return `${path || '""'} names no file`;
  if (existsSync(path) && statSync(path).isDirectory()) return `${path} is a directory`;
  return outDirProblem(dirname(path));
}
