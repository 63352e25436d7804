// The visited set: maps a state's canonical encoding to the index under which
// the state was discovered (indices are dense and in discovery order). Two
// modes: the encodings themselves (exact, large), or their 64-bit fingerprints
// in an open-addressing table over typed arrays (compact, with a tiny
// collision probability the report states).
import { fingerprintLanes, fingerprintOf } from './fingerprint.ts';
import type { VisitedMode } from './types.ts';

export interface VisitedSet {
  readonly mode: VisitedMode;
  readonly size: number;
  /** The index of the state with this encoding, or -1. */
  find(encoding: string): number;
  /** The index of the state with this encoding; or, if new, adds it and returns `-(index + 1)`. */
  findOrAdd(encoding: string): number;
  /** Does the state stored at `index` have this encoding (as far as the mode can tell)? */
  matches(index: number, encoding: string): boolean;
  /** Bytes allocated by the set itself. */
  bytes(): number;
}

/** Growth factor of the per-state arrays: 1.5 keeps the slack (and so bytes per state) low. */
export function grownCapacity(current: number, needed: number): number {
  let c = Math.max(current, 1024);
  while (c < needed) c = Math.ceil(c * 1.5);
  return c;
}

/** Exact mode: a Map from encoding to index, and the encodings by index. */
export class ExactVisitedSet implements VisitedSet {
  readonly mode = 'exact' as const;
  private readonly indexOf = new Map<string, number>();
  private readonly encodings: string[] = [];
  private stringBytes = 0;

  get size(): number {
    return this.encodings.length;
  }

  find(encoding: string): number {
    return this.indexOf.get(encoding) ?? -1;
  }

  findOrAdd(encoding: string): number {
    const found = this.indexOf.get(encoding);
    if (found !== undefined) return found;
    const index = this.encodings.length;
    this.indexOf.set(encoding, index);
    this.encodings.push(encoding);
    this.stringBytes += encoding.length;
    return -(index + 1);
  }

  matches(index: number, encoding: string): boolean {
    return this.encodings[index] === encoding;
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
export class FingerprintVisitedSet implements VisitedSet {
  readonly mode = 'fingerprint' as const;
  private lanes = new Int32Array(2048);
  private table = new Int32Array(2048);
  private mask = 2047;
  private count = 0;

  get size(): number {
    return this.count;
  }

  find(encoding: string): number {
    fingerprintOf(encoding);
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

  findOrAdd(encoding: string): number {
    fingerprintOf(encoding);
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

  matches(index: number, encoding: string): boolean {
    fingerprintOf(encoding);
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

export function createVisitedSet(mode: VisitedMode): VisitedSet {
  return mode === 'exact' ? new ExactVisitedSet() : new FingerprintVisitedSet();
}
