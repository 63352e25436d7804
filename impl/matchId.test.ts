import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchId } from '../spec/index.ts';
import { encodeMatchId } from './matchId.ts';

describe("impl's own J3 match-id encoding", () => {
  it('equals the reference encoding for any key and ids (so it is injective too)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.stringMatching(/^[%/2Fa]{0,8}$/));
    fc.assert(
      fc.property(text, text, text, (key, left, right) => {
        expect(encodeMatchId(key, left, right)).toBe(matchId(key, left, right));
      }),
    );
  });

  it('escapes "%" before "/" (J3 example)', () => {
    expect(encodeMatchId('u1', 'a|R:b', 'c/d')).toBe('u1/a|R:b/c%2Fd');
    expect(encodeMatchId('%2F', '/', '%')).toBe('%252F/%2F/%25');
  });
});
