// A binary min-heap of rows by `end`, across all keys: the eviction queue of
// J8. L and D are global, so the order by horizon `end + L + D` is the order
// by `end`. Rows leave state only through eviction (a retraction turns a live
// row into a tombstone with the same end), so every entry is current: the
// heap never holds stale entries and a watermark pops exactly the rows it
// evicts, plus one look at the first row that stays.

export interface HorizonEntry {
  readonly end: number;
  /** Breaks ties so that the eviction order is deterministic. */
  readonly order: number;
}

const before = (a: HorizonEntry, b: HorizonEntry): boolean => a.end < b.end || (a.end === b.end && a.order < b.order);

export class HorizonHeap<E extends HorizonEntry> {
  private readonly entries: E[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** The row with the smallest end, if any. O(1). */
  peek(): E | undefined {
    return this.entries[0];
  }

  /** O(log n). */
  push(entry: E): void {
    const a = this.entries;
    a.push(entry);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent] as E;
      if (!before(entry, p)) break;
      a[i] = p;
      i = parent;
    }
    a[i] = entry;
  }

  /** Removes and returns the row with the smallest end. O(log n). */
  pop(): E | undefined {
    const a = this.entries;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    this.siftDown(0, last);
    return top;
  }

  /** Replaces the contents with `entries` in O(n) (Floyd's heap construction). */
  rebuild(entries: readonly E[]): void {
    const a = this.entries;
    a.length = 0;
    for (const e of entries) a.push(e);
    for (let i = (a.length >> 1) - 1; i >= 0; i--) this.siftDown(i, a[i] as E);
  }

  private siftDown(start: number, entry: E): void {
    const a = this.entries;
    const n = a.length;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      if (r < n && before(a[r] as E, a[l] as E)) child = r;
      const c = a[child] as E;
      if (!before(c, entry)) break;
      a[i] = c;
      i = child;
    }
    a[i] = entry;
  }
}
