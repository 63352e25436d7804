import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import FlattenIntervalTree from '@flatten-js/interval-tree';
import { IntervalNode, IntervalTree } from './intervalTree.ts';
import { HorizonHeap } from './horizonHeap.ts';

class Item extends IntervalNode {}

// Narrow ranges so that equal intervals (duplicates) are common.
const treeOps = fc.array(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ op: fc.constant('insert' as const), start: fc.integer({ min: -8, max: 24 }), length: fc.nat({ max: 6 }) }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('removeLookalike' as const), pick: fc.nat() }) },
    {
      weight: 3,
      arbitrary: fc.record({ op: fc.constant('query' as const), from: fc.integer({ min: -12, max: 30 }), length: fc.nat({ max: 10 }) }),
    },
  ),
  { maxLength: 300 },
);

describe('IntervalTree (the J3 overlap index) against brute force', () => {
  it('answers every closed-interval overlap query exactly, with duplicates and deletions, keeping AVL and maxEnd invariants', () => {
    fc.assert(
      fc.property(treeOps, (ops) => {
        const tree = new IntervalTree<Item>();
        const present: Item[] = [];
        let order = 0;
        for (const o of ops) {
          if (o.op === 'insert') {
            const item = new Item(o.start, o.start + o.length, order++);
            tree.insert(item);
            present.push(item);
          } else if (o.op === 'remove') {
            if (present.length === 0) continue;
            const [item] = present.splice(o.pick % present.length, 1) as [Item];
            expect(tree.remove(item)).toBe(true);
            expect(tree.remove(item)).toBe(false);
          } else if (o.op === 'removeLookalike') {
            // Same start, end and order, different object: must not remove the stored one.
            if (present.length === 0) continue;
            const item = present[o.pick % present.length] as Item;
            expect(tree.remove(new Item(item.start, item.end, item.order))).toBe(false);
          } else {
            const to = o.from + o.length;
            const got: Item[] = [];
            tree.forEachOverlapping(o.from, to, (x) => got.push(x));
            const want = present.filter((x) => x.start <= to && o.from <= x.end).sort((a, b) => a.start - b.start || a.order - b.order);
            expect(got).toEqual(want);
            // Identity, not just equal endpoints: duplicates are told apart.
            got.forEach((x, i) => expect(x).toBe(want[i]));
          }
          expect(tree.checkInvariants()).toBeUndefined();
          expect(tree.size).toBe(present.length);
        }
        expect(
          tree
            .items()
            .map((x) => x.order)
            .sort((a, b) => a - b),
        ).toEqual(present.map((x) => x.order).sort((a, b) => a - b));
      }),
    );
  });

  it('stays balanced under time-ordered inserts and removals (height <= 1.45 log2 n + 2)', () => {
    const tree = new IntervalTree<Item>();
    const items: Item[] = [];
    for (let i = 0; i < 4096; i++) {
      const item = new Item(i, i + (i % 5), i);
      tree.insert(item);
      items.push(item);
    }
    for (const item of items.slice(0, 2048)) tree.remove(item);
    expect(tree.checkInvariants()).toBeUndefined();
    const height = (tree as unknown as { root: Item }).root.height;
    expect(height).toBeLessThanOrEqual(Math.ceil(1.45 * Math.log2(2048) + 2));
  });

  it('refuses a reversed interval instead of swapping its endpoints (J1)', () => {
    expect(() => new IntervalTree<Item>().insert(new Item(5, 1, 0))).toThrow(/reversed/);
  });
});

describe('HorizonHeap (the J8 eviction queue)', () => {
  it('pops in (end, order) order, after pushes and after rebuild', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 200 }), fc.boolean(), (ends, rebuild) => {
        const entries = ends.map((end, order) => ({ end, order }));
        const heap = new HorizonHeap<{ end: number; order: number }>();
        if (rebuild) heap.rebuild(entries);
        else for (const e of entries) heap.push(e);
        const popped: { end: number; order: number }[] = [];
        for (let e = heap.pop(); e !== undefined; e = heap.pop()) popped.push(e);
        expect(popped).toEqual([...entries].sort((a, b) => a.end - b.end || a.order - b.order));
      }),
    );
  });
});

// bench/operator.ts measures this library against IntervalTree. Before
// comparing speed, pin down the behaviours the brief warns about, so the
// benchmark uses it correctly (and would notice if a new version changed).
describe('@flatten-js/interval-tree behaviour the benchmark relies on', () => {
  it('treats intervals as closed', () => {
    const t = new FlattenIntervalTree<string>();
    t.insert([1, 3], 'a');
    expect(t.search([3, 5])).toEqual(['a']);
    expect(t.search([4, 5])).toEqual([]);
  });

  it('silently swaps reversed endpoints (so a caller must validate first, as J1 does)', () => {
    const t = new FlattenIntervalTree<string>();
    t.insert([5, 1], 'rev');
    expect(t.search([2, 2])).toEqual(['rev']);
  });

  it('keeps equal intervals with different values, and removes by value identity only', () => {
    const t = new FlattenIntervalTree<{ id: string }>();
    const a = { id: 'a' };
    const b = { id: 'b' };
    t.insert([1, 3], a);
    t.insert([1, 3], b);
    expect(t.search([2, 2])).toEqual([a, b]);
    expect(t.remove([1, 3], { id: 'b' })).toBeUndefined();
    expect(t.remove([1, 3], b)).toBeDefined();
    expect(t.search([2, 2])).toEqual([a]);
  });
});
