// A Bloom filter of row identities (SPEC J2: key, side, id), for checking the
// input contract (J9) of a long log in fixed memory: every identity the
// oracle binds goes in; an identity bound anew that the filter already
// holds may be a re-use of a forgotten identity. The filter never misses
// one (no false negatives); what it flags is only a suspicion, which the
// audit confirms exactly in a second pass over the records of the suspected
// identities alone (a row's fate depends only on its own records and the
// watermarks), so a false positive costs time, never a wrong verdict.

/**
 * A 32-bit hash of the identity's parts (each part's length goes in too, so
 * no two identities run together). Two of them, with different multipliers
 * and shifts, are independent enough to give the filter 64 bits: with one
 * 32-bit hash, two of ten million identities would share it by chance about
 * ten thousand times.
 */
function mix(h: number, s: string, multiplier: number, shift: number): number {
  let x = h;
  for (let i = 0; i < s.length; i++) {
    x = Math.imul(x ^ s.charCodeAt(i), multiplier);
    x ^= x >>> shift;
  }
  return Math.imul(x ^ s.length, multiplier);
}

function hash(seed: number, multiplier: number, shift: number, key: string, side: string, id: string): number {
  let h = mix(mix(mix(seed, key, multiplier, shift), side, multiplier, shift), id, multiplier, shift);
  // A final avalanche, so that nearby identities spread over the whole table.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Bits set per identity, all in one 512-bit block (one cache line): one memory access per identity. */
const PROBES = 10;
const BLOCK_WORDS = 16;

export class IdentityFilter {
  private readonly bits: Uint32Array;
  private readonly blocks: number;

  /** A filter of 2^`log2Bits` bits. */
  constructor(log2Bits: number) {
    this.bits = new Uint32Array(2 ** Math.max(9, log2Bits) / 32);
    this.blocks = this.bits.length / BLOCK_WORDS;
  }

  /**
   * The size for about `expected` identities: 32 bits each (a false
   * suspicion about once in 10^5 new identities), between 1 MiB and 64 MiB.
   */
  static forIdentities(expected: number): IdentityFilter {
    const wanted = Math.ceil(Math.log2(Math.max(1, expected * 32)));
    return new IdentityFilter(Math.min(29, Math.max(23, wanted)));
  }

  /** Adds the identity; returns whether it was (possibly) there before. */
  add(key: string, side: string, id: string): boolean {
    const h1 = hash(0x811c9dc5, 0x01000193, 13, key, side, id);
    const h2 = hash(0x9e3779b9, 0x5bd1e995, 15, key, side, id);
    const base = (h1 % this.blocks) * BLOCK_WORDS;
    // The bits inside the block: a xorshift sequence seeded with all 32 bits of the second hash, so
    // that two identities of one block share their bits only if they share that hash (not 17 bits of it).
    let x = h2 | 1;
    let present = true;
    for (let i = 0; i < PROBES; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const bit = x & 511;
      const word = base + (bit >>> 5);
      const flag = 1 << (bit & 31);
      const w = this.bits[word] as number;
      if ((w & flag) === 0) {
        present = false;
        this.bits[word] = w | flag;
      }
    }
    return present;
  }

  /** Bytes the filter holds. */
  get byteLength(): number {
    return this.bits.byteLength;
  }
}
