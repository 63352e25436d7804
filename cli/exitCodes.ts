// The one exit-code convention of every streamjoin command (SPEC §8), and the
// typed usage error that every command throws and `main` alone turns into a
// message and an exit code.
import { InputError, type OverallVerdict } from '../spec/index.ts';

export const EXIT = {
  /** Everything checked holds: a pass. */
  pass: 0,
  /** A failure: a violation, a divergence, a surviving mutant, an unmet expectation. */
  fail: 1,
  /** Unknown: a budget ran out, or the system under test is dead, hung or babbling. Never a pass. */
  unknown: 2,
  /** Bad input or usage: the one-line message names the file, the place and the field. */
  badInput: 254,
  /** An internal error: a bug in streamjoin. */
  internal: 255,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A verdict as the text prints it: the library's and the JSON report's word, in capitals (PASS, FAIL, UNKNOWN). */
export function verdictText(verdict: OverallVerdict): string {
  return verdict.toUpperCase();
}

/** How bad each exit code is, for a job of several parts: an internal error, bad input, a failure, unknown, a pass. */
const SEVERITY: readonly number[] = [EXIT.pass, EXIT.unknown, EXIT.fail, EXIT.badInput, EXIT.internal];

/**
 * The exit code of several parts: the worst of theirs. A failure outranks
 * unknown (a violation found is a verdict, whatever else could not be judged).
 */
export function worstExit(codes: Iterable<number>): number {
  let worst: number = EXIT.pass;
  for (const c of codes) if (SEVERITY.indexOf(c) > SEVERITY.indexOf(worst)) worst = c;
  return worst;
}

/** Bad command-line usage (SJ105): thrown by a command, printed once by `main`. */
export class UsageError extends InputError {
  constructor(message: string) {
    super('SJ105', 'usage', message);
    this.name = 'UsageError';
  }
}

export function usageError(message: string): UsageError {
  return new UsageError(message);
}

/** A positive integer flag value, or a usage error naming the flag. */
export function positiveIntegerFlag(flag: string, text: string, unit = ''): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive integer${unit ? ` (${unit})` : ''}, got "${text}"`);
  return n;
}

/** A non-negative integer flag value, or a usage error naming the flag. */
export function nonNegativeIntegerFlag(flag: string, text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag} must be a non-negative integer, got "${text}"`);
  return n;
}

/**
 * The seed of a command's random traces: `--seed`, else STREAMJOIN_SEED, else
 * a fresh one (every command prints the seed it used, so any run replays).
 */
export function seedFlag(text: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const given = text ?? (env['STREAMJOIN_SEED'] === '' ? undefined : env['STREAMJOIN_SEED']);
  if (given === undefined) return (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const where = text !== undefined ? '--seed' : 'STREAMJOIN_SEED';
  if (!/^-?\d+$/.test(given) || !Number.isSafeInteger(Number(given))) throw new UsageError(`${where} must be an integer, got "${given}"`);
  return Number(given) | 0;
}
