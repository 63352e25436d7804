// The watermarks of a history split into partitions (spill.ts), on disk:
// every partition's check needs every watermark (J4: the global watermark
// is both sides', whatever the key), so they are written once, as numbers,
// and each partition reads them back in line order. Only the watermarks that
// raise their side's watermark are kept: a stale one (at or below its side's
// current watermark, J4) changes nothing, and an invalid one (J1) is the
// partitions' own business (spill.ts writes it into each). Memory is one
// buffer, whatever the history's length.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** Watermarks per buffer: (line, wm, side) as three float64s (lines and times are integers within 2^53). */
const MARKS = 8192;
const FIELDS = 3;

/** Writes the watermarks that rise, in line order. */
export class WatermarkWriter {
  private readonly fd: number;
  private readonly buffer = new Float64Array(MARKS * FIELDS);
  private used = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }
  add(line: number, side: 'L' | 'R', wm: number): void {
    const b = this.buffer;
    b[this.used] = line;
    b[this.used + 1] = wm;
    b[this.used + 2] = side === 'L' ? 0 : 1;
    this.used += FIELDS;
    if (this.used === b.length) this.flush();
  }
  private flush(): void {
    if (this.used > 0) writeSync(this.fd, new Uint8Array(this.buffer.buffer, 0, this.used * 8));
    this.used = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Reads them back, one at a time, in line order. */
export class WatermarkReader {
  private readonly fd: number;
  private readonly buffer = new Float64Array(MARKS * FIELDS);
  private readonly bytes = new Uint8Array(this.buffer.buffer);
  private filled = 0;
  private at = 0;
  private done = false;
  constructor(path: string) {
    this.fd = openSync(path, 'r');
    this.fill();
  }
  /** The current watermark's line, or +∞ past the last. */
  get line(): number {
    return this.at < this.filled ? (this.buffer[this.at] as number) : Number.POSITIVE_INFINITY;
  }
  get wm(): number {
    return this.buffer[this.at + 1] as number;
  }
  get side(): 'L' | 'R' {
    return this.buffer[this.at + 2] === 0 ? 'L' : 'R';
  }
  advance(): void {
    this.at += FIELDS;
    if (this.at >= this.filled) this.fill();
  }
  private fill(): void {
    this.at = 0;
    this.filled = 0;
    if (this.done) return;
    let got = 0;
    while (got < this.bytes.length) {
      const n = readSync(this.fd, this.bytes, got, this.bytes.length - got, null);
      if (n === 0) break;
      got += n;
    }
    this.filled = Math.floor(got / 8 / FIELDS) * FIELDS;
    if (got < this.bytes.length) this.close();
  }
  close(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
  }
}
