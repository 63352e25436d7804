// The lines of a recorded history file, read in batches from disk, gzip or
// not (told by its first two bytes, the gzip magic 1f 8b, not by its name),
// in memory that does not grow with the file. A line is what lies between
// two newlines, without the newline (and without a `\r` before it).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { createGunzip } from 'node:zlib';
import { InputError, MAX_DOCUMENT_BYTES, fileToOpen, firstInvalidUtf8, lineColumn } from '../../spec/index.ts';

/** Consecutive lines of a file; `first` is the line number of `lines[0]` (1-based). */
export interface LineBatch {
  readonly first: number;
  readonly lines: readonly string[];
  /** The batch's last line is the file's last, and no newline follows it (it may be cut). */
  readonly unterminated?: boolean;
}

/** How a file ended, when it did not end cleanly. */
export interface FileEnding {
  /** The last line has no newline after it (it may be cut). */
  readonly unterminated: boolean;
  /** The gzip stream ended before its end marker: the file was cut. */
  readonly cutGzip: boolean;
}

export interface LineFile {
  readonly path: string;
  readonly gzip: boolean;
  /** The file's size on disk. */
  readonly bytes: number;
  /** Bytes of the file read so far (compressed bytes for gzip): progress against `bytes`. */
  bytesRead(): number;
  /** The next batch, or undefined at the end. */
  next(): Promise<LineBatch | undefined>;
  /** After the end: how the file ended. */
  ending(): FileEnding;
  close(): void;
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;
const CHUNK = 1 << 20;

/** Is the file gzip-compressed? By its magic bytes. */
function isGzip(path: string): boolean {
  const fd = openSync(fileToOpen(path), 'r');
  try {
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return n === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

/** The longest line read, in bytes (SJ110): the bound every command's document reader has (spec/documents.ts). */
export const MAX_LINE_BYTES = MAX_DOCUMENT_BYTES;

const NEWLINE = 0x0a;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** Where the byte at `offset` of `bytes` is, as the line number and the 1-based column in characters (`bytes` starts line `first`). */
function placeOf(bytes: Buffer, offset: number, first: number): { line: number; column: number } {
  let line = first;
  let start = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0 && i < offset; i = bytes.indexOf(NEWLINE, i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: lineColumn(bytes.subarray(start, offset).toString('utf8'), Number.MAX_SAFE_INTEGER).column };
}

/** SJ101 at the first byte of `bytes` that is not UTF-8. */
function notUtf8(path: string, bytes: Buffer, first: number): InputError {
  const bad = firstInvalidUtf8(bytes) ?? 0;
  const { line, column } = placeOf(bytes, bad, first);
  return new InputError(
    'SJ101',
    `${path}:${line}:${column}`,
    `byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} is not UTF-8 (a history is UTF-8 text; is this a binary file, or text in another encoding?)`,
  );
}

/** SJ110: line `line` goes on past MAX_LINE_BYTES (`head` is its start). */
function tooLong(path: string, line: number, head: Buffer): InputError {
  const column = lineColumn(head.subarray(0, MAX_LINE_BYTES).toString('utf8'), Number.MAX_SAFE_INTEGER).column;
  return new InputError(
    'SJ110',
    `${path}:${line}:${column}`,
    `the line is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB, the most a line may be; it goes on past here`,
  );
}

/** The lines of UTF-8 text that ends with a newline, each without it (and without a `\r` before it). */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/**
 * Opens a history file for reading by lines: SJ100 if it cannot be read.
 * Its bytes are read as every command reads a document (spec/documents.ts):
 * a leading byte-order mark is dropped, a byte that is not UTF-8 is SJ101 at
 * its line and column (never replaced), a line longer than MAX_LINE_BYTES is
 * SJ110. `-` is the standard input once it was read ahead (spec/inputFiles.ts).
 */
export function openLines(path: string): LineFile {
  let bytes: number;
  let gzip: boolean;
  try {
    const st = statSync(fileToOpen(path));
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    bytes = st.size;
    gzip = isGzip(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? path === '-'
          ? 'the standard input was not read ahead (spec/inputFiles.ts readInputsAhead)'
          : 'no such file'
        : `cannot read (${code ?? String(e)})`;
    throw new InputError('SJ100', path, why);
  }
  const raw = createReadStream(fileToOpen(path), { highWaterMark: CHUNK });
  const stream = gzip ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw;
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  /** The bytes of the line not yet ended by a newline. */
  let carry: Buffer = Buffer.alloc(0);
  let atStart = true;
  let lineNo = 1;
  let done = false;
  let cutGzip = false;
  let unterminated = false;
  return {
    path,
    gzip,
    bytes,
    // The file's own bytes (compressed ones for gzip): what the read stream has taken from disk.
    bytesRead: () => raw.bytesRead,
    async next() {
      while (!done) {
        let chunk: IteratorResult<Buffer>;
        try {
          chunk = await chunks.next();
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          // zlib: the compressed stream stops before its end (a cut file).
          if (gzip && (code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(String(e)))) {
            cutGzip = true;
            done = true;
            break;
          }
          if (gzip && typeof code === 'string' && code.startsWith('Z_'))
            throw new InputError('SJ100', path, `not a readable gzip file (${code})`);
          throw new InputError('SJ100', path, `cannot read (${code ?? String(e)})`);
        }
        if (chunk.done) {
          done = true;
          break;
        }
        let data = carry.length === 0 ? chunk.value : Buffer.concat([carry, chunk.value]);
        if (atStart) {
          // A byte-order mark is the file's first three bytes: wait for them.
          if (data.length < 3) {
            carry = data;
            continue;
          }
          atStart = false;
          if (data[0] === BOM[0] && data[1] === BOM[1] && data[2] === BOM[2]) data = data.subarray(3);
        }
        const lastNewline = data.lastIndexOf(NEWLINE);
        const firstNewline = lastNewline < 0 ? -1 : data.indexOf(NEWLINE);
        // The line now open: only the first line of this data can be longer than a chunk.
        if ((lastNewline < 0 ? data.length : firstNewline) > MAX_LINE_BYTES) throw tooLong(path, lineNo, data);
        if (lastNewline < 0) {
          carry = data;
          continue;
        }
        const complete = data.subarray(0, lastNewline + 1);
        carry = Buffer.from(data.subarray(lastNewline + 1));
        if (!isUtf8(complete)) throw notUtf8(path, complete, lineNo);
        const lines = splitLines(complete.toString('utf8'));
        const first = lineNo;
        lineNo += lines.length;
        return { first, lines };
      }
      if (carry.length > 0) {
        // The last line, without a newline after it. Invalid UTF-8 in its last
        // three bytes is a character cut with the file; anywhere before, bad input.
        let last = carry;
        carry = Buffer.alloc(0);
        if (atStart && last[0] === BOM[0] && last[1] === BOM[1] && last[2] === BOM[2]) last = last.subarray(3);
        atStart = false;
        // A file shorter than a byte-order mark was held whole: its ended lines first.
        const newline = last.lastIndexOf(NEWLINE);
        if (newline >= 0) {
          const complete = last.subarray(0, newline + 1);
          carry = Buffer.from(last.subarray(newline + 1));
          if (!isUtf8(complete)) throw notUtf8(path, complete, lineNo);
          const lines = splitLines(complete.toString('utf8'));
          const first = lineNo;
          lineNo += lines.length;
          return { first, lines };
        }
        if (!isUtf8(last)) {
          const bad = firstInvalidUtf8(last) ?? 0;
          if (bad < last.length - 3) throw notUtf8(path, last, lineNo);
          last = last.subarray(0, bad);
        }
        unterminated = true;
        const text = last.toString('utf8');
        const line = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
        return { first: lineNo++, lines: [line], unterminated: true };
      }
      return undefined;
    },
    ending: () => ({ unterminated, cutGzip }),
    close: () => {
      raw.destroy();
      if (stream !== raw) stream.destroy();
    },
  };
}
