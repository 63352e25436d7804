// An augmented AVL tree over closed integer intervals, used per key and side
// as the index of live rows (J3: "all rows overlapping [start, end]").
//
// The tree is intrusive: the stored item is the node (it extends
// `IntervalNode`), so a row costs one object, not a row plus a tree node.
// Items are ordered by (start, order); `order` is a number unique within one
// tree, so equal intervals (two rows with the same start and end) are
// distinct entries and removal removes exactly the given item, never another
// one with the same endpoints. Each node keeps `maxEnd`, the largest `end` in
// its subtree, so an overlap query skips every subtree that ends too early.
//
// Costs (n items, k reported): insert and remove O(log n) with at most
// O(log n) rotations; `forEachOverlapping` visits the O(log n) nodes on the
// search boundary plus, inside the subtrees it enters, only nodes that have a
// reported descendant, which is O(log n + k·log(n/k)) in the worst case and
// O(log n + k) when the reported rows are contiguous in start order (the
// usual case for time-ordered streams; the benchmark shows the growth).
//
// Why hand-written: bench/operator.ts measures it against
// @flatten-js/interval-tree side by side; see the README's operator benchmark.

/** Base class of everything stored in an `IntervalTree`. */
export class IntervalNode {
  /** Inclusive interval start. */
  start: number;
  /** Inclusive interval end (`end >= start` is the caller's contract). */
  end: number;
  /** Tie-breaker among equal starts; unique within one tree. */
  order: number;
  /** Tree links; null when not in a tree. */
  left: this | null = null;
  right: this | null = null;
  height = 1;
  maxEnd: number;

  constructor(start: number, end: number, order: number) {
    this.start = start;
    this.end = end;
    this.order = order;
    this.maxEnd = end;
  }
}

// Stryker disable next-line ArrowFunction: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
const heightOf = (n: IntervalNode | null): number => (n === null ? 0 : n.height);

/** (start, order) comparison: negative when `a` sorts before `b`. */
function compareNodes(a: IntervalNode, b: IntervalNode): number {
  return a.start !== b.start ? a.start - b.start : a.order - b.order;
}

export class IntervalTree<N extends IntervalNode> {
  private root: N | null = null;
  private count = 0;

  // Stryker disable all: read by the unit tests and benchmarks only, never by the operator (docs/mutation.md)
  /** Number of items in the tree, O(1). */
  get size(): number {
    return this.count;
  }
  // Stryker restore all

  /** Adds `item`. Its (start, order) must not be in the tree already. */
  insert(item: N): void {
    // Stryker disable next-line all: a defensive check: the operator never passes such an item (docs/mutation.md)
    if (item.end < item.start) throw new RangeError(`interval [${item.start}, ${item.end}] is reversed`);
    item.left = null;
    item.right = null;
    item.height = 1;
    item.maxEnd = item.end;
    this.root = this.insertAt(this.root, item);
    // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    this.count++;
  }

  /** Removes exactly `item` (found by start and order). Returns whether it was there. */
  remove(item: N): boolean {
    const before = this.count;
    this.root = this.removeAt(this.root, item);
    // Stryker disable next-line all: the operator removes only rows it holds (docs/mutation.md)
    if (this.count === before) return false;
    item.left = null;
    item.right = null;
    item.height = 1;
    item.maxEnd = item.end;
    // Stryker disable next-line BooleanLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    return true;
  }

  /**
   * Calls `visit` for every item whose closed interval meets [from, to]
   * (`item.start <= to && from <= item.end`), in (start, order) order. The
   * tree must not be changed during the walk.
   */
  forEachOverlapping(from: number, to: number, visit: (item: N) => void): void {
    if (this.root !== null) this.collect(this.root, from, to, visit);
  }

  // Stryker disable all: read by the unit tests and benchmarks only, never by the operator (docs/mutation.md)
  /** All items in (start, order) order. */
  items(): N[] {
    const out: N[] = [];
    const walk = (n: N | null): void => {
      if (n === null) return;
      walk(n.left);
      out.push(n);
      walk(n.right);
    };
    walk(this.root);
    return out;
  }

