import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, jsonTextError, lineColumn, pointerOffset, tooDeepAt } from './jsonText.ts';
import { printable } from './errors.ts';

const accepts = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Every JSON pointer into a value, with the value it names. */
function pointers(value: unknown, at = ''): [string, unknown][] {
  const out: [string, unknown][] = [[at, value]];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pointers(v, `${at}/${i}`)));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...pointers(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return out;
}

describe('SPEC §8: the JSON scanner agrees with JSON.parse and places every error', () => {
  it('SPEC §8: on any edit of a JSON text (cut, inserted or deleted character) it finds an error exactly when JSON.parse refuses the text, at an offset inside it', () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), ch: fc.constantFrom(...'{}[],:"\\ \n\t0-.eE+tfnu\u0007\u2028x') }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), fc.array(edit, { maxLength: 3 }), (value, pretty, edits) => {
        let text = JSON.stringify(value, null, pretty ? 2 : undefined);
        for (const e of edits) {
          const at = text.length === 0 ? 0 : e.at % (text.length + 1);
          if (e.kind === 'cut') text = text.slice(0, at);
          else if (e.kind === 'insert') text = text.slice(0, at) + e.ch + text.slice(at);
          else text = text.slice(0, at) + text.slice(at + 1);
        }
        const error = jsonTextError(text);
        expect(error === undefined, JSON.stringify(text)).toBe(accepts(text));
        if (error) {
          expect(error.offset).toBeGreaterThanOrEqual(0);
          expect(error.offset).toBeLessThanOrEqual(text.length);
        }
      }),
    );
  });

  it('names what it found and where, in words that quote no raw bytes', () => {
    const cases: [string, number, RegExp][] = [
      ['', 0, /the document is empty/],
      [' \n ', 3, /only white space/],
      ['\u0007\u0001abc', 0, /unexpected U\+0007: expected a JSON value/],
      ['{"a":1,}', 7, /expected a property name in double quotes \(no comma before the closing brace\)/],
      ['[1,2', 4, /ends inside an array that opens at 1:1 \(truncated\?\)/],
      ['{"a" 1}', 5, /expected ':' after the property name/],
      ['nul', 0, /did you mean null/],
      ['"abc', 0, /unterminated string/],
      ['{"a":"x\ny"}', 7, /control character U\+000A inside a string/],
      ['[1] x', 4, /unexpected 'x' after the end of the JSON value/],
      ['[01]', 1, /bad number/],
      ['{"a":1 "b":2}', 7, /expected ',' or '}' after a property value \(the object opens at 1:1\)/],
    ];
    for (const [text, offset, message] of cases) {
      const e = jsonTextError(text);
      expect(e, JSON.stringify(text)).toBeDefined();
      expect(e?.offset, JSON.stringify(text)).toBe(offset);
      expect(e?.message, JSON.stringify(text)).toMatch(message);
      expect(e?.message).toBe(printable(e?.message ?? ''));
    }
  });

  it('100,000 nested arrays: an error at the bracket past the limit, without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(tooDeepAt(deep, 64)).toBe(64);
    expect(jsonTextError(deep, 64)).toMatchObject({ offset: 64, message: expect.stringMatching(/nest deeper than 64 levels/) });
    expect(jsonTextError(`${'{"a":'.repeat(100_000)}`)?.message).toMatch(/ends inside an object/);
    expect(tooDeepAt('[["[[[[[[[[[[[[[["]]', 3)).toBeUndefined();
  });

  it('SPEC §8: the offset of a JSON pointer is where that value is written', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        for (const [pointer, sub] of pointers(JSON.parse(text) as unknown)) {
          expect(text.startsWith(JSON.stringify(sub), pointerOffset(text, pointer)), pointer).toBe(true);
        }
      }),
    );
  });

  it('a member pointer lands on the member name; a pointer to nothing lands on the deepest value that exists', () => {
    const text = '{\n  "a": {"b": [10, {"c": true}]},\n  "x\\ny": 1\n}';
    expect(lineColumn(text, pointerOffset(text, '/a/b/1/c'))).toEqual({ line: 2, column: 25 });
    expect(lineColumn(text, pointerOffset(text, '', 'x\ny'))).toEqual({ line: 3, column: 3 });
    expect(pointerOffset(text, '/a/nope')).toBe(text.indexOf('{"b"'));
  });

  it('line and column count characters, not UTF-16 units', () => {
    expect(lineColumn('ab\n😀😀x', 7)).toEqual({ line: 2, column: 3 });
    expect(lineColumn('abc', 99)).toEqual({ line: 1, column: 4 });
  });
});

describe('SPEC §8: bytes that are not UTF-8 are found at their first byte', () => {
  it('SPEC §8: firstInvalidUtf8 agrees with Node on every byte string, and everything before it is UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 10 }), (raw, text) => {
        const bytes = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(raw)]);
        const bad = firstInvalidUtf8(bytes);
        expect(bad === undefined).toBe(isUtf8(bytes));
        if (bad !== undefined) {
          expect(isUtf8(bytes.subarray(0, bad))).toBe(true);
          // The text before the raw bytes is UTF-8 (Node writes a lone surrogate as U+FFFD).
          expect(bad).toBeGreaterThanOrEqual(Buffer.byteLength(text, 'utf8'));
        }
      }),
    );
    // Overlong, surrogate, above U+10FFFF, truncated.
    for (const bytes of [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0x41, 0xe2, 0x82],
    ]) {
      expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(bytes[0] === 0x41 ? 1 : 0);
    }
  });
});

describe('SPEC §8: an error line is printable and bounded', () => {
  it('SPEC §8: printable() leaves no control, invisible or separator character, keeps plain text as it is, and bounds the length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), fc.integer({ min: 10, max: 300 }), (text, max) => {
        const shown = printable(text, max);
        expect(shown).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u);
        expect(shown.length).toBeLessThanOrEqual(max);
        if (text.length <= max && !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(text)) expect(shown).toBe(text);
      }),
    );
  });

  it('escapes as a reader expects, and elides the middle of a long text', () => {
    expect(printable('a\nb\tc\u0007d\u202ee\u{e0041}')).toBe('a\\nb\\tc\\u0007d\\u202ee\\u{e0041}');
    expect(printable(`${'a'.repeat(50)}${'b'.repeat(50)}`, 21)).toBe(`${'a'.repeat(10)}…${'b'.repeat(10)}`);
    expect(printable('x'.repeat(50 * 1024 * 1024), 400)).toHaveLength(400);
  });
});
