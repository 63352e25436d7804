// The two kinds of file the cluster's durable parts are made of (SPEC C2):
//
// - a **journal**: append-only JSON Lines, one framed entry a line, made
//   durable (fdatasync) before `append` returns. Each line carries the byte
//   length and CRC-32 of its entry:
//
//     {"len":41,"crc":"1c291ca3","rec":{"kind":"watermark","side":"L","wm":5}}
//
//   A crash during an append can leave only the last line incomplete or
//   wrong; on open that torn tail is reported and cut off (it was never
//   acknowledged, so nothing acknowledged is lost). A bad line anywhere else
//   is corruption: the file is refused with its path and line number.
//
// - a **document**: one JSON value replaced atomically (../crashSafeFile.ts:
//   write a temporary file, fsync, rename over the old one, fsync the
//   directory), a checksummed file whose header gives its format, byte
//   length and SHA-256:
//
//     {"format":"streamjoin/coordinator@1","bytes":123,"sha256":"…"}
//     {…body…}
//
//   A reader sees the whole old document or the whole new one; a temporary
//   file left by a crash is reported and removed; a document whose bytes
//   changed is refused with its path.
import { closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { bodyProblem, checksumHeader, checksummedFile, errnoOf, replaceFile, syncDirectory, writeFully } from '../crashSafeFile.ts';
import { DurableStateError } from '../errors.ts';

/**
 * Called at each point of a durable write where a crash leaves a distinct
 * state on disk; crash tests stop the process there. `path` is the file
 * being written.
 */
export type WritePointHook = (point: string, path: string) => void;

/** Something recovery found, dropped and reported rather than loaded. */
export interface RecoveryProblem {
  /** The file. */
  readonly path: string;
  /** What was wrong, for people. */
  readonly detail: string;
}

export interface JournalEntry {
  /** 1-based line number in the file, for error messages. */
  readonly line: number;
  readonly value: unknown;
}

const LINE_HEAD = /^\{"len":(0|[1-9][0-9]{0,9}),"crc":"([0-9a-f]{8})","rec":/;
const NEWLINE = 0x0a;
const CLOSE_BRACE = 0x7d;

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** One framed journal line for `value`. */
export function journalLine(value: unknown): Uint8Array {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return Buffer.concat([
    Buffer.from(`{"len":${body.length},"crc":"${hex8(crc32(body))}","rec":`, 'latin1'),
    body,
    Buffer.from('}\n', 'latin1'),
  ]);
}

/** Checks the line `bytes[start, end)` (without its newline): its entry, or why it is bad. */
function readJournalLine(bytes: Buffer, start: number, end: number): { ok: true; value: unknown } | { ok: false; detail: string } {
  const head = LINE_HEAD.exec(bytes.toString('latin1', start, Math.min(end, start + 48)));
  if (head === null) return { ok: false, detail: 'the line does not begin with {"len":N,"crc":"…","rec":' };
  const length = Number(head[1]);
  const bodyStart = start + head[0].length;
  const bodyEnd = bodyStart + length;
  if (bodyEnd + 1 !== end || bytes[bodyEnd] !== CLOSE_BRACE) {
    return { ok: false, detail: `the entry is not ${length} bytes followed by "}" and the end of the line` };
  }
  const body = bytes.subarray(bodyStart, bodyEnd);
  if (hex8(crc32(body)) !== head[2]) return { ok: false, detail: 'the entry does not match its CRC-32' };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { ok: false, detail: 'the entry is not JSON' };
  }
}

/** Whether `bytes[start, end)` begins with a complete, checksum-valid entry that more bytes follow. */
function holdsWholeEntry(bytes: Buffer, start: number, end: number): boolean {
  const head = LINE_HEAD.exec(bytes.toString('latin1', start, Math.min(end, start + 48)));
  if (head === null) return false;
  const bodyStart = start + head[0].length;
  const bodyEnd = bodyStart + Number(head[1]);
  return bodyEnd + 1 < end && bytes[bodyEnd] === CLOSE_BRACE && hex8(crc32(bytes.subarray(bodyStart, bodyEnd))) === head[2];
}

/**
 * Reads the journal bytes: every good entry, and where the good part ends.
 * A bad last line (with or without its newline) is a torn tail; a bad line
 * before a good one is corruption and throws.
 */
export function parseJournal(path: string, data: Uint8Array): { entries: JournalEntry[]; goodLength: number; torn: string | undefined } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const entries: JournalEntry[] = [];
  let position = 0;
  let line = 1;
  while (position < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, position);
    const end = newline < 0 ? bytes.length : newline;
    const read = readJournalLine(bytes, position, end);
    const last = newline < 0 || newline === bytes.length - 1;
    if (!read.ok || newline < 0) {
      const detail = newline < 0 ? 'the last line has no end (a write that never completed)' : read.ok ? '' : read.detail;
      if (!last) throw new DurableStateError(`${path}:${line}`, `corrupt journal line: ${detail}; the file is not loaded`);
      // A crash tears only the line being appended. A whole good entry followed by more
      // bytes on the same line is two lines whose newline was damaged: corruption.
      if (holdsWholeEntry(bytes, position, end)) {
        throw new DurableStateError(
          `${path}:${line}`,
          'corrupt journal: a complete entry runs on into the next line (its newline was changed); the file is not loaded',
        );
      }
      return { entries, goodLength: position, torn: `torn tail at line ${line} (${bytes.length - position} bytes): ${detail}; dropped` };
    }
    entries.push({ line, value: read.value });
    position = newline + 1;
    line++;
  }
  return { entries, goodLength: position, torn: undefined };
}

