// Equivalent mutants of the operator's data structures (impl/horizonHeap.ts, impl/intervalTree.ts), each under its
// argument (equivalentReasons.ts). equivalent.ts gathers every area's list.
import { type EquivalentMutant, type EquivalentSite, REASONS } from './equivalentReasons.ts';

const heap = (line: string, mutator: string, original: string, replacement: string): EquivalentSite => ({
  file: 'impl/horizonHeap.ts',
  line,
  mutator,
  original,
  replacement,
});

const SIFT_UP = 'if (pe < end || (pe === end && (orders[parent] as number) < order)) break;';
const CHILD = 'if (re < le || (re === le && (orders[r] as number) < (orders[l] as number))) child = r;';
const SIFT_DOWN = 'if (ce > end || (ce === end && (orders[child] as number) > order)) break;';

export const STRUCTURE_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.heapTies,
    mutants: [
      heap(SIFT_UP, 'ConditionalExpression', 'pe === end && (orders[parent] as number) < order', 'false'),
      heap(SIFT_UP, 'ConditionalExpression', '(orders[parent] as number) < order', 'true'),
      heap(SIFT_UP, 'EqualityOperator', 'pe < end', 'pe <= end'),
      heap(SIFT_UP, 'EqualityOperator', '(orders[parent] as number) < order', '(orders[parent] as number) <= order'),
      heap(SIFT_UP, 'EqualityOperator', '(orders[parent] as number) < order', 'orders[parent] as number >= order'),
      heap(CHILD, 'EqualityOperator', 're < le', 're <= le'),
      heap(CHILD, 'ConditionalExpression', 're === le && (orders[r] as number) < (orders[l] as number)', 'false'),
      heap(CHILD, 'ConditionalExpression', '(orders[r] as number) < (orders[l] as number)', 'true'),
      heap(CHILD, 'EqualityOperator', '(orders[r] as number) < (orders[l] as number)', '(orders[r] as number) <= (orders[l] as number)'),
      heap(CHILD, 'EqualityOperator', '(orders[r] as number) < (orders[l] as number)', 'orders[r] as number >= (orders[l] as number)'),
      heap(SIFT_DOWN, 'EqualityOperator', 'ce > end', 'ce >= end'),
      heap(SIFT_DOWN, 'ConditionalExpression', 'ce === end && (orders[child] as number) > order', 'false'),
      heap(SIFT_DOWN, 'ConditionalExpression', '(orders[child] as number) > order', 'true'),
      heap(SIFT_DOWN, 'EqualityOperator', '(orders[child] as number) > order', 'orders[child] as number >= order'),
      heap(SIFT_DOWN, 'EqualityOperator', '(orders[child] as number) > order', '(orders[child] as number) <= order'),
    ],
  },
  {
    reason: REASONS.heapSlots,
    mutants: [
      heap('private items: (E | undefined)[] = [];', 'ArrayDeclaration', '[]', '["Stryker was here"]'),
      heap('return this.count === 0 ? undefined : this.items[0];', 'ConditionalExpression', 'this.count === 0', 'false'),
      heap('if (this.count === 0) return undefined;', 'ConditionalExpression', 'this.count === 0', 'false'),
      heap('if (last > 0) this.siftDown(0, entry, end, order);', 'ConditionalExpression', 'last > 0', 'true'),
      heap('if (last > 0) this.siftDown(0, entry, end, order);', 'EqualityOperator', 'last > 0', 'last >= 0'),
      heap('for (let i = (this.count >> 1) - 1; i >= 0; i--) {', 'ArithmeticOperator', '(this.count >> 1) - 1', '(this.count >> 1) + 1'),
    ],
  },
];
