// Stable error codes for bad input (SPEC §8). A code never changes meaning;
// new failure kinds get new codes. Messages are for people, codes for tools.

export const ERROR_CODES = {
  SJ100: 'file cannot be read',
  SJ101: 'file is not valid JSON',
  SJ102: 'document does not match its schema',
  SJ103: 'unknown document format or version',
  SJ104: 'log violates the input contract (J9)',
  SJ105: 'bad command-line usage',
  SJ106: 'cluster config is inconsistent (C1)',
  SJ107: 'a conformance trace holds a process action (SPEC §7)',
  SJ108: 'counterexample does not replay against the model',
  SJ109: 'reports cannot be merged (the same shard twice, or shards that disagree)',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * An input the tools refuse. `where` names the file (and, inside it, the step
 * or JSON pointer); the CLI prints `where: code message` and exits 254 (SPEC §8).
 */
export class InputError extends Error {
  readonly code: ErrorCode;
  readonly where: string;
  constructor(code: ErrorCode, where: string, message: string) {
    super(message);
    this.name = 'InputError';
    this.code = code;
    this.where = where;
  }
  /** The one-line form the CLI prints. */
  format(): string {
    return `${this.where}: ${this.code} ${this.message}`;
  }
}