/** An append-only journal file; see the file comment. One process owns it at a time. */
export class JournalFile {
  readonly path: string;
  private fd: number | undefined;
  private readonly onWritePoint: WritePointHook | undefined;
  private lines: number;
  private failed = false;

  private constructor(path: string, fd: number, lines: number, onWritePoint: WritePointHook | undefined) {
    this.path = path;
    this.fd = fd;
    this.lines = lines;
    this.onWritePoint = onWritePoint;
  }

  /**
   * Opens (creating if needed) the journal at `path`: its entries, the torn
   * tail it cut off (if any), and the journal ready to append. Throws
   * DurableStateError naming the path and line of a corrupt line.
   */
  static open(path: string, onWritePoint?: WritePointHook): { journal: JournalFile; entries: JournalEntry[]; problems: RecoveryProblem[] } {
    const problems: RecoveryProblem[] = [];
    let entries: JournalEntry[] = [];
    const existed = existsSync(path);
    try {
      if (existed) {
        const bytes = readFileSync(path);
        const parsed = parseJournal(path, bytes);
        entries = parsed.entries;
        if (parsed.torn !== undefined) {
          problems.push({ path, detail: parsed.torn });
          const fd = openSync(path, 'r+');
          try {
            ftruncateSync(fd, parsed.goodLength);
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
        }
      }
      const fd = openSync(path, 'a');
      if (!existed) syncDirectory(dirname(path));
      return { journal: new JournalFile(path, fd, entries.length, onWritePoint), entries, problems };
    } catch (e) {
      if (e instanceof DurableStateError) throw e;
      throw new DurableStateError(path, `cannot open the journal (${errnoOf(e)})`);
    }
  }

  /** Number of entries in the file. */
  get length(): number {
    return this.lines;
  }

  /** Appends `value` as one line; durable when it returns. Throws DurableStateError on an I/O error. */
  append(value: unknown): void {
    const fd = this.fd;
    if (fd === undefined) throw new DurableStateError(this.path, 'the journal is closed');
    // After a failed append the file may end in part of a line; another line after it would turn that torn tail into corruption.
    if (this.failed) throw new DurableStateError(this.path, 'an earlier append failed; reopen the journal to cut off its torn tail');
    const bytes = journalLine(value);
    try {
      // Two writes, so that "half a line written" is a state a crash test can produce.
      const half = bytes.length >> 1;
      writeFully(fd, bytes.subarray(0, half));
      this.onWritePoint?.('journal-partial', this.path);
      writeFully(fd, bytes.subarray(half));
      fdatasyncSync(fd);
    } catch (e) {
      this.failed = true;
      throw new DurableStateError(`${this.path}:${this.lines + 1}`, `append failed (${errnoOf(e)}); the entry is not durable`);
    }
    this.lines++;
    this.onWritePoint?.('journal-synced', this.path);
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Replaces the document at `path` atomically; durable when it returns. Throws DurableStateError. */
export function writeDocument(path: string, format: string, value: unknown, onWritePoint?: WritePointHook): void {
  const bytes = checksummedFile({ format }, Buffer.from(JSON.stringify(value), 'utf8'));
  try {
    replaceFile(path, bytes, onWritePoint === undefined ? undefined : (point, at) => onWritePoint(`document-${point}`, at));
  } catch (e) {
    // A temporary file that could not be removed is reported and removed by recovery (clearLeftover).
    throw new DurableStateError(path, `not written (${errnoOf(e)}); the previous version stays`);
  }
}

/**
 * Reads the document at `path`: its value, or undefined when there is none.
 * Throws DurableStateError naming the path when it is there but bad.
 */
export function readDocument(path: string, format: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DurableStateError(path, `cannot read (${errnoOf(e)})`);
  }
  const bad = (detail: string): never => {
    throw new DurableStateError(path, `${detail}; the file is not loaded`);
  };
  const newline = bytes.indexOf(NEWLINE);
  if (newline < 0) bad('no header line');
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', 0, newline));
  } catch {
    bad('the header is not JSON');
  }
  const h = (typeof header === 'object' && header !== null ? header : {}) as Record<string, unknown>;
  if (h['format'] !== format) bad(`the header's format is ${JSON.stringify(h['format'])}, expected ${JSON.stringify(format)}`);
  const length = h['bytes'];
  const digest = h['sha256'];
  if (typeof length !== 'number' || typeof digest !== 'string') return bad('the header lacks bytes or sha256');
  // The header is outside the checksum, so it must be exactly the line the writer writes.
  if (bytes.toString('utf8', 0, newline) !== checksumHeader({ format }, length, digest)) bad('the header is not in canonical form');
  const body = bytes.subarray(newline + 1);
  const problem = bodyProblem(body, length, digest);
  if (problem !== undefined) bad(problem.detail);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return bad('the body is not JSON');
  }
}

/** Removes a temporary file left by a document write that never completed; reports it. */
export function clearLeftover(path: string): RecoveryProblem | undefined {
  const tmp = `${path}.tmp`;
  if (!existsSync(tmp)) return undefined;
  try {
    unlinkSync(tmp);
  } catch (e) {
    return { path: tmp, detail: `a write that never completed; could not remove it (${errnoOf(e)})` };
  }
  return { path: tmp, detail: 'a write that never completed (crash before rename); removed, the previous version stays' };
}
