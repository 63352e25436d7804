import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { firstStuckState } from './report.ts';
import { createStoreBuffers, FLAG_GOOD, FLAG_SETTLED, StateStore } from './store.ts';

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

/** The store as the engine leaves it: a good state, or one with an edge to a good state, flagged settled and its edges not stored. */
function settledStoreOf(n: number, edges: readonly (readonly number[])[], good: ReadonlySet<number>): StateStore {
  const store = new StateStore(createStoreBuffers(true), false);
  for (let i = 0; i < n; i++) {
    expect(store.insert(i + 1, i + 1, i - 1, 0)).toBe(-(i + 1));
    if (good.has(i)) store.setFlags(i, FLAG_GOOD);
  }
  for (let i = 0; i < n; i++) {
    const out = edges[i] ?? [];
    if (good.has(i) || out.some((t) => good.has(t))) store.setFlags(i, FLAG_SETTLED);
    else store.setEdges(i, Int32Array.from(out), out.length);
  }
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

/** Random graphs of 1–60 states, up to 3 edges a state (forward and backward mixed) and up to `goods` good states. */
const randomGraph = (goods: number) =>
  fc.integer({ min: 1, max: 60 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }), { minLength: n, maxLength: n }),
      good: fc.uniqueArray(fc.nat({ max: n - 1 }), { maxLength: goods }),
    }),
  );

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
    const graph = randomGraph(3);
    fc.assert(
      fc.property(graph, ({ n, edges, good }) => {
        const goodSet = new Set(good);
        expect(firstStuckState(n, storeOf(n, edges, goodSet))).toBe(firstStuckByDefinition(n, edges, goodSet));
      }),
    );
  });

  it('Progress: states stored as settled, their edges dropped (good, or one step from a good state), change no answer', () => {
    const graph = randomGraph(4);
    let settledSeen = 0;
    fc.assert(
      fc.property(graph, ({ n, edges, good }) => {
        const goodSet = new Set(good);
        const store = settledStoreOf(n, edges, goodSet);
        for (let i = 0; i < n; i++) if ((store.flags(i) & FLAG_SETTLED) !== 0 && !goodSet.has(i)) settledSeen++;
        expect(firstStuckState(n, store)).toBe(firstStuckByDefinition(n, edges, goodSet));
      }),
    );
    // The domain reaches the case: states settled by an edge alone, with no edges stored.
    expect(settledSeen).toBeGreaterThan(0);
  });
});
