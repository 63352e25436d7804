// Exit codes shared by the commands (each command's --help lists its own).
import { InputError } from '../spec/index.ts';

export const EXIT = {
  /** Everything checked holds. */
  ok: 0,
  /** A check failed: an expectation, a property, a conformance step. */
  fail: 1,
  /** Bad input or usage. */
  badInput: 2,
  /** `check`: a time or state budget ran out before the bound was exhausted (never a pass). */
  budget: 3,
} as const;

export function usageError(message: string): InputError {
  return new InputError('SJ105', 'usage', message);
}
