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
    // The rest of the thread's block of indices becomes holes when it leaves the level.
    shared.leave();
    expect(shared.size).toBe(one.size);
  });

  // Two threads' views of one store, taking turns on this thread: each takes its indices from its
  // own block, so the claims interleave block by block; a fingerprint both insert is stored once,
  // and after both leave a level every index the next level claims lies above the level's end
  // (engine.ts: depth order of indices, C3).
  it('hands each thread a block of indices; what is left of the blocks becomes holes at the end of a level', () => {
    const buffers = createStoreBuffers(false);
    const a = new StateStore(buffers, true);
    const b = new StateStore(buffers, true);
    a.resetWork(2);
    const stored = new Map<string, number>();
    const level = (from: number, to: number): void => {
      for (let i = from; i < to; i++) {
        const hi = (i * 2654435761) | 0;
        const lo = (i * 40503 + 17) | 0;
        for (const view of i % 3 === 0 ? [a, b] : i % 3 === 1 ? [b, a] : [a]) {
          const r = view.insert(hi, lo, 0, 0);
          const index = r < 0 ? -r - 1 : r;
          const key = `${hi},${lo}`;
          if (stored.has(key)) expect(index).toBe(stored.get(key));
          else expect(r).toBeLessThan(0);
          stored.set(key, index);
          if (view.pauseRequested()) {
            // Both views pause (one thread plays both): the second one to arrive rebuilds.
            const other = view === a ? b : a;
            other.leave();
            view.pauseHere();
            other.joinWork();
          }
        }
      }
    };
    level(0, 10_000);
    const firstLevel = new Set(stored.values());
    a.leave();
    b.leave();
    expect(a.size).toBe(stored.size);
    const levelEnd = a.claimed;
    expect(levelEnd - stored.size).toBeLessThan(2 * 64 + 1);
    a.resetWork(2);
    level(10_000, 20_000);
    a.leave();
    b.leave();
    expect(a.size).toBe(stored.size);
    for (const [key, index] of stored) {
      const [hi, lo] = key.split(',').map(Number) as [number, number];
      expect(a.find(hi, lo)).toBe(index);
      expect(b.find(hi, lo)).toBe(index);
      if (!firstLevel.has(index)) expect(index).toBeGreaterThanOrEqual(levelEnd);
    }
  });
});
