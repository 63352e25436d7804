// The search both minimizers share (deleteSteps.ts), over a trace abstracted
// to a list of step numbers: a divergence shows at the step where the steps
// one of its bugs needs are all in, and a trace kept is cut there, as the
// minimizers cut theirs.
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { deleteSteps } from './deleteSteps.ts';

const seed = inject('fcSeed');

/** The place of the step where the first bug's needed steps are all in `steps`, if one is. */
function divergenceOf(steps: readonly number[], bugs: readonly (readonly number[])[]): number | undefined {
  let first: number | undefined;
  for (const needed of bugs) {
    const places = needed.map((s) => steps.indexOf(s));
    if (places.some((p) => p < 0)) continue;
    const at = Math.max(...places);
    if (first === undefined || at < first) first = at;
  }
  return first;
}

/** The search over 0..n-1, cut at its divergence first; every call checked to delete a run before the last step. */
async function search(n: number, bugs: readonly (readonly number[])[], budget: number, inContract = (_: readonly number[]) => true) {
  const all = Array.from({ length: n }, (_, i) => i);
  let kept = all.slice(0, (divergenceOf(all, bugs) as number) + 1);
  let calls = 0;
  const runs = await deleteSteps({
    length: () => kept.length,
    budget,
    without: async (first, count) => {
      // Never the step that diverged, never outside the trace, never nothing.
      expect(first >= 0 && count >= 1 && first + count <= kept.length - 1, `${first}+${count} of ${kept.length}`).toBe(true);
      const candidate = kept.filter((_, i) => i < first || i >= first + count);
      if (!inContract(candidate)) return 'not run';
      calls++;
      const at = divergenceOf(candidate, bugs);
      if (at === undefined) return 'not kept';
      kept = candidate.slice(0, at + 1);
      return 'kept';
    },
  });
  return { kept, runs, calls };
}

/** Bugs over 0..n-1: sets of steps each, one of them with the last step, so that the whole trace diverges at its end at least. */
const bugsArbitrary = (n: number) =>
  fc
    .array(fc.uniqueArray(fc.nat({ max: n - 1 }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
    .chain((bugs) => fc.nat({ max: bugs.length - 1 }).map((i) => bugs.map((b, j) => (j === i ? [...b, n - 1] : b))));

describe('deleteSteps', () => {
  it('keeps what one bug needs, cut at its divergence: 1-minimal (no single step before the last can go), in few runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }).chain((n) => fc.tuple(fc.constant(n), bugsArbitrary(n))),
        async ([n, bugs]) => {
          const { kept, runs } = await search(n, bugs, 10_000);
          const at = divergenceOf(kept, bugs);
          expect(at).toBe(kept.length - 1);
          for (let i = 0; i < kept.length - 1; i++) expect(divergenceOf(kept.toSpliced(i, 1), bugs), `without ${kept[i]}`).toBeUndefined();
          // Some tens of runs per step a bug needs, not one run per step of the trace.
          const needed = Math.max(...bugs.map((b) => b.length));
          expect(runs).toBeLessThanOrEqual(2 * bugs.length * needed * (Math.ceil(Math.log2(n)) + 2) + n / 100);
        },
      ),
      { seed, numRuns: 300, endOnFailure: true },
    );
  });

  it('with only one bug, keeps exactly its steps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.uniqueArray(fc.nat(), { maxLength: 6 }), async (n, picks) => {
        const needed = [...new Set([...picks.map((p) => p % n), n - 1])];
        const { kept } = await search(n, [needed], 10_000);
        expect(kept).toEqual(needed.sort((a, b) => a - b));
      }),
      { seed, numRuns: 200, endOnFailure: true },
    );
  });

  it('never runs more than its budget, and counts exactly the candidates it runs (those in contract), kept or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 300 }).chain((n) => fc.tuple(fc.constant(n), bugsArbitrary(n))),
        fc.nat({ max: 40 }),
        fc.nat({ max: 2 }),
        async ([n, bugs], budget, modulus) => {
          // In contract: every candidate, or those of an odd length, or of a length not divisible by three.
          const inContract = (k: readonly number[]) => modulus === 0 || k.length % (modulus + 1) !== 0;
          const { runs, calls } = await search(n, bugs, budget, inContract);
          expect(runs).toBe(calls);
          expect(runs).toBeLessThanOrEqual(budget);
        },
      ),
      { seed, numRuns: 300, endOnFailure: true },
    );
  });
});
