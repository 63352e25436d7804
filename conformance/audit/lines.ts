// The lines of a recorded history file, read in batches from disk, gzip or
// not (told by its first two bytes, the gzip magic 1f 8b, not by its name),
// in memory that does not grow with the file. A line is what lies between
// two newlines, without the newline (and without a `\r` before it).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { InputError, fileToOpen } from '../../spec/index.ts';

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

/** Opens a history file for reading by lines. SJ100 if it cannot be read. */
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
    throw new InputError('SJ100', path, code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(e)})`);
  }
  const raw = createReadStream(fileToOpen(path), { highWaterMark: CHUNK });
  const stream = gzip ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw;
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const decoder = new StringDecoder('utf8');
  let carry = '';
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
          carry += decoder.end();
          break;
        }
        const text = carry + decoder.write(chunk.value);
        const lines = text.split('\n');
        carry = lines.pop() as string;
        if (lines.length === 0) continue;
        for (let i = 0; i < lines.length; i++) {
          const l = lines[i] as string;
          if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
        }
        const first = lineNo;
        lineNo += lines.length;
        return { first, lines };
      }
      if (carry !== '') {
        // The last line, without a newline after it.
        unterminated = true;
        const line = carry.charCodeAt(carry.length - 1) === 13 ? carry.slice(0, -1) : carry;
        carry = '';
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
