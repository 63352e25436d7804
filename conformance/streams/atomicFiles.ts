// Files written completely or not at all (temporary file, then rename), so
// an interrupted run never leaves half a counterexample or half a report;
// piece by piece for output of any length (a trace of a million steps).
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Writes a file completely or not at all: temporary file, then rename. */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Writes several files completely or not at all: every temporary file first,
 * then the renames. If anything fails before the renames, nothing is left.
 */
export function writeFilesAtomic(files: readonly { path: string; text: string }[]): void {
  const staged: { tmp: string; path: string }[] = [];
  try {
    for (const { path, text } of files) {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      staged.push({ tmp, path });
      writeFileSync(tmp, text);
    }
  } catch (e) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    throw e;
  }
  for (const { tmp, path } of staged) renameSync(tmp, path);
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
    mkdirSync(dirname(path), { recursive: true });
    this.tmp = `${path}.${process.pid}.tmp`;
    this.fd = openSync(this.tmp, 'w');
  }

  write(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.fd === undefined || this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
  }

  /** Puts the file in place. */
  commit(): void {
    try {
      this.flush();
    } catch (e) {
      this.abort();
      throw e;
    }
    this.close();
    renameSync(this.tmp, this.path);
  }

  /** Leaves nothing behind. */
  abort(): void {
    this.close();
    rmSync(this.tmp, { force: true });
  }

  private close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Why files could not be written under `dir`, or undefined: checked
 * before the run, so that a divergence found is never lost to a bad --out.
 * Creates nothing.
 */
export function outDirProblem(dir: string): string | undefined {
  let at = resolve(dir);
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return 'no existing parent directory';
    at = up;
  }
  if (!statSync(at).isDirectory()) return `${at} is not a directory`;
  try {
    accessSync(at, constants.W_OK);
  } catch {
    return `${at} is not writable`;
  }
  return undefined;
}
