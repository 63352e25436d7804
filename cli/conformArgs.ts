// Exit codes and argument helpers of the harness commands (conform, replay,
// serve). Their exit codes differ from the other commands': 2 is `unknown`
// there, so bad input and usage get 254.
import type { Output } from './output.ts';

export const CONFORM_EXIT = {
  /** Every trace conforms. */
  pass: 0,
  /** A divergence: the system under test departs from the model. */
  fail: 1,
  /** The system under test cannot be judged (dead, hung, babbling), or the budget ran out. */
  unknown: 2,
  /** Bad input or usage. */
  usage: 254,
} as const;

/** Prints a usage error (SJ105) and returns the usage exit code. */
export function usageFailure(out: Output, message: string): number {
  out.stderr(`usage: SJ105 ${message}\n`);
  return CONFORM_EXIT.usage;
}

export function positiveInteger(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function nonNegativeInteger(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
