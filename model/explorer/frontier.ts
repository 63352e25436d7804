// The breadth-first frontier: the states of a level waiting to be expanded,
// as compact records in segments of bytes, never as object graphs. A record
// is the state's index (4 bytes, little-endian), the length of its encoding
// (a varint) and the encoding (`StateCodec`). A level is a list of segments,
// the units of work that threads claim one at a time.
//
// When the frontier held in memory would pass a bound, a full segment is
// appended to a file instead (one file per level and writer, written and
// read sequentially, as TLC does), and read back when its turn comes; the
// files of a level are removed once it has been expanded.
import { closeSync, mkdirSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ByteReader } from './bytes.ts';

/** One unit of frontier work: a segment in memory, or one spilled to a file. */
export type FrontierSegment =
  | { readonly kind: 'memory'; readonly buffer: SharedArrayBuffer | ArrayBuffer; readonly bytes: number; readonly states: number }
  | { readonly kind: 'file'; readonly path: string; readonly offset: number; readonly bytes: number; readonly states: number };

/**
 * Bytes of a segment, and so the granularity of the work threads claim: at
 * the end of a level a thread waits for the others' last segments (half a
 * segment's work on average), and a level shorter than two segments is one
 * thread's. 16 KiB is about 500 states of `ci`, a few milliseconds.
 */
export const SEGMENT_BYTES = 1 << 14;

/** Control words of a run's shared frontier accounting (in KiB, so that an Int32 goes to 2 TiB). */
const MEMORY_KIB = 0;
const PEAK_KIB = 1;
const SPILLED_SEGMENTS = 2;
const SPILLED_KIB = 3;
const ACCOUNT_WORDS = 4;

/** Where spilled segments go and when: shared by every writer of a run. */
export interface SpillSettings {
  /** Spill once the frontier in memory would pass this many bytes (Infinity: never). */
  readonly memoryBound: number;
  /** The directory for segment files (created on the first spill, removed by `removeSpillDirectory`). */
  readonly directory: string | undefined;
  /** The shared counters (`createFrontierAccount`). */
  readonly account: SharedArrayBuffer;
}

export function createFrontierAccount(): SharedArrayBuffer {
  return new SharedArrayBuffer(ACCOUNT_WORDS * 4);
}

/** What the frontier took: peak bytes in memory, and what was spilled. */
export interface FrontierFigures {
  readonly peakMemoryBytes: number;
  readonly spilledSegments: number;
  readonly spilledBytes: number;
}

export function frontierFigures(account: SharedArrayBuffer): FrontierFigures {
  const a = new Int32Array(account);
  return {
    peakMemoryBytes: Atomics.load(a, PEAK_KIB) * 1024,
    spilledSegments: Atomics.load(a, SPILLED_SEGMENTS),
    spilledBytes: Atomics.load(a, SPILLED_KIB) * 1024,
  };
}

const kib = (bytes: number): number => Math.ceil(bytes / 1024);

// Segments read are kept for the next ones written, on this thread (a module
// per thread), up to POOL_SEGMENTS of each kind (4 MiB). Without this, every
// segment is a new allocation that malloc serves from its heap, and the ones
// read wait there for a full garbage collection: on `ci` they held about 20
// MB of resident memory, several times the frontier itself.
const POOL_SEGMENTS = 256;
const sharedPool: SharedArrayBuffer[] = [];
const NO_BYTES = new Uint8Array(0);
const localPool: ArrayBuffer[] = [];

function takeSegment(shared: boolean): SharedArrayBuffer | ArrayBuffer {
  const pooled = shared ? sharedPool.pop() : localPool.pop();
  if (pooled !== undefined) return pooled;
  return shared ? new SharedArrayBuffer(SEGMENT_BYTES) : new ArrayBuffer(SEGMENT_BYTES);
}

/** A segment read to its end: nothing reads its buffer again (a level's segments are each claimed once). */
function giveBackSegment(buffer: SharedArrayBuffer | ArrayBuffer): void {
  if (buffer.byteLength !== SEGMENT_BYTES) return;
  if (buffer instanceof SharedArrayBuffer) {
    if (sharedPool.length < POOL_SEGMENTS) sharedPool.push(buffer);
  } else if (localPool.length < POOL_SEGMENTS) localPool.push(buffer);
}

export function removeSpillDirectory(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
}

/** Removes the files of a level's spilled segments (once the level is expanded). */
export function removeSegmentFiles(segments: readonly FrontierSegment[]): void {
  const paths = new Set<string>();
  for (const s of segments) if (s.kind === 'file') paths.add(s.path);
  for (const p of paths) {
    try {
      unlinkSync(p);
    } catch {
      // already gone (the run's directory is removed at the end anyway)
    }
  }
}

/** Gives back the memory of segments that will not be read (an exploration stopped early). */
export function discardSegments(account: SharedArrayBuffer, segments: readonly FrontierSegment[]): void {
  const a = new Int32Array(account);
  for (const s of segments) if (s.kind === 'memory') Atomics.sub(a, MEMORY_KIB, kib(s.buffer.byteLength));
  removeSegmentFiles(segments);
}

/** Writes records of one level, for one thread. */
export class FrontierWriter {
  private readonly shared: boolean;
  private readonly spill: SpillSettings;
  private readonly fileName: string;
  private readonly account: Int32Array;
  private buffer: SharedArrayBuffer | ArrayBuffer;
  private bytes: Uint8Array<ArrayBufferLike>;
  private used = 0;
  private states = 0;
  private readonly done: FrontierSegment[] = [];
  private fd: number | undefined;
  private fileOffset = 0;
  /** States appended so far. */
  written = 0;

