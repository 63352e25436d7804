import { describe, expect, it } from 'vitest';
import { createStoreBuffers, StateStore } from './store.ts';

// The table's slots carry 4 bits of the high lane beside the index (store.ts):
// fingerprints that agree in those bits, in the low lane, or in both but not
// in the whole must still be told apart, before and after the table is rebuilt.
describe('StateStore', () => {
  it('tells apart fingerprints that share the slot, the tag bits or the low lane, across rebuilds', () => {
    const store = new StateStore(createStoreBuffers(false), false);
    const fingerprints: [number, number][] = [];
    // 20,000 fingerprints: crowded low lanes (few distinct slots), high lanes equal in their top 4 bits in groups.
    for (let i = 0; i < 20_000; i++) {
      const hi = ((i % 3) << 28) | (i * 7919);
      const lo = (i % 997) * 1_000_003;
      fingerprints.push([hi | 0, lo | 0]);
    }
    fingerprints.forEach(([hi, lo], i) => {
      expect(store.find(hi, lo)).toBe(-1);
      expect(store.insert(hi, lo, i - 1, i % 5)).toBe(-(i + 1));
    });
    expect(store.size).toBe(fingerprints.length);
    fingerprints.forEach(([hi, lo], i) => {
      expect(store.insert(hi, lo, 0, 0)).toBe(i);
      expect(store.find(hi, lo)).toBe(i);
      expect(store.matches(i, hi, lo)).toBe(true);
      expect(store.parent(i)).toBe(i - 1);
      expect(store.via(i)).toBe(i % 5);
    });
    // Equal tag and low lane, different high lane: not stored.
    const [hi0, lo0] = fingerprints[0] as [number, number];
    expect(store.find(hi0 ^ 1, lo0)).toBe(-1);
    expect(store.find(hi0 ^ (1 << 28), lo0)).toBe(-1);
    expect(store.size).toBe(fingerprints.length);
  });

  it('stores the same states when shared (atomics) as on one thread', () => {
    const one = new StateStore(createStoreBuffers(false), false);
    const shared = new StateStore(createStoreBuffers(false), true);
    shared.resetWork(1);
    for (let i = 0; i < 20_000; i++) {
      const hi = (i * 2654435761) | 0;
      const lo = ((i >> 1) * 40503) | 0;
      const a = one.insert(hi, lo, 0, 0);
      const b = shared.insert(hi, lo, 0, 0);
      // Shared stores ask for a pause to rebuild instead of rebuilding on the spot.
      if (shared.pauseRequested()) shared.pauseHere();
      expect(b).toBe(a);
    }
    expect(shared.size).toBe(one.size);
  });
});
