// A binary min-heap of rows by `end`, across all keys: the eviction queue of
// J8. L and D are global, so the order by horizon `end + L + D` is the order
// by `end`. Rows leave state only through eviction (a retraction turns a live
// row into a tombstone with the same end), so every entry is current: the
// heap never holds stale entries and a watermark pops exactly the rows it
// evicts, plus one look at the first row that stays.
//
// The sort keys live in typed arrays beside the entries, so sifting compares
// numbers in contiguous memory instead of following a pointer to each row
// (at 10^5 rows that pointer chase was most of the cost of an eviction).

export interface HorizonEntry {
  readonly end: number;
  /** Breaks ties so that the eviction order is deterministic. */
  readonly order: number;
}

export class HorizonHeap<E extends HorizonEntry> {
  // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  private items: (E | undefined)[] = [];
  private ends = new Float64Array(16);
  private orders = new Float64Array(16);
  private count = 0;

  // Stryker disable all: read by the unit tests and benchmarks only, never by the operator (docs/mutation.md)
  get size(): number {
    return this.count;
  }
  // Stryker restore all

  /** The row with the smallest end, if any. O(1). */
  peek(): E | undefined {
    return this.count === 0 ? undefined : this.items[0];
  }

  /** O(log n). */
  push(entry: E): void {
    if (this.count === this.ends.length) this.grow();
    this.siftUp(this.count++, entry, entry.end, entry.order);
  }

  /** Removes and returns the row with the smallest end. O(log n). */
  pop(): E | undefined {
    if (this.count === 0) return undefined;
    const top = this.items[0];
    const last = --this.count;
    const entry = this.items[last] as E;
    const end = this.ends[last] as number;
    const order = this.orders[last] as number;
    this.items[last] = undefined;
    if (last > 0) this.siftDown(0, entry, end, order);
    return top;
  }

  /** Replaces the contents with `entries` in O(n) (Floyd's heap construction). */
  rebuild(entries: readonly E[]): void {
    this.count = 0;
    this.items = [];
    const capacity = Math.max(16, entries.length);
    this.ends = new Float64Array(capacity);
    this.orders = new Float64Array(capacity);
    for (const e of entries) {
      this.items.push(e);
      this.ends[this.count] = e.end;
      this.orders[this.count] = e.order;
      this.count++;
    }
    // Stryker disable next-line ArithmeticOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    for (let i = (this.count >> 1) - 1; i >= 0; i--) {
      this.siftDown(i, this.items[i] as E, this.ends[i] as number, this.orders[i] as number);
    }
  }

  private grow(): void {
    const ends = new Float64Array(this.ends.length * 2);
    ends.set(this.ends);
    const orders = new Float64Array(this.orders.length * 2);
    orders.set(this.orders);
    this.ends = ends;
    this.orders = orders;
  }

  private place(i: number, entry: E, end: number, order: number): void {
    this.items[i] = entry;
    this.ends[i] = end;
    this.orders[i] = order;
  }

  private siftUp(start: number, entry: E, end: number, order: number): void {
    const ends = this.ends;
    const orders = this.orders;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pe = ends[parent] as number;
      if (pe < end || (pe === end && (orders[parent] as number) < order)) break;
      this.place(i, this.items[parent] as E, pe, orders[parent] as number);
      i = parent;
    }
    this.place(i, entry, end, order);
  }

  private siftDown(start: number, entry: E, end: number, order: number): void {
    const ends = this.ends;
    const orders = this.orders;
    const n = this.count;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      if (r < n) {
        const re = ends[r] as number;
        const le = ends[l] as number;
        if (re < le || (re === le && (orders[r] as number) < (orders[l] as number))) child = r;
      }
      const ce = ends[child] as number;
      if (ce > end || (ce === end && (orders[child] as number) > order)) break;
      this.place(i, this.items[child] as E, ce, orders[child] as number);
      i = child;
    }
    this.place(i, entry, end, order);
  }
}
