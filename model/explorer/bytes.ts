// Bytes for compact state encodings (`StateCodec`): a growable writer and a
// reader over unsigned varints (LEB128: one byte below 128), bytes and
// strings. A state's bytes are what the explorer keeps in its frontier and
// hashes into fingerprints, so they are small and written without building
// strings.

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** A growable buffer a state codec writes a state's bytes into. */
export class ByteWriter {
  /** The bytes written are `bytes[0 .. length)`; the array is replaced when it grows. */
  bytes: Uint8Array<ArrayBufferLike>;
  /** Number of bytes written. */
  length = 0;
  /** Where the identifying bytes end (`endKey`), or -1 before it is called. */
  keyEnd = -1;

  /** An empty writer with room for `capacity` bytes. */
  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Empties the writer for the next state (the buffer is kept). */
  reset(): this {
    this.length = 0;
    this.keyEnd = -1;
    return this;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < need) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** One byte, 0..255. */
  u8(x: number): this {
    if (this.length === this.bytes.length) this.ensure(1);
    this.bytes[this.length++] = x;
    return this;
  }

  /** A non-negative safe integer as an unsigned varint. */
  uint(x: number): this {
    if (x < 0x80 && x >= 0) return this.u8(x);
    if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`not a non-negative safe integer: ${x}`);
    this.ensure(8);
    let v = x;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
    return this;
  }

  /** A safe integer of either sign (zigzag, then varint). */
  int(x: number): this {
    return this.uint(x >= 0 ? x * 2 : -x * 2 - 1);
  }

  /** A string: its UTF-8 length, then its UTF-8 bytes. */
  str(s: string): this {
    const encoded = textEncoder.encode(s);
    this.uint(encoded.length);
    this.ensure(encoded.length);
    this.bytes.set(encoded, this.length);
    this.length += encoded.length;
    return this;
  }

  /** Copies `src[start .. end)`. */
  copy(src: Uint8Array<ArrayBufferLike>, start: number, end: number): this {
    this.ensure(end - start);
    // A loop: these copies are short, and `set(src.subarray(...))` allocates a view each time.
    const b = this.bytes;
    let p = this.length;
    for (let i = start; i < end; i++) b[p++] = src[i] as number;
    this.length = p;
    return this;
  }

  /** Marks the end of the bytes that identify the state (see `StateCodec`). */
  endKey(): this {
    this.keyEnd = this.length;
    return this;
  }
}

/** Reads what a `ByteWriter` wrote, from `pos` up to `end`. */
export class ByteReader {
  /** The bytes read from. */
  bytes: Uint8Array<ArrayBufferLike>;
  /** Index of the next byte to read. */
  pos: number;
  /** Index one past the last byte that may be read. */
  end: number;

  /** A reader of `bytes[start .. end)`. */
  constructor(bytes: Uint8Array<ArrayBufferLike> = new Uint8Array(0), start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  /** Reads `bytes[start .. end)` next. */
  reset(bytes: Uint8Array<ArrayBufferLike>, start: number, end: number): this {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    return this;
  }

  /** Reads one byte; throws a RangeError past the end. */
  u8(): number {
    if (this.pos >= this.end) throw new RangeError('read past the end of an encoded state');
    return this.bytes[this.pos++] as number;
  }

  /** Reads an unsigned varint (LEB128). */
  uint(): number {
    let b = this.u8();
    if (b < 0x80) return b;
    let x = b & 0x7f;
    let scale = 0x80;
    do {
      b = this.u8();
      x += (b & 0x7f) * scale;
      scale *= 0x80;
    } while (b >= 0x80);
    return x;
  }

  /** Reads a signed integer (zigzag over an unsigned varint). */
  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** Reads a string: its UTF-8 byte length as a varint, then the bytes. */
  str(): string {
    const n = this.uint();
    if (this.pos + n > this.end) throw new RangeError('read past the end of an encoded state');
    const s = textDecoder.decode(this.bytes.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}
