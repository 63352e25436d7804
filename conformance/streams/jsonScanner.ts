// A streaming reader for a JSON document that is one object with one long
// array member (an operator trace's `steps`): the object's members are read
// one at a time, and the array's elements one at a time, from a file read in
// chunks, so a document of any length is read in memory proportional to its
// largest element. The scanner checks the grammar between values itself and
// leaves the grammar inside each value to JSON.parse; every syntax error
// carries the line and column (1-based, UTF-16 columns, as SPEC §4's SJ101)
// of where it is in the file.
import { closeSync, openSync, readSync } from 'node:fs';
import { MAX_DOCUMENT_BYTES, fileToOpen } from '../../spec/index.ts';

/** A syntax error at a place in the text. */
export class JsonSyntaxError extends Error {
  readonly line: number;
  readonly column: number | undefined;
  constructor(message: string, line: number, column: number | undefined) {
    super(message);
    this.name = 'JsonSyntaxError';
    this.line = line;
    this.column = column;
  }
}

/** A value longer than one value may be (the scanner holds a value whole): SJ110. */
export class ValueTooLargeError extends JsonSyntaxError {
  constructor(line: number, column: number) {
    super(
      `a single value is larger than ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB, the most one may be (a streamed trace may be longer, none of its values)`,
      line,
      column,
    );
    this.name = 'ValueTooLargeError';
  }
}

/** Bytes that are not UTF-8, at a byte offset of the file (SJ101). */
export class NotUtf8Error extends Error {
  readonly byteOffset: number;
  constructor(byteOffset: number) {
    super(
      `the bytes at offset ${byteOffset} are not UTF-8 (a document is UTF-8 text; is this a binary file, or text in another encoding?)`,
    );
    this.name = 'NotUtf8Error';
    this.byteOffset = byteOffset;
  }
}

/** Where a value starts in the text. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** Text arriving in chunks; `undefined` at the end. */
export type ChunkSource = () => string | undefined;

const CHUNK_BYTES = 1 << 20;

/**
 * The chunks of a file, decoded as UTF-8 (a character split across two
 * reads is decoded whole; a leading byte-order mark is dropped, as the
 * whole-file reader drops it). Bytes that are not UTF-8 throw NotUtf8Error.
 */
export function fileChunks(path: string): { next: ChunkSource; close: () => void } {
  const fd = openSync(fileToOpen(path), 'r');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let done = false;
  let offset = 0;
  const decode = (bytes: Uint8Array, stream: boolean): string => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      throw new NotUtf8Error(offset);
    }
  };
  return {
    next() {
      if (done) return undefined;
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) {
        done = true;
        const rest = decode(new Uint8Array(0), false);
        return rest === '' ? undefined : rest;
      }
      const text = decode(buffer.subarray(0, n), true);
      offset += n;
      return text;
    },
    close: () => closeSync(fd),
  };
}

/** The longest value held whole, in characters: a document's bound (SPEC §8, SJ110) holds for each value of a streamed one. */
const MAX_VALUE_LENGTH = MAX_DOCUMENT_BYTES;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The scanner. `pos` indexes `buf`, the text not yet consumed (plus what
 * the current value has read ahead); `line` and `column` are the position
 * of `buf[pos]` in the whole text.
 */
export class JsonScanner {
  private buf = '';
  private pos = 0;
  private line = 1;
  private column = 1;
  private ended = false;

  constructor(private readonly source: ChunkSource) {}

  /** The position of the next unread character. */
  position(): TextPosition {
    return { line: this.line, column: this.column };
  }

  /** Reads more text; false at the end. Drops what is consumed first, so the buffer holds one value at most. */
  private more(): boolean {
    if (this.ended) return false;
    const chunk = this.source();
    if (chunk === undefined) {
      this.ended = true;
      return false;
    }
    this.buf = this.pos > 0 ? this.buf.slice(this.pos) + chunk : this.buf + chunk;
    this.pos = 0;
    return true;
  }

  /** The character code at `pos + ahead`, reading more text as needed; -1 at the end. */
  private peekAt(ahead: number): number {
    while (this.pos + ahead >= this.buf.length) if (!this.more()) return -1;
    return this.buf.charCodeAt(this.pos + ahead);
  }

  /** Moves `pos` forward by `n` characters, keeping line and column. */
  private advance(n: number): void {
    const end = this.pos + n;
    let nl = this.buf.indexOf('\n', this.pos);
    let lastLineStart = -1;
    while (nl !== -1 && nl < end) {
      this.line++;
      lastLineStart = nl + 1;
      nl = this.buf.indexOf('\n', nl + 1);
    }
    this.column = lastLineStart === -1 ? this.column + n : end - lastLineStart + 1;
    this.pos = end;
  }

