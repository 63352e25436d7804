// A small seeded random source for what is generated outside fast-check
// (sliding logs, recorded example histories, where damage goes): every run
// of a seed gives the same numbers.

/** xorshift32, seeded: numbers in [0, 1). A zero seed is replaced by a fixed odd one (xorshift never leaves 0). */
export function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}
