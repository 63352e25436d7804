// The search both minimizers share (deleteSteps.ts), over a trace abstracted
// to a list of step numbers and a divergence that needs some of them.
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { deleteSteps } from './deleteSteps.ts';

const seed = inject('fcSeed');

/** Deletes what it can from 0..n-1 (the last step the divergence's) while `diverges` holds; returns what is kept and the runs. */
async function search(
  n: number,
  diverges: (kept: readonly number[]) => boolean,
  budget: number,
  inContract = (_: readonly number[]) => true,
) {
  let kept = Array.from({ length: n }, (_, i) => i);
  const runs = await deleteSteps({
    length: () => kept.length,
    budget,
    without: async (first, count) => {
      const candidate = kept.filter((_, i) => i < first || i >= first + count);
      if (!inContract(candidate)) return 'not run';
      if (!diverges(candidate)) return 'not kept';
      kept = candidate;
      return 'kept';
    },
  });
  return { kept, runs };
}

describe('deleteSteps', () => {
  it('keeps exactly the steps a divergence needs (1-minimal: no single step of them can go), the last always, in few runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.uniqueArray(fc.nat(), { maxLength: 6 }), async (n, picks) => {
        const needed = new Set([...picks.map((p) => p % n), n - 1]);
        const { kept, runs } = await search(n, (k) => [...needed].every((s) => k.includes(s)), 10_000);
        expect(kept).toEqual([...needed].sort((a, b) => a - b));
        // Some tens of runs per step needed, not one run per step of the trace.
        expect(runs).toBeLessThanOrEqual(2 * needed.size * (Math.ceil(Math.log2(n)) + 2) + n / 100);
      }),
      { seed, numRuns: 300 },
    );
  });

  it('never runs more than its budget, and counts only the candidates it runs (those in contract)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 300 }), fc.nat({ max: 40 }), fc.nat({ max: 5 }), async (n, budget, parity) => {
        let ran = 0;
        // In contract: candidates whose length has the parity drawn; a divergence that needs every step (nothing is kept).
        const { kept, runs } = await search(
          n,
          () => {
            ran++;
            return false;
          },
          budget,
          (k) => k.length % 2 === parity % 2,
        );
        expect(kept.length).toBe(n);
        expect(runs).toBe(ran);
        expect(runs).toBeLessThanOrEqual(budget);
      }),
      { seed, numRuns: 200 },
    );
  });
});
