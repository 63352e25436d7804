// The one crash-safe way durable state is written to disk (SPEC C2, C4), used
// by the checkpoint store (checkpointStore.ts) and the cluster's durable
// documents and journals (cluster/durableFiles.ts):
//
// - `replaceFile`: the whole old file or the whole new one, whatever the
//   moment of a crash: write `<path>.tmp`, fsync it, rename it over the file
//   (POSIX makes the rename atomic), fsync the directory (so the rename
//   itself survives);
// - a checksummed file: a header line, then the body. The header holds the
//   caller's fields (format first), then the body's byte length and SHA-256:
//
//     {"format":"streamjoin/…@1",…,"bytes":123,"sha256":"…"}
//     {…body…}
//
//   The header is outside the checksum, so a reader also requires it to be
//   exactly the line the writer writes (`checksumHeader`): then no changed
//   byte anywhere goes unnoticed.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes all of `bytes` at the file's position: `writeSync` may write fewer bytes than asked. */
export function writeFully(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  // Stryker disable next-line ArithmeticOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** fsync a directory, so that a file created or renamed in it survives a crash. */
// Stryker disable all: durability against power loss: a process kill keeps every write the kernel was handed (docs/mutation.md)
export function syncDirectory(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
// Stryker restore all

/** The errno code of a failed file operation (e.g. ENOSPC), or the error's message. */
// Stryker disable all: a failing file system: a process kill never makes a read or a write fail (docs/mutation.md)
export function errnoOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (e instanceof Error ? e.message : String(e));
}
// Stryker restore all

/** Removes a file if it is there; a file already gone, or not removable, is left to recovery. */
// Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
export function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or not ours to remove: either way nothing depends on it.
  }
}

/**
 * The points of `replaceFile` where a crash leaves a distinct state on disk:
 * half the bytes in the temporary file, not synced; the temporary file
 * complete and fsynced but not renamed; renamed, the directory not yet
 * fsynced. Crash tests stop the process there.
 */
export type ReplacePoint = 'tmp-partial' | 'tmp-synced' | 'renamed';

/**
 * Replaces the file at `path` with `bytes`, durable when it returns; a crash
 * at any moment leaves the old file or the new one, and at most a temporary
 * file `<path>.tmp` for recovery to remove. On an error the temporary file is
 * removed (as far as it can be) and the error is thrown on.
 */
export function replaceFile(path: string, bytes: Uint8Array, onPoint?: (point: ReplacePoint, path: string) => void): void {
  const tmp = `${path}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      // Two writes, so that "half written" is a state a crash test can produce.
      const half = bytes.length >> 1;
      writeFully(fd, bytes.subarray(0, half));
      onPoint?.('tmp-partial', tmp);
      writeFully(fd, bytes.subarray(half));
      // Stryker disable next-line all: durability against power loss: a process kill keeps every write the kernel was handed (docs/mutation.md)
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    onPoint?.('tmp-synced', tmp);
    renameSync(tmp, path);
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    onPoint?.('renamed', path);
    // Stryker disable all: durability against power loss: a process kill keeps every write the kernel was handed (docs/mutation.md)
    syncDirectory(dirname(path));
    // Stryker disable all: a failing file system: a process kill never makes a read or a write fail (docs/mutation.md)
  } catch (e) {
    removeIfPresent(tmp);
    throw e;
  }
  // Stryker restore all
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const MAX_HEX_STEM = 200;

/** A file-name stem for a key (any string): its UTF-8 bytes in hex (`k…`), or their SHA-256 (`h…`) when too long for a name. */
export function fileStemOf(key: string): string {
  const hex = Buffer.from(key, 'utf8').toString('hex');
  return hex.length <= MAX_HEX_STEM ? `k${hex}` : `h${sha256Hex(Buffer.from(key, 'utf8'))}`;
}

/** The key a stem names, when the stem is reversible (`k…`). */
export function keyOfFileStem(stem: string): string | undefined {
  return stem.startsWith('k') ? Buffer.from(stem.slice(1), 'hex').toString('utf8') : undefined;
}

/** The header line of a checksummed file (without its newline): `fields` in their order, then `bytes` and `sha256`. */
export function checksumHeader(fields: Readonly<Record<string, string | number>>, bytes: number, sha256: string): string {
  return JSON.stringify({ ...fields, bytes, sha256 });
}

/** A checksummed file's bytes: its header line and `body`. */
export function checksummedFile(fields: Readonly<Record<string, string | number>>, body: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(`${checksumHeader(fields, body.length, sha256Hex(body))}\n`, 'utf8'), body]);
}

/** What is wrong with a checksummed file's body, given its header's `bytes` and `sha256`; undefined when nothing is. */
export function bodyProblem(
  body: Uint8Array,
  bytes: number,
  sha256: string,
): { readonly kind: 'truncated' | 'malformed' | 'checksum'; readonly detail: string } | undefined {
  // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
  if (body.length < bytes) return { kind: 'truncated', detail: `the body has ${body.length} of ${bytes} bytes` };
  if (body.length > bytes) return { kind: 'malformed', detail: `${body.length - bytes} bytes follow the body` };
  if (sha256Hex(body) !== sha256) return { kind: 'checksum', detail: 'the body does not match its SHA-256' };
  return undefined;
  // Stryker restore all
}
