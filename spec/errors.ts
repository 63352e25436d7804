// Stable error codes for bad input (SPEC §8). A code never changes meaning;
// new failure kinds get new codes. Messages are for people, codes for tools.

/** Every error code for bad input, with what it means (SPEC §8). */
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
  SJ110: 'file is larger than a document may be',
  SJ111: "a trace's expectation disagrees with the reference model",
  SJ112: 'a recorded log holds an invalid record (J1)',
  SJ113: 'file cannot be written',
} as const;

/** A stable error code: a key of `ERROR_CODES` (SPEC §8). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Longest `where` (file:line:column) and message an error line shows, in characters. */
export const MAX_WHERE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 400;

// Characters that are not plainly printable on one line: controls (C0, DEL,
// C1), format characters (bidirectional overrides, zero-width ones, the BOM),
// line and paragraph separators, lone surrogates, private-use and unassigned
// code points.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short) return short;
  const cp = ch.codePointAt(0) ?? 0;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

const escapeAll = (s: string): string => s.replace(UNPRINTABLE, escapeChar);

/** `s` cut to `n` UTF-16 units from its start (or, with `fromEnd`, its end) without splitting a surrogate pair. */
function cut(s: string, n: number, fromEnd = false): string {
  if (s.length <= n) return s;
  if (!fromEnd) {
    const end = /[\ud800-\udbff]/.test(s[n - 1] ?? '') ? n - 1 : n;
    return s.slice(0, end);
  }
  const start = s.length - n;
  return s.slice(/[\udc00-\udfff]/.test(s[start] ?? '') ? start + 1 : start);
}

/**
 * Text as it may appear on one printable line of output: every character
 * that is not plainly printable escaped (`\n`, `\t`, `\u0007`, `\u202e`), so
 * input bytes can neither split the line nor drive a terminal, and at most
 * `max` characters, the middle elided (`…`) when longer.
 */
export function printable(text: string, max: number = MAX_MESSAGE_CHARS): string {
  // Escaping can only lengthen text: bound the work on a huge text first.
  const head = escapeAll(cut(text, max));
  if (head.length <= max && text.length <= max) return head;
  const keep = Math.max(1, Math.floor((max - 1) / 2));
  const tail = escapeAll(cut(text, max - 1 - keep, true));
  return `${cut(head, keep)}…${cut(tail, max - 1 - keep, true)}`;
}

/**
 * An input the tools refuse. `where` names the file (and, inside it, the
 * line and column); the CLI prints `where: code message` and exits 254.
 * Both are kept printable and bounded (`printable`): one error is one line.
 */
export class InputError extends Error {
  /** Stable error code (SPEC §8). */
  readonly code: ErrorCode;
  /** Where the input is wrong: the file, and inside it line:column when known. */
  readonly where: string;
  /** Builds the error; `where` and `message` are made printable and bounded. */
  constructor(code: ErrorCode, where: string, message: string) {
    super(printable(message, MAX_MESSAGE_CHARS));
    this.name = 'InputError';
    this.code = code;
    this.where = printable(where, MAX_WHERE_CHARS);
  }
  /** The one-line form the CLI prints. */
  format(): string {
    return `${this.where}: ${this.code} ${this.message}`;
  }
}
