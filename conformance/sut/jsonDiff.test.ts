import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffJson, prettyJson, sameJson } from './jsonDiff.ts';

const json = fc.jsonValue({ maxDepth: 3 });

/** The same value with every object's keys in reverse order. */
function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reorder(x)]),
    );
  return v;
}

describe('structural comparison of observations (§7)', () => {
  it('sameJson ignores key order, and diffJson is empty exactly when sameJson holds', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(sameJson(a, reorder(a))).toBe(true);
        expect(diffJson(a, reorder(a))).toEqual([]);
        expect(diffJson(a, b).length === 0).toBe(sameJson(a, b));
      }),
    );
  });

  it('§0, PROTOCOL.md: every JSON spelling of an integer is that integer (a system may write 1.0, 1e0 or -0), in sameJson and in diffJson', () => {
    // The class by construction: for each integer, every spelling the JSON number grammar has with at most two
    // fraction digits and exponents within ±2 (and a sign on zero): -0, the one that parses to another double, among them.
    const spellings = (n: number): string[] => {
      const out = new Set<string>();
      const signs = n === 0 ? ['', '-'] : [''];
      for (const sign of signs) {
        for (let shift = -2; shift <= 2; shift++) {
          // n = m × 10^shift, with m written with up to two fraction digits.
          const m = n / 10 ** shift;
          for (const digits of [0, 1, 2]) {
            const mantissa = m.toFixed(digits);
            if (Number(mantissa) !== m) continue;
            for (const e of shift === 0 ? ['', 'e0', 'E+0', 'e-0'] : [`e${shift}`, `E${shift >= 0 ? '+' : ''}${shift}`])
              out.add(`${sign}${mantissa}${e}`);
          }
        }
      }
      return [...out];
    };
    let checked = 0;
    for (const n of [0, 1, -1, 7, 10, -20, 100, 123, 1200, 2 ** 50]) {
      for (const text of spellings(n)) {
        const parsed = JSON.parse(text) as unknown;
        expect(sameJson(parsed, n), text).toBe(true);
        expect(sameJson({ retained: [parsed] }, { retained: [n] }), text).toBe(true);
        expect(diffJson({ index: n }, { index: parsed }), text).toEqual([]);
        checked++;
      }
    }
    expect(spellings(0)).toContain('-0');
    expect(checked).toBeGreaterThan(60);
  });

  it('sameJson: undefined-valued keys are absent; an own "__proto__" key (a worker or key so named) is a key like any other', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(true);
    const own = JSON.parse('{"__proto__":{},"k":1}') as unknown;
    expect(sameJson(own, { k: 1 })).toBe(false);
    expect(sameJson({ k: 1 }, own)).toBe(false);
    expect(sameJson(own, JSON.parse('{"k":1,"__proto__":{}}'))).toBe(true);
    expect(sameJson(own, JSON.parse('{"k":1,"__proto__":{"x":1}}'))).toBe(false);
    expect(sameJson([1, [2]], [1, [2]])).toBe(true);
    expect(sameJson([], {})).toBe(false);
    // JSON has one zero: a system that writes it -0 wrote 0 (§0: every number is an integer).
    expect(sameJson(0, -0)).toBe(true);
  });

  it('names only the paths that differ, as JSON pointers', () => {
    const expected = { sink: { applied: 1, matches: { 'k1/a/b': 'inserted' } }, log: 2 };
    const actual = { sink: { applied: 2, matches: { 'k1/a/b': 'inserted', 'k1/a/c': 'inserted' } }, log: 2 };
    expect(diffJson(expected, actual)).toEqual([
      { path: '/sink/applied', expected: 1, actual: 2 },
      { path: '/sink/matches/k1~1a~1c', expected: undefined, actual: 'inserted' },
    ]);
  });

  it('prettyJson round-trips and keeps short values on one line', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(JSON.parse(prettyJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
    expect(prettyJson({ a: [1, 2], b: { c: 'x'.repeat(200) } }, 40)).toBe(
      `{\n  "a": [1,2],\n  "b": {\n    "c": "${'x'.repeat(200)}"\n  }\n}`,
    );
  });
});
