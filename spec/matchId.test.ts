import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchId, parseMatchId } from './matchId.ts';

// Strings over the characters an encoding might split on, so that collisions
// would be found if the encoding had any.
const part = fc.string({ unit: fc.constantFrom('/', '%', '2', 'F', '5', '|', 'R', ':', 'L', 'a'), maxLength: 6 });
const triple = fc.tuple(part, part, part);

describe('J3: match id encoding', () => {
  it('is injective: different (key, left, right) never share an id', () => {
    fc.assert(
      fc.property(triple, triple, (a, b) => {
        fc.pre(a.join('\u0000') !== b.join('\u0000'));
        expect(matchId(...a)).not.toBe(matchId(...b));
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips through parseMatchId', () => {
    fc.assert(
      fc.property(triple, ([key, left, right]) => {
        expect(parseMatchId(matchId(key, left, right))).toEqual({ key, left, right });
      }),
    );
  });

  it('parseMatchId refuses strings that are not canonical encodings', () => {
    for (const bad of ['a/b', 'a/b/c/d', 'a%/b/c', 'a%2f/b/c', '%2/b/c']) expect(parseMatchId(bad)).toBeUndefined();
  });

  it('separates the pairs an unescaped L:a|R:b encoding merges', () => {
    expect(matchId('k', 'x|R:y', 'z')).not.toBe(matchId('k', 'x', 'y|R:z'));
    expect(matchId('u1', 'a|R:b', 'c/d')).toBe('u1/a|R:b/c%2Fd');
  });
});