  private error(message: string): JsonSyntaxError {
    return new JsonSyntaxError(message, this.line, this.column);
  }

  skipSpace(): void {
    for (;;) {
      const c = this.peekAt(0);
      if (c === -1 || !isSpace(c)) return;
      let n = 1;
      while (this.pos + n < this.buf.length && isSpace(this.buf.charCodeAt(this.pos + n))) n++;
      this.advance(n);
    }
  }

  /** The next non-space character, or -1 at the end (not consumed). */
  peek(): number {
    this.skipSpace();
    return this.peekAt(0);
  }

  /** Consumes the character `c` (after space), or throws `message`. */
  expect(c: string, message: string): void {
    if (this.peek() !== c.charCodeAt(0)) throw this.peekAt(0) === -1 ? this.error('Unexpected end of JSON input') : this.error(message);
    this.advance(1);
  }

  /** Consumes `c` if it comes next (after space). */
  accept(c: string): boolean {
    if (this.peek() !== c.charCodeAt(0)) return false;
    this.advance(1);
    return true;
  }

  /** After the document: nothing but space may follow. */
  expectEnd(): void {
    if (this.peek() !== -1) throw this.error('Unexpected non-whitespace character after JSON');
  }

  /**
   * The length of the value at `pos`: a string, an object or array (to its
   * matching close, string-aware), or a number or literal (to the next
   * delimiter). Reads ahead as needed. The grammar inside is JSON.parse's.
   */
  private valueLength(): number {
    const first = this.peekAt(0);
    if (first === -1) throw this.error('Unexpected end of JSON input');
    if (first === 0x22) return this.stringLength(0);
    if (first !== 0x7b && first !== 0x5b) {
      let n = 0;
      for (;;) {
        if (n > MAX_VALUE_LENGTH) throw new ValueTooLargeError(this.line, this.column);
        const c = this.peekAt(n);
        if (c === -1 || c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) return n;
        n++;
      }
    }
    let depth = 0;
    let n = 0;
    for (;;) {
      if (n > MAX_VALUE_LENGTH) throw new ValueTooLargeError(this.line, this.column);
      const c = this.peekAt(n);
      if (c === -1) return n; // unterminated: JSON.parse says where
      if (c === 0x22) {
        n += this.stringLength(n);
        continue;
      }
      n++;
      if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return n;
    }
  }

  /** The length of the string starting at `pos + from` (its quotes included), or to the end if unterminated. */
  private stringLength(from: number): number {
    let n = from + 1;
    for (;;) {
      const quote = this.buf.indexOf('"', this.pos + n);
      if (quote === -1) {
        n = this.buf.length - this.pos;
        if (n > MAX_VALUE_LENGTH) throw new ValueTooLargeError(this.line, this.column);
        if (!this.more()) return n - from;
        continue;
      }
      // A quote is escaped iff an odd number of backslashes precede it.
      let slashes = 0;
      for (let i = quote - 1; i >= this.pos + from && this.buf.charCodeAt(i) === 0x5c; i--) slashes++;
      n = quote - this.pos + 1;
      if (slashes % 2 === 0) return n - from;
    }
  }

  /** The next value, parsed, with where it starts and its text (to place an error inside it). */
  value(): { value: unknown; at: TextPosition; text: string } {
    this.skipSpace();
    const at = this.position();
    const n = this.valueLength();
    const text = this.buf.slice(this.pos, this.pos + n);
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (e) {
      throw syntaxErrorIn(text, at, e);
    }
    this.advance(n);
    return { value, at, text };
  }

  /** A member name (a JSON string). */
  memberName(): string {
    if (this.peek() !== 0x22) {
      throw this.peekAt(0) === -1 ? this.error('Unexpected end of JSON input') : this.error('Expected double-quoted property name');
    }
    const { value } = this.value();
    return value as string;
  }
}

/** JSON.parse's error inside `text` (which starts at `at`), placed in the whole file. */
function syntaxErrorIn(text: string, at: TextPosition, e: unknown): JsonSyntaxError {
  const message = e instanceof Error ? e.message : String(e);
  const detail = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
  const offset = /position (\d+)/.exec(message)?.[1];
  if (offset === undefined) return new JsonSyntaxError(detail, at.line, at.column);
  let line = at.line;
  let lineStart = -1;
  const upTo = Math.min(Number(offset), text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < upTo; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  const column = lineStart === -1 ? at.column + upTo : upTo - lineStart + 1;
  return new JsonSyntaxError(detail, line, column);
}
