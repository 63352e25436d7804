// What the benchmark scripts share: the --seed and --quick flags (every
// random choice comes from the seed, printed first), a seeded random source,
// and how figures are summed up and compared.
import { parseArgs } from 'node:util';
import { seededRandom } from '../conformance/generate/seededRandom.ts';

/** `--seed N` (or a fresh one) and `--quick` (fewer, smaller runs). */
export function seedAndQuickFlags(): { seed: number; quick: boolean } {
  const { values } = parseArgs({ options: { seed: { type: 'string' }, quick: { type: 'boolean', default: false } } });
  const seed = values.seed !== undefined ? Number(values.seed) : (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  return { seed, quick: values.quick ?? false };
}

/** xorshift32: tiny, seeded, good enough to spread positions; numbers in [0, 1) (the generators' own source). */
export const rng: (seed: number) => () => number = seededRandom;

/** The median of a non-empty list (the lower middle for an even length). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const m = sorted[(sorted.length - 1) >> 1];
  if (m === undefined) throw new Error('median of no figures');
  return m;
}

/** a / b as a ratio, e.g. "3.2×", or "140×" from 100 up. */
export const ratio = (a: number, b: number): string => `${a / b >= 100 ? (a / b).toFixed(0) : (a / b).toFixed(1)}×`;