  /** `fileName` names this writer's spill file for the level (unique in the run). */
  constructor(shared: boolean, spill: SpillSettings, fileName: string) {
    this.shared = shared;
    this.spill = spill;
    this.fileName = fileName;
    this.account = new Int32Array(spill.account);
    this.buffer = takeSegment(shared);
    this.bytes = new Uint8Array(this.buffer);
  }

  private allocate(n: number): SharedArrayBuffer | ArrayBuffer {
    return this.shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n);
  }

  /** Appends the record of state `index` encoded as `src[start .. end)`. */
  append(index: number, src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    const need = 4 + 5 + n;
    if (this.used + need > this.bytes.length) {
      this.seal();
      if (need > this.bytes.length) {
        this.buffer = this.allocate(need);
        this.bytes = new Uint8Array(this.buffer);
      }
    }
    const b = this.bytes;
    let p = this.used;
    b[p] = index & 0xff;
    b[p + 1] = (index >>> 8) & 0xff;
    b[p + 2] = (index >>> 16) & 0xff;
    b[p + 3] = (index >>> 24) & 0xff;
    p += 4;
    let len = n;
    while (len >= 0x80) {
      b[p++] = (len & 0x7f) | 0x80;
      len >>>= 7;
    }
    b[p++] = len;
    for (let i = start; i < end; i++) b[p++] = src[i] as number;
    this.used = p;
    this.states++;
    this.written++;
  }

  /** Closes the current segment: kept in memory, or spilled if memory would pass the bound. */
  private seal(): void {
    if (this.states === 0) return;
    const size = kib(this.bytes.length);
    const memory = Atomics.load(this.account, MEMORY_KIB);
    if (this.spill.directory !== undefined && (memory + size) * 1024 > this.spill.memoryBound) {
      if (this.fd === undefined) {
        mkdirSync(this.spill.directory, { recursive: true });
        this.fd = openSync(join(this.spill.directory, this.fileName), 'w');
      }
      writeSync(this.fd, this.bytes, 0, this.used);
      this.done.push({
        kind: 'file',
        path: join(this.spill.directory, this.fileName),
        offset: this.fileOffset,
        bytes: this.used,
        states: this.states,
      });
      this.fileOffset += this.used;
      Atomics.add(this.account, SPILLED_SEGMENTS, 1);
      Atomics.add(this.account, SPILLED_KIB, kib(this.used));
      // The buffer is reused for the next segment.
    } else {
      const now = Atomics.add(this.account, MEMORY_KIB, size) + size;
      let peak = Atomics.load(this.account, PEAK_KIB);
      while (now > peak) {
        const seen = Atomics.compareExchange(this.account, PEAK_KIB, peak, now);
        if (seen === peak) break;
        peak = seen;
      }
      this.done.push({ kind: 'memory', buffer: this.buffer, bytes: this.used, states: this.states });
      this.buffer = takeSegment(this.shared);
      this.bytes = new Uint8Array(this.buffer);
    }
    this.used = 0;
    this.states = 0;
  }

  /** The segments written (the last one sealed), in order. */
  finish(): FrontierSegment[] {
    this.seal();
    // The writer is done: its empty buffer serves the next one.
    giveBackSegment(this.buffer);
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    return this.done;
  }
}

/** Reads the records of one segment at a time. */
export class FrontierReader {
  private readonly account: Int32Array;
  private local = new Uint8Array(0);
  private bytes: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  private segment: FrontierSegment | undefined;
  /** The current record: its state's index and where its encoding lies in `data`. */
  index = 0;
  start = 0;
  stop = 0;
  /** A reader over the current record's encoding. */
  readonly reader = new ByteReader();

  constructor(account: SharedArrayBuffer) {
    this.account = new Int32Array(account);
  }

  /** The bytes the current record's encoding lies in. */
  get data(): Uint8Array<ArrayBufferLike> {
    return this.bytes;
  }

  open(segment: FrontierSegment): void {
    this.segment = segment;
    if (segment.kind === 'memory') {
      this.bytes = new Uint8Array(segment.buffer, 0, segment.bytes);
    } else {
      if (this.local.length < segment.bytes) this.local = new Uint8Array(Math.max(segment.bytes, SEGMENT_BYTES));
      const fd = openSync(segment.path, 'r');
      try {
        let got = 0;
        while (got < segment.bytes) {
          const n = readSync(fd, this.local, got, segment.bytes - got, segment.offset + got);
          if (n === 0) throw new Error(`spilled frontier segment ${segment.path} is shorter than written`);
          got += n;
        }
      } finally {
        closeSync(fd);
      }
      this.bytes = this.local.subarray(0, segment.bytes);
    }
    this.pos = 0;
    this.end = segment.bytes;
  }

  /** Moves to the next record; false at the end of the segment (which is then released). */
  next(): boolean {
    if (this.pos >= this.end) {
      this.release();
      return false;
    }
    const b = this.bytes;
    let p = this.pos;
    this.index = ((b[p] as number) | ((b[p + 1] as number) << 8) | ((b[p + 2] as number) << 16) | ((b[p + 3] as number) << 24)) >>> 0;
    p += 4;
    let len = 0;
    let shift = 0;
    for (;;) {
      const x = b[p++] as number;
      len |= (x & 0x7f) << shift;
      if (x < 0x80) break;
      shift += 7;
    }
    this.start = p;
    this.stop = p + len;
    this.pos = p + len;
    this.reader.reset(b, this.start, this.stop);
    return true;
  }

  private release(): void {
    const s = this.segment;
    if (s?.kind === 'memory') {
      Atomics.sub(this.account, MEMORY_KIB, kib(s.buffer.byteLength));
      giveBackSegment(s.buffer);
    }
    this.segment = undefined;
    this.bytes = NO_BYTES;
  }
}
