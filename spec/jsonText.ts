// Positions in JSON text, for errors that say where (SPEC §8): where a
// syntax error is and what was found there, where nesting gets too deep,
// where the value at a JSON pointer starts, and where bytes stop being
// UTF-8. The parsing itself is JSON.parse's; this scanner runs only to
// explain a failure or to place an error, so it favours clarity over speed,
// and it never recurses over the text's nesting (a document of 100,000
// nested arrays is an error, not a stack overflow).

/** Line and column (1-based; the column counts characters, not UTF-16 units) of a UTF-16 offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const end = Math.min(Math.max(offset, 0), text.length);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) {
    const c = text.charCodeAt(i);
    // The second half of a surrogate pair is the same character.
    if (c >= 0xdc00 && c <= 0xdfff && i > lineStart && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    column++;
  }
  return { line, column };
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** A character as an error message shows it: `'x'`, or its code point when it is not plainly printable. */
export function describeChar(text: string, offset: number): string {
  const cp = text.codePointAt(offset);
  if (cp === undefined) return 'the end of the document';
  if (cp > 0x20 && cp < 0x7f) return `'${String.fromCodePoint(cp)}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

export interface JsonTextError {
  /** UTF-16 offset of the problem. */
  readonly offset: number;
  readonly message: string;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhitespace(text: string, i: number): number {
  let at = i;
  while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
  return at;
}

/** One open array or object, for messages about where it was opened. */
interface Open {
  readonly kind: 'array' | 'object';
  readonly offset: number;
}

function where(text: string, offset: number): string {
  const { line, column } = lineColumn(text, offset);
  return `${line}:${column}`;
}

/**
 * Scans a string literal starting at `i` (the opening quote); returns the
 * offset after its closing quote, or the error.
 */
function scanString(text: string, i: number): number | JsonTextError {
  let at = i + 1;
  for (;;) {
    if (at >= text.length) return { offset: i, message: `unterminated string (it opens at ${where(text, i)} and the document ends first)` };
    const c = text.charCodeAt(at);
    if (c === 0x22) return at + 1;
    if (c < 0x20) {
      return {
        offset: at,
        message:
          `control character ${describeChar(text, at)} inside a string: write it escaped (\\n, \\t, \\u00XX)` +
          `${c === 0x0a ? ', or close the string before the line ends' : ''}`,
      };
    }
    if (c === 0x5c) {
      const e = text[at + 1];
      if (e === undefined) return { offset: i, message: `unterminated string (it opens at ${where(text, i)} and the document ends first)` };
      if ('"\\/bfnrt'.includes(e)) at += 2;
      else if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6)))
          return { offset: at, message: 'bad \\u escape in a string: it takes four hex digits' };
        at += 6;
      } else return { offset: at, message: `bad escape: a backslash followed by ${describeChar(text, at + 1)} in a string` };
    } else at++;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Scans one scalar (string, number, literal) at `i`; returns the offset after it, or the error. */
function scanScalar(text: string, i: number): number | JsonTextError {
  const c = text.charCodeAt(i);
  if (c === 0x22) return scanString(text, i);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    const end = m ? i + m[0].length : i;
    const next = text.charCodeAt(end);
    if (!m || end === i || next === 0x2e || next === 0x65 || next === 0x45 || (next >= 0x30 && next <= 0x39)) {
      return { offset: i, message: 'bad number (JSON numbers are like -12, 0.5, 1e9: no leading zeros, leading +, or trailing dot)' };
    }
    return end;
  }
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, i)) return i + literal.length;
    if (text[i] === literal[0]) return { offset: i, message: `bad literal: did you mean ${literal}?` };
  }
  if (i >= text.length) return { offset: i, message: 'the document ends where a value should be' };
  return {
    offset: i,
    message: `unexpected ${describeChar(text, i)}: expected a JSON value (object, array, string, number, true, false or null)`,
  };
}

/**
 * The first syntax error of a JSON text and its position, or undefined if
 * the text is one valid JSON value. With `maxDepth`, arrays and objects
 * nested deeper than that are an error too (at the bracket that goes over).
 */
export function jsonTextError(text: string, maxDepth = Number.POSITIVE_INFINITY): JsonTextError | undefined {
  if (text.length === 0) return { offset: 0, message: 'the document is empty: expected a JSON value' };
  const stack: Open[] = [];
  let i = skipWhitespace(text, 0);
  if (i >= text.length) return { offset: i, message: 'the document holds only white space: expected a JSON value' };
  // States: expecting a value; after a value (inside a container or at the top).
  let expectValue = true;
  for (;;) {
    if (expectValue) {
      i = skipWhitespace(text, i);
      const c = text.charCodeAt(i);
      if (c === 0x5b || c === 0x7b) {
        if (stack.length >= maxDepth) {
          return { offset: i, message: `arrays and objects nest deeper than ${maxDepth} levels; no streamjoin document nests that deep` };
        }
        const kind = c === 0x5b ? 'array' : 'object';
        stack.push({ kind, offset: i });
        i = skipWhitespace(text, i + 1);
        const close = text.charCodeAt(i);
        if (kind === 'array' && close === 0x5d) {
          stack.pop();
          i++;
          expectValue = false;
          continue;
        }
        if (kind === 'object') {
          if (close === 0x7d) {
            stack.pop();
            i++;
            expectValue = false;
            continue;
          }
          const key = memberKey(text, i, stack);
          if (typeof key !== 'number') return key;
          i = key;
        }
        continue;
      }
      if (i >= text.length) return endInside(text, stack);
      const end = scanScalar(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      expectValue = false;
      continue;
    }
    // After a value.
    i = skipWhitespace(text, i);
    const top = stack.at(-1);
    if (!top) {
      if (i >= text.length) return undefined;
      return { offset: i, message: `unexpected ${describeChar(text, i)} after the end of the JSON value: a document is one value` };
    }
    if (i >= text.length) return endInside(text, stack);
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      i = skipWhitespace(text, i + 1);
      if (top.kind === 'object') {
        const key = memberKey(text, i, stack);
        if (typeof key !== 'number') return key;
        i = key;
      }
      expectValue = true;
      continue;
    }
    if ((top.kind === 'array' && c === 0x5d) || (top.kind === 'object' && c === 0x7d)) {
      stack.pop();
      i++;
      continue;
    }
    return {
      offset: i,
      message:
        `unexpected ${describeChar(text, i)}: expected ',' or ` +
        `'${top.kind === 'array' ? ']' : '}'}' after ` +
        `${top.kind === 'array' ? 'an array element' : 'a property value'} (the ${top.kind} opens ` +
        `at ${where(text, top.offset)})`,
    };
  }
}

/** A member's key and colon at `i` inside an object; returns the offset of its value, or the error. */
function memberKey(text: string, i: number, stack: readonly Open[]): number | JsonTextError {
  if (i >= text.length) return endInside(text, stack);
  if (text.charCodeAt(i) !== 0x22) {
    return {
      offset: i,
      message: `unexpected ${describeChar(text, i)}: expected a property name in double quotes${text.charCodeAt(i) === 0x7d ? ' (no comma before the closing brace)' : ''}`,
    };
  }
  const end = scanString(text, i);
  if (typeof end !== 'number') return end;
  const colon = skipWhitespace(text, end);
  if (colon >= text.length) return endInside(text, stack);
  if (text.charCodeAt(colon) !== 0x3a)
    return { offset: colon, message: `unexpected ${describeChar(text, colon)}: expected ':' after the property name` };
  return colon + 1;
}

function endInside(text: string, stack: readonly Open[]): JsonTextError {
  const top = stack.at(-1);
  return {
    offset: text.length,
    message: top
      ? `the document ends inside ${top.kind === 'array' ? 'an array' : 'an object'} that opens at ${where(text, top.offset)} (truncated?)`
      : 'the document ends where a value should be (truncated?)',
  };
}

/**
 * The offset of the first bracket that nests deeper than `maxDepth` in a
 * valid JSON text, or undefined. Strings are skipped, so brackets in them
 * do not count.
 */
export function tooDeepAt(text: string, maxDepth: number): number | undefined {
  // A text this short cannot nest that deep.
  if (text.length <= 2 * maxDepth) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** The reference tokens of an RFC 6901 JSON pointer (`/steps/3/record` → steps, 3, record). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Where the value a JSON pointer names starts in a valid JSON text (or,
 * with `member`, where that member's name starts inside the object the
 * pointer names). Falls back to the deepest enclosing value that exists.
 */
export function pointerOffset(text: string, pointer: string, member?: string): number {
  const tokens = pointerTokens(pointer);
  if (member !== undefined) tokens.push(member);
  let i = skipWhitespace(text, 0);
  for (const [depth, token] of tokens.entries()) {
    const keyOnly = member !== undefined && depth === tokens.length - 1;
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      const found = findMember(text, i, token);
      if (found === undefined) return i;
      i = keyOnly ? found.key : found.value;
    } else if (c === 0x5b) {
      const index = /^(0|[1-9]\d*)$/.test(token) ? Number(token) : -1;
      const found = index >= 0 ? findElement(text, i, index) : undefined;
      if (found === undefined) return i;
      i = found;
    } else return i;
  }
  return i;
}

/** Skips one value of a valid JSON text at `i` (no whitespace before it); returns the offset after it. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c !== 0x5b && c !== 0x7b) {
    const end = scanScalar(text, i);
    return typeof end === 'number' ? end : text.length;
  }
  // Counting brackets outside strings: no recursion.
  let depth = 0;
  for (let at = i; at < text.length; at++) {
    const d = text.charCodeAt(at);
    if (d === 0x22) {
      const end = scanString(text, at);
      at = (typeof end === 'number' ? end : text.length) - 1;
    } else if (d === 0x5b || d === 0x7b) depth++;
    else if (d === 0x5d || d === 0x7d) {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  return text.length;
}

/** The offsets of the key and the value of member `name` of the object at `i`, or undefined. */
function findMember(text: string, i: number, name: string): { key: number; value: number } | undefined {
  let at = skipWhitespace(text, i + 1);
  while (at < text.length && text.charCodeAt(at) === 0x22) {
    const keyEnd = scanString(text, at);
    if (typeof keyEnd !== 'number') return undefined;
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    const value = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    if (key === name) return { key: at, value };
    at = skipWhitespace(text, skipValue(text, value));
    if (text.charCodeAt(at) !== 0x2c) return undefined;
    at = skipWhitespace(text, at + 1);
  }
  return undefined;
}

/** The offset of element `index` of the array at `i`, or undefined. */
function findElement(text: string, i: number, index: number): number | undefined {
  let at = skipWhitespace(text, i + 1);
  for (let n = 0; at < text.length && text.charCodeAt(at) !== 0x5d; n++) {
    if (n === index) return at;
    at = skipWhitespace(text, skipValue(text, at));
    if (text.charCodeAt(at) !== 0x2c) return undefined;
    at = skipWhitespace(text, at + 1);
  }
  return undefined;
}

/**
 * The byte offset of the first byte that is not part of a well-formed UTF-8
 * sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF),
 * or undefined.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = b === 0xe0 ? 0xa0 : 0x80;
      if (b === 0xed) max = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = b === 0xf0 ? 0x90 : 0x80;
      if (b === 0xf4) max = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < min || c > max : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return undefined;
}
