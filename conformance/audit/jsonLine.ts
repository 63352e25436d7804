// One line of a history as JSON, read exactly. JSON.parse reads every
// number as a double, so an integer of more than 15 digits (an epoch in
// microseconds or nanoseconds, a 64-bit id) would come back rounded. Such
// integers are read as their decimal text instead (a string), which the row
// readers take as a time (times.ts) or an id, exactly. A line that is not
// JSON is SJ101 at its column.
import { jsonTextError, lineColumn } from '../../spec/index.ts';

/** A line that is not JSON (SJ101) or not of its format (SJ102): where in the line, by column or by JSON pointer. */
export class LineProblem extends Error {
  readonly code: 'SJ101' | 'SJ102';
  readonly column: number | undefined;
  /** The JSON pointer of the value the problem is in (its column is found in the line's text). */
  readonly pointer: string | undefined;
  constructor(code: 'SJ101' | 'SJ102', message: string, column?: number, pointer?: string) {
    super(message);
    this.name = 'LineProblem';
    this.code = code;
    this.column = column;
    this.pointer = pointer;
  }
}

/** SJ102 at the value a JSON pointer names. */
export const problemAt = (pointer: string, message: string): LineProblem => new LineProblem('SJ102', message, undefined, pointer);

/** Digits enough that an integer may not be exact as a double (2^53 has 16). */
const LONG_INTEGER = /\d{16}/;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** The text with every integer literal beyond Number.MAX_SAFE_INTEGER (outside strings) in quotes. */
function quoteLongIntegers(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
    } else if (c === 0x2d || isDigit(c)) {
      const start = i;
      i++;
      while (i < text.length && isDigit(text.charCodeAt(i))) i++;
      const next = text.charCodeAt(i);
      const integer = next !== 0x2e && next !== 0x65 && next !== 0x45;
      const literal = text.slice(start, i);
      if (integer && /^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        out += `${text.slice(from, start)}"${literal}"`;
        from = i;
      }
      while (i < text.length && /[\d.eE+-]/.test(text[i] as string)) i++;
    } else i++;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** JSON.parse of one line, its long integers as their decimal text; SJ101 with the column where it fails. */
export function parseLine(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // V8's message may quote the bytes and lacks a position for some errors: say it ourselves.
    const e = jsonTextError(text) ?? { offset: 0, message: 'not valid JSON' };
    throw new LineProblem('SJ101', e.message, lineColumn(text, e.offset).column);
  }
  return LONG_INTEGER.test(text) ? (JSON.parse(quoteLongIntegers(text)) as unknown) : value;
}
