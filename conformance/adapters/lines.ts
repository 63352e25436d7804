// Splits a byte stream into lines (JSON Lines, spec/PROTOCOL.md), with a cap
// on the length of a line so that a babbling peer cannot make us buffer
// without bound.

/** The protocol's default cap on a line, in bytes, newline excluded (PROTOCOL.md). */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

export type LineEvent = { readonly line: string } | { readonly overflow: number };

/**
 * Feed it chunks; it returns the complete lines (UTF-8 decoded, without the
 * newline or a trailing carriage return), empty lines left out. A line longer than `maxBytes`
 * yields one `overflow` event (with the bytes seen so far) and is skipped up
 * to its newline.
 */
export class LineSplitter {
  private readonly maxBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(maxBytes: number = DEFAULT_MAX_LINE_BYTES) {
    this.maxBytes = maxBytes;
  }

  push(chunk: Buffer): LineEvent[] {
    const out: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      // An empty line (or a lone CR) is no line: the protocol ignores blank lines, and a flood of them costs nothing.
      if (this.pending.length === 0 && (piece.length === 0 || (piece.length === 1 && piece[0] === 13))) continue;
      // A trailing CR is part of the newline (CRLF is tolerated), so it does not count against the cap.
      const last = piece.length > 0 ? piece[piece.length - 1] : this.pending.at(-1)?.at(-1);
      const bytes = this.pendingBytes + piece.length - (last === 13 ? 1 : 0);
      if (bytes > this.maxBytes) {
        out.push({ overflow: bytes });
      } else {
        const whole = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
        let line = whole.toString('utf8');
        if (line.endsWith('\r')) line = line.slice(0, -1);
        out.push({ line });
      }
      this.pending = [];
      this.pendingBytes = 0;
    }
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      // One byte over the cap may still be the CR of a CRLF whose LF has not come yet.
      if (this.pendingBytes + rest.length > this.maxBytes + 1) {
        out.push({ overflow: this.pendingBytes + rest.length });
        this.pending = [];
        this.pendingBytes = 0;
        this.skipping = true;
      } else {
        // Copy: the caller may reuse the chunk's memory.
        this.pending.push(Buffer.from(rest));
        this.pendingBytes += rest.length;
      }
    }
    return out;
  }

  /** Bytes of an unfinished line held back (at end of stream: a last line without newline). */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** The unfinished last line at end of stream, if any. */
  finish(): LineEvent[] {
    if (this.skipping || this.pendingBytes === 0) return [];
    const line = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return [{ line }];
  }
}
