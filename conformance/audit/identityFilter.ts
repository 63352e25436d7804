// A Bloom filter of row identities (SPEC J2: key, side, id), for checking the
// input contract (J9) of a long log in fixed memory: every identity the
// oracle binds goes in; an identity bound anew that the filter already
// holds may be a re-use of a forgotten identity. The filter never misses
// one (no false negatives); what it flags is only a suspicion, which the
// audit confirms exactly in a second pass over the records of the suspected
// identities alone (a row's fate depends only on its own records and the
// watermarks), so a false positive costs time, never a wrong verdict.

/** FNV-1a over the identity's parts, with a separator no part can confuse (the lengths go in too). */
function hash(seed: number, key: string, side: string, id: string): number {
  let h = seed >>> 0;
  const mix = (s: string): void => {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= s.length;
    h = Math.imul(h, 0x01000193);
  };
  mix(key);
  mix(side);
  mix(id);
  // A final avalanche, so that nearby identities spread over the whole table.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const PROBES = 7;

export class IdentityFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  /** A filter of 2^`log2Bits` bits. */
  constructor(log2Bits: number) {
    this.bits = new Uint32Array(2 ** Math.max(5, log2Bits) / 32);
    this.mask = 2 ** Math.max(5, log2Bits) - 1;
  }

  /** The size for about `expected` identities: ten bits each (about 1% false positives), between 1 MiB and 64 MiB. */
  static forIdentities(expected: number): IdentityFilter {
    const wanted = Math.ceil(Math.log2(Math.max(1, expected * 10)));
    return new IdentityFilter(Math.min(29, Math.max(23, wanted)));
  }

  /** Adds the identity; returns whether it was (possibly) there before. */
  add(key: string, side: string, id: string): boolean {
    const h1 = hash(0x811c9dc5, key, side, id);
    const h2 = hash(0x9e3779b9, key, side, id) | 1;
    let present = true;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      const word = bit >>> 5;
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
