import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameChanges, type Change } from './sequencePrefix.ts';

/**
 * What the general path of the prefix check computes for a write followed by
 * the key's next oracle step: the write's changes toggled into a difference
 * map, the step's toggled back out. The step alone brings the sink to the
 * oracle exactly when the map ends empty. A change on either side flips its
 * match's difference (historyState.ts `toggle`): from an agreed prefix, a
 * match's op is the same in the write and in the step.
 */
function stepCancelsWrite(write: readonly Change[], step: readonly Change[]): boolean {
  const diff = new Map<string, string>();
  const toggle = (match: string, side: string): void => {
    if (diff.get(match) === undefined) diff.set(match, side);
    else diff.delete(match);
  };
  for (const c of write) toggle(c.match, c.op === 'insert' ? 'S-only' : 'R-only');
  for (const c of step) toggle(c.match, c.op === 'insert' ? 'R-only' : 'S-only');
  return diff.size === 0;
}

const change = fc.record({
  op: fc.constantFrom<'insert' | 'retract'>('insert', 'retract'),
  match: fc.constantFrom('k/a/b', 'k/a/c', 'k/d/b', 'k/d/c'),
});
// A step's matches are distinct (J7); a write may repeat one (a sink writing a match twice).
const step = fc.uniqueArray(change, { selector: (c) => c.match, maxLength: 4 });
const write = fc.oneof(
  fc.array(change, { maxLength: 5 }),
  step.chain((s) => fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length })),
);

// ExactlyOnce (P4, the prefix check): the shortcut for a write that is exactly its key's next oracle step.
describe('sameChanges (the prefix check passes a step without a difference map)', () => {
  it('ExactlyOnce: takes the shortcut only where the general path would pass the step with nothing left over', () => {
    let taken = 0;
    fc.assert(
      fc.property(write, step, (w, s) => {
        if (!sameChanges(w, s)) return;
        taken++;
        expect(stepCancelsWrite(w, s)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(0);
  });

  it('ExactlyOnce: takes it for every reordering of a step of at most 8 changes', () => {
    fc.assert(
      fc.property(
        step.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length }))),
        ([s, w]) => {
          expect(sameChanges(w, s)).toBe(true);
        },
      ),
    );
  });

  it('ExactlyOnce: a write repeating a match, or with an op flipped, is left to the general path', () => {
    const s: Change[] = [
      { op: 'insert', match: 'k/a/b' },
      { op: 'retract', match: 'k/a/c' },
    ];
    expect(sameChanges([s[1] as Change, s[0] as Change], s)).toBe(true);
    expect(sameChanges([s[0] as Change, s[0] as Change], s)).toBe(false);
    expect(sameChanges([{ op: 'retract', match: 'k/a/b' }, s[1] as Change], s)).toBe(false);
    expect(sameChanges([s[0] as Change], s)).toBe(false);
  });
});
