import { describe, expect, it } from 'vitest';
import { clusterExplorerModel } from '../cluster/explorerModel.ts';
import { clusterPreset } from '../cluster/presets.ts';
import { runLimits } from './checker.ts';
import { type EngineSettings, type Exploration, exploreHere } from './engine.ts';
import type { ByteSuccessors } from './types.ts';

/**
 * The smoke preset (one key, about 95,000 states) explored on this thread; with `goalsReadBack`
 * its goals are a copy of the model's, which its byte successors do not stand for, so every new
 * state is read back and judged as a state while a goal is open.
 */
function explore(batchFromSlots: number, goalsReadBack = false, kindsByName = false): Exploration {
  const preset = clusterPreset('smoke');
  if (!preset) throw new Error('no preset smoke');
  const own = clusterExplorerModel(preset.config);
  const model = goalsReadBack ? { ...own, goals: [...(own.goals ?? [])] } : own;
  // The cluster's codec keeps its successors in a field of its own (model/cluster/codec.ts).
  const codec = model.codec as { successors?: ByteSuccessors } | undefined;
  if (kindsByName && codec?.successors) codec.successors = namingKindsOnly(codec.successors);
  const settings: EngineSettings = {
    visited: 'fingerprint',
    symmetry: true,
    partialOrder: true,
    stopAtFirstViolation: false,
    batchFromSlots,
  };
  const run = exploreHere(model, settings, runLimits({}));
  for (let step = run.next(); ; step = run.next()) if (step.done) return step.value;
}

/** The same successors without `kindNames` and `writeNumbered`: the keyer numbers their kinds by name. */
function namingKindsOnly(s: ByteSuccessors): ByteSuccessors {
  return {
    standsFor: s.standsFor,
    load: (input) => s.load(input),
    write: (k, out, symmetric) => s.write(k, out, symmetric),
    isFault: (k) => s.isFault(k),
    judged: (k) => s.judged(k),
    quiescent: () => s.quiescent(),
    reaches: (goal) => s.reaches?.(goal) ?? false,
  };
}

// expandBytes stores successors one by one on a small table and in batches on a large one
// (touching the batch's slots first): the two must store the same states under the same
// indices, with the same parents, actions and flags, and find the same (ExactlyOnce, Fenced,
// BoundedState, Progress: the tally and the flags Progress reads).
describe('expandBytes in batches', () => {
  it('stores the same states, indices, parents, actions and flags as one by one, and finds the same', () => {
    const one = explore(Number.POSITIVE_INFINITY);
    const batched = explore(0);
    const a = one.visited.store;
    const b = batched.visited.store;
    expect(one.exhausted).toBe(true);
    expect(a.size).toBeGreaterThan(50_000);
    expect(b.size).toBe(a.size);
    expect(b.claimed).toBe(a.claimed);
    expect(batched.tally.generated).toBe(one.tally.generated);
    expect(batched.tally.maxDepth).toBe(one.tally.maxDepth);
    expect([...batched.tally.kindCounts].sort()).toEqual([...one.tally.kindCounts].sort());
    expect(batched.tally.violations).toEqual(one.tally.violations);
    expect(batched.tally.reached).toEqual(one.tally.reached);
    expect(Buffer.from(b.allFlags().subarray(0, b.claimed)).equals(Buffer.from(a.allFlags().subarray(0, a.claimed)))).toBe(true);
    for (let i = 0; i < a.claimed; i++) {
      if (b.parent(i) !== a.parent(i) || b.via(i) !== a.via(i))
        expect({ i, parent: b.parent(i), via: b.via(i) }).toEqual({ i, parent: a.parent(i), via: a.via(i) });
    }
    const edgesA = a.edgeLists();
    const edgesB = b.edgeLists();
    for (let i = 0; i < a.claimed; i++) {
      const n = edgesA.count[i] as number;
      expect(edgesB.count[i]).toBe(n);
      const from = edgesA.start[i] as number;
      const to = edgesB.start[i] as number;
      for (let e = 0; e < n; e++)
        if (edgesB.targets[to + e] !== edgesA.targets[from + e]) expect(edgesB.targets[to + e]).toBe(edgesA.targets[from + e]);
    }
  });
});

// The byte successors judge the goals of the model they stand for (`ByteSuccessors.reaches`):
// each goal must be found at the same state, at the same depth, as when the states are read back.
describe('goals judged on bytes', () => {
  it('reach each goal at the same state and depth as the states read back, and store the same', () => {
    const onBytes = explore(Number.POSITIVE_INFINITY);
    const readBack = explore(Number.POSITIVE_INFINITY, true);
    expect(onBytes.exhausted).toBe(true);
    expect(onBytes.tally.reached.length).toBeGreaterThanOrEqual(3);
    for (const r of onBytes.tally.reached) expect(r).toBeDefined();
    expect(onBytes.tally.reached).toEqual(readBack.tally.reached);
    expect(onBytes.tally.violations).toEqual(readBack.tally.violations);
    expect(onBytes.visited.store.size).toBe(readBack.visited.store.size);
    expect(onBytes.tally.generated).toBe(readBack.tally.generated);
  });
});

// The engine counts the kinds of successors on bytes by number: those of successors that number
// their kinds (`kindNames`, `writeNumbered`) and those of successors that only name them (the
// keyer numbers them) must come to the same counts per kind, in batches and one by one.
describe('kinds counted by number', () => {
  it('the same kind counts, states and finds whether the successors number their kinds or name them', () => {
    for (const batchFromSlots of [Number.POSITIVE_INFINITY, 0]) {
      const numbered = explore(batchFromSlots);
      const named = explore(batchFromSlots, false, true);
      expect(numbered.tally.kindCounts.size).toBeGreaterThan(10);
      expect(new Map([...named.tally.kindCounts].sort())).toEqual(new Map([...numbered.tally.kindCounts].sort()));
      expect(named.tally.generated).toBe(numbered.tally.generated);
      // Every successor has a kind; the one initial state, generated too, has none.
      expect([...numbered.tally.kindCounts.values()].reduce((a, b) => a + b, 0)).toBe(numbered.tally.generated - 1);
      expect(named.visited.store.size).toBe(numbered.visited.store.size);
      expect(named.tally.reached).toEqual(numbered.tally.reached);
    }
  });
});
