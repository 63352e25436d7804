import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareCodePoints } from './order.ts';

/** Reference: compare arrays of code points lexicographically. */
function byCodePointArrays(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) < (y[i] as number) ? -1 : 1;
  }
  return Math.sign(x.length - y.length);
}

describe('§0 string order by code point', () => {
  it('agrees with comparing code point sequences, including astral and high-BMP characters', () => {
    const chars = fc.constantFrom('a', 'z', '/', '\uE000', '\uFFFF', '\u{1F600}', '\u{10000}', 'é');
    const s = fc.string({ unit: chars, maxLength: 5 });
    fc.assert(
      fc.property(s, s, (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(byCodePointArrays(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts U+E000 before U+1F600, unlike UTF-16 code unit order', () => {
    expect(compareCodePoints('\uE000', '\u{1F600}')).toBeLessThan(0);
    expect('\uE000' < '\u{1F600}').toBe(false);
  });
});
