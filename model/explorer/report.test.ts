import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { firstStuckState } from './report.ts';
import { createStoreBuffers, FLAG_GOOD, StateStore } from './store.ts';

/** A store of `n` states (fingerprints i, i) with these fault-free edges and these good (quiescent) states. */
function storeOf(n: number, edges: readonly (readonly number[])[], good: ReadonlySet<number>): StateStore {
  const store = new StateStore(createStoreBuffers(true), false);
  for (let i = 0; i < n; i++) {
    expect(store.insert(i + 1, i + 1, i - 1, 0)).toBe(-(i + 1));
    if (good.has(i)) store.setFlags(i, FLAG_GOOD);
  }
  for (let i = 0; i < n; i++) store.setEdges(i, Int32Array.from(edges[i] ?? []), edges[i]?.length ?? 0);
  return store;
}

/** Progress by definition: the smallest state from which no good state is reachable (a search from each state). */
function firstStuckByDefinition(n: number, edges: readonly (readonly number[])[], good: ReadonlySet<number>): number {
  for (let s = 0; s < n; s++) {
    const seen = new Set([s]);
    const todo = [s];
    let settles = false;
    while (todo.length > 0 && !settles) {
      const t = todo.pop() as number;
      if (good.has(t)) settles = true;
      for (const u of edges[t] ?? []) {
        if (seen.has(u)) continue;
        seen.add(u);
        todo.push(u);
      }
    }
    if (!settles) return s;
  }
  return -1;
}

// Progress (every state can reach a quiescent one without faults): the check over the stored edges.
describe('firstStuckState (Progress over the stored edges)', () => {
  it('settles a chain that runs back down to the only good state (the sweeps cannot finish it: the backward search does)', () => {
    const n = 200;
    // State i's only edge goes to i-1; state 0 is good; state 150 has no edge (a deadlock) and so everything above it is stuck.
    const edges = Array.from({ length: n }, (_, i) => (i === 0 || i === 150 ? [] : [i - 1]));
    const good = new Set([0]);
    expect(firstStuckState(n, storeOf(n, edges, good))).toBe(150);
    expect(firstStuckByDefinition(n, edges, good)).toBe(150);
  });

  it("agrees with the definition on random graphs, forward and backward edges mixed (the run's fast-check seed)", () => {
    const graph = fc.integer({ min: 1, max: 60 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.array(fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }), { minLength: n, maxLength: n }),
        good: fc.uniqueArray(fc.nat({ max: n - 1 }), { maxLength: 3 }),
      }),
    );
    fc.assert(
      fc.property(graph, ({ n, edges, good }) => {
        const goodSet = new Set(good);
        expect(firstStuckState(n, storeOf(n, edges, goodSet))).toBe(firstStuckByDefinition(n, edges, goodSet));
      }),
    );
  });
});
