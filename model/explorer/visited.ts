// The visited set: maps a state (by its canonical encoding) to the index
// under which it was discovered (indices are dense and in discovery order).
// Two modes: the encodings themselves (exact, large), or 64-bit fingerprints
// in an open-addressing table over typed arrays (compact, with a tiny
// collision probability the report states). A fingerprint is the hash of the
// encoding, or the model's own `fingerprint` of the state when it has one
// (which skips building the string).
import { fingerprintLanes, fingerprintOf } from './fingerprint.ts';
import type { Model, VisitedMode } from './types.ts';

export interface VisitedSet<S> {
  readonly mode: VisitedMode;
  readonly size: number;
  /** The index of this state, or -1. */
  find(state: S): number;
  /** The index of this state; or, if new, adds it and returns `-(index + 1)`. */
  findOrAdd(state: S): number;
  /** Is the state stored at `index` this one (as far as the mode can tell)? */
  matches(index: number, state: S): boolean;
  /** Bytes allocated by the set itself. */
  bytes(): number;
}

/** What the visited set needs of a model. */
export type StateKeys<S> = Pick<Model<S, unknown>, 'encode' | 'fingerprint'>;

/** Growth factor of the per-state arrays: 1.5 keeps the slack (and so bytes per state) low. */
export function grownCapacity(current: number, needed: number): number {
  let c = Math.max(current, 1024);
  while (c < needed) c = Math.ceil(c * 1.5);
  return c;
}

/** Exact mode: a Map from encoding to index, and the encodings by index. */
export class ExactVisitedSet<S> implements VisitedSet<S> {
  readonly mode = 'exact' as const;
  private readonly indexOf = new Map<string, number>();
  private readonly encodings: string[] = [];
  private stringBytes = 0;
  private readonly encode: (state: S) => string;

  constructor(keys: StateKeys<S>) {
    this.encode = keys.encode.bind(keys);
  }

  get size(): number {
    return this.encodings.length;
  }

  find(state: S): number {
    return this.indexOf.get(this.encode(state)) ?? -1;
  }

  findOrAdd(state: S): number {
    const encoding = this.encode(state);
    const found = this.indexOf.get(encoding);
    if (found !== undefined) return found;
    const index = this.encodings.length;
    this.indexOf.set(encoding, index);
    this.encodings.push(encoding);
    this.stringBytes += encoding.length;
    return -(index + 1);
  }

  matches(index: number, state: S): boolean {
    return this.encodings[index] === this.encode(state);
  }

  /**
   * An estimate (V8 does not expose exact sizes): each string's characters
   * (one byte each for Latin-1 text) plus a 16-byte header, about 40 bytes
   * per Map entry, 8 for the array slot. `bench/explorer.ts` measures heap
   * growth for comparison.
   */
  bytes(): number {
    return this.stringBytes + this.encodings.length * (16 + 40 + 8);
  }
}

/**
 * Fingerprint mode. Per state: its two 32-bit lanes, side by side in `lanes`
 * (one cache line serves both on a probe); the table holds `index + 1`
 * (0 = empty) in open addressing with linear probing, at most 3/4 full,
 * positioned by the low lane. Per state that is 8 bytes of lanes plus 4/load
 * bytes of table (5.3 to 10.7).
 */
export class FingerprintVisitedSet<S> implements VisitedSet<S> {
  readonly mode = 'fingerprint' as const;
  private lanes = new Int32Array(2048);
  private table = new Int32Array(2048);
  private mask = 2047;
  private count = 0;
  private readonly encode: (state: S) => string;
  private readonly fingerprint: ((state: S, out: Int32Array) => void) | undefined;

  constructor(keys: StateKeys<S>) {
    this.encode = keys.encode.bind(keys);
    this.fingerprint = keys.fingerprint?.bind(keys);
  }

  /** Leaves the state's fingerprint in `fingerprintLanes`. */
  private fingerprintState(state: S): void {
    if (this.fingerprint) this.fingerprint(state, fingerprintLanes);
    else fingerprintOf(this.encode(state));
  }

  get size(): number {
    return this.count;
  }

  find(state: S): number {
    this.fingerprintState(state);
    const hi = fingerprintLanes[0] as number;
    const lo = fingerprintLanes[1] as number;
    const table = this.table;
    const lanes = this.lanes;
    const mask = this.mask;
    for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot] as number;
      if (entry === 0) return -1;
      const at = (entry - 1) << 1;
      if (lanes[at + 1] === lo && lanes[at] === hi) return entry - 1;
    }
  }

  findOrAdd(state: S): number {
    this.fingerprintState(state);
    const hi = fingerprintLanes[0] as number;
    const lo = fingerprintLanes[1] as number;
    const table = this.table;
    const mask = this.mask;
    let lanes = this.lanes;
    let slot = lo & mask;
    for (; ; slot = (slot + 1) & mask) {
      const entry = table[slot] as number;
      if (entry === 0) break;
      const at = (entry - 1) << 1;
      if (lanes[at + 1] === lo && lanes[at] === hi) return entry - 1;
    }
    const index = this.count;
    if (index * 2 === lanes.length) {
      const grown = new Int32Array(grownCapacity(lanes.length >>> 1, index + 1) * 2);
      grown.set(lanes);
      this.lanes = lanes = grown;
    }
    lanes[index << 1] = hi;
    lanes[(index << 1) + 1] = lo;
    table[slot] = index + 1;
    this.count = index + 1;
    if (this.count * 4 > table.length * 3) this.growTable();
    return -(index + 1);
  }

  matches(index: number, state: S): boolean {
    this.fingerprintState(state);
    return this.lanes[index << 1] === fingerprintLanes[0] && this.lanes[(index << 1) + 1] === fingerprintLanes[1];
  }

  bytes(): number {
    return this.lanes.byteLength + this.table.byteLength;
  }

  /** Doubles the table and re-inserts every index from its low lane (no re-hashing of strings). */
  private growTable(): void {
    const size = this.table.length * 2;
    const table = new Int32Array(size);
    const mask = size - 1;
    const lanes = this.lanes;
    for (let index = 0; index < this.count; index++) {
      let slot = (lanes[(index << 1) + 1] as number) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = index + 1;
    }
    this.table = table;
    this.mask = mask;
  }
}

export function createVisitedSet<S>(mode: VisitedMode, keys: StateKeys<S>): VisitedSet<S> {
  return mode === 'exact' ? new ExactVisitedSet(keys) : new FingerprintVisitedSet(keys);
}