  /**
   * Checks the AVL and augmentation invariants; returns the first broken
   * one, or undefined. For tests.
   */
  checkInvariants(): string | undefined {
    let problem: string | undefined;
    let seen = 0;
    let previous: N | null = null;
    const walk = (n: N | null): void => {
      if (n === null || problem !== undefined) return;
      walk(n.left);
      seen++;
      if (previous !== null && compareNodes(previous, n) >= 0) problem = `order broken at (${n.start}, ${n.order})`;
      previous = n;
      walk(n.right);
      const balance = heightOf(n.left) - heightOf(n.right);
      if (n.height !== 1 + Math.max(heightOf(n.left), heightOf(n.right))) problem ??= `stale height at (${n.start}, ${n.order})`;
      if (balance < -1 || balance > 1) problem ??= `unbalanced at (${n.start}, ${n.order})`;
      const maxEnd = Math.max(n.end, n.left?.maxEnd ?? -Infinity, n.right?.maxEnd ?? -Infinity);
      if (n.maxEnd !== maxEnd) problem ??= `stale maxEnd at (${n.start}, ${n.order})`;
    };
    walk(this.root);
    if (problem === undefined && seen !== this.count) problem = `size ${this.count} but ${seen} nodes`;
    return problem;
  }
  // Stryker restore all

  private collect(n: N, from: number, to: number, visit: (item: N) => void): void {
    // Nothing in this subtree ends at or after `from`.
    if (n.maxEnd < from) return;
    if (n.left !== null) this.collect(n.left, from, to, visit);
    // This node and its whole right subtree start after `to`.
    if (n.start > to) return;
    if (n.end >= from) visit(n);
    if (n.right !== null) this.collect(n.right, from, to, visit);
  }

  private insertAt(n: N | null, item: N): N {
    if (n === null) return item;
    const c = compareNodes(item, n);
    // Stryker disable next-line all: a defensive check: the operator never passes such an item (docs/mutation.md)
    if (c === 0) throw new Error(`duplicate tree entry (${item.start}, ${item.order})`);
    if (c < 0) n.left = this.insertAt(n.left, item);
    else n.right = this.insertAt(n.right, item);
    return this.rebalance(n);
  }

  private removeAt(n: N | null, item: N): N | null {
    if (n === null) return null;
    const c = compareNodes(item, n);
    if (c < 0) {
      n.left = this.removeAt(n.left, item);
      return this.rebalance(n);
    }
    if (c > 0) {
      n.right = this.removeAt(n.right, item);
      return this.rebalance(n);
    }
    // Same (start, order) but another object: `item` is not in this tree.
    if (n !== item) return n;
    // Stryker disable next-line UpdateOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    this.count--;
    if (n.left === null) return n.right;
    if (n.right === null) return n.left;
    // Two children: the in-order successor takes n's place.
    let successor = n.right;
    while (successor.left !== null) successor = successor.left;
    successor.right = this.removeMin(n.right);
    successor.left = n.left;
    return this.rebalance(successor);
  }

  private removeMin(n: N): N | null {
    if (n.left === null) return n.right;
    n.left = this.removeMin(n.left);
    return this.rebalance(n);
  }

  private update(n: N): void {
    const l = n.left;
    const r = n.right;
    const hl = l === null ? 0 : l.height;
    const hr = r === null ? 0 : r.height;
    // Stryker disable next-line ArithmeticOperator,MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    n.height = Math.max(hl, hr) + 1;
    let m = n.end;
    if (l !== null && l.maxEnd > m) m = l.maxEnd;
    if (r !== null && r.maxEnd > m) m = r.maxEnd;
    n.maxEnd = m;
  }

  private rotateRight(n: N): N {
    const l = n.left as N;
    n.left = l.right;
    l.right = n;
    this.update(n);
    this.update(l);
    return l;
  }

  private rotateLeft(n: N): N {
    const r = n.right as N;
    n.right = r.left;
    r.left = n;
    this.update(n);
    this.update(r);
    return r;
  }

  private rebalance(n: N): N {
    this.update(n);
    const balance = heightOf(n.left) - heightOf(n.right);
    // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (balance > 1) {
      const l = n.left as N;
      if (heightOf(l.left) < heightOf(l.right)) n.left = this.rotateLeft(l);
      return this.rotateRight(n);
    }
    // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (balance < -1) {
      const r = n.right as N;
      if (heightOf(r.right) < heightOf(r.left)) n.right = this.rotateRight(r);
      return this.rotateLeft(n);
    }
    return n;
  }
}
