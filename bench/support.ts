// What the benchmark scripts share: the --seed and --quick flags (every
// random choice comes from the seed, printed first), a seeded random source,
// and how figures are summed up and compared.
import { parseArgs } from 'node:util';
import { seededRandom } from '../conformance/generate/seededRandom.ts';

/**
 * A benchmark script's flags, parsed by `parse`: `--help` prints `usage` and
 * exits 0; a flag it does not know, or a value missing, prints what is wrong
 * and `usage` on stderr and exits 254 (bad usage), never a stack trace.
 */
export function parsedFlags<T>(usage: string, parse: () => T): T {
  if (process.argv.slice(2).includes('--help')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parse();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(e as Error).message}\n${usage}\n`);
      process.exit(254);
    }
    throw e;
  }
}

/** `--seed N` (or a fresh one) and `--quick` (fewer, smaller runs). */
export function seedAndQuickFlags(): { seed: number; quick: boolean } {
  const script = process.argv[1] ?? 'the benchmark';
  const { values } = parsedFlags(`usage: node --import tsx ${script} [--seed N] [--quick]`, () =>
    parseArgs({ options: { seed: { type: 'string' }, quick: { type: 'boolean', default: false } } }),
  );
  return { seed: seedFlag(values.seed), quick: values.quick ?? false };
}

/** `--seed N` as given (not an integer: said so, exit 254), or a fresh seed when it is not given (printed by the caller, so the run replays). */
export function seedFlag(value: string | undefined): number {
  const seed = value !== undefined ? Number(value) : (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  if (!Number.isSafeInteger(seed)) {
    process.stderr.write(`--seed must be an integer, got ${JSON.stringify(value)}\n`);
    process.exit(254);
  }
  return seed;
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
