// Report files written completely or not at all (temporary file, then
// rename), so an interrupted run never leaves half a counterexample.
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
