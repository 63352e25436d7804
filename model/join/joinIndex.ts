// The reference join over logs of any length: the rules of join.ts
// (`decideJoin`, the J7 table) over rows held in indexes instead of lists,
// so that a record costs what it touches, not what is held. `stepJoin`
// scans and copies every held row per record, which is what the explorer
// needs (small immutable states it can hash and share) and quadratic over a
// long log that holds many rows (a watermark that never advances holds
// every row, J8). Here the state is mutable and indexed:
//
// - bindings by identity (J2);
// - per key and side, the rows sorted by start: a row overlapping `x` starts
//   in [x.start − D, x.end], since no held row is longer than D (J1
//   `too_long`), so the partners of an insert (J3) are one slice of it;
// - per endpoint identity, its retained matches (J6 retracts them, J8 keeps
//   a match while either endpoint is bound);
// - every held row in a heap by end: J8 evicts rows in the order of their
//   horizons `end + L + D`, so eviction pops exactly the rows it evicts.
import type { Change, JoinConfig, LogRecord, Outcome, RetainedCounts, RowContent, Side, Watermarks } from '../../spec/index.ts';
import {
  decideJoin,
  globalWatermark,
  horizonOf,
  overlaps,
  type HeldRows,
  type JoinEffect,
  type MatchState,
  type RowState,
} from './join.ts';

const opposite = (s: Side): Side => (s === 'L' ? 'R' : 'L');
const identityOf = (key: string, side: Side, id: string): string => JSON.stringify([key, side, id]);
const matchKey = (m: MatchState): string => JSON.stringify([m.key, m.left, m.right]);

/** The first index in `rows` (sorted by start) whose start is at least `start`. */
function firstStartingAt(rows: readonly RowState[], start: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as RowState).start < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A binary min-heap of rows by end: the order in which J8 evicts them. */
class RowsByEnd {
  private readonly heap: RowContent[] = [];

  push(row: RowContent): void {
    const h = this.heap;
    h.push(row);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if ((h[parent] as RowContent).end <= row.end) break;
      h[i] = h[parent] as RowContent;
      i = parent;
    }
    h[i] = row;
  }

  /** The row that ends first, if any. */
  peek(): RowContent | undefined {
    return this.heap[0];
  }

  pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= h.length) break;
      const right = left + 1;
      const child = right < h.length && (h[right] as RowContent).end < (h[left] as RowContent).end ? right : left;
      if ((h[child] as RowContent).end >= last.end) break;
      h[i] = h[child] as RowContent;
      i = child;
    }
    h[i] = last;
  }
}

/** The join over indexes: `apply` runs one record (J7, J8), `retained` gives the counts of §3. */
export class IndexedJoin implements HeldRows {
  readonly wm: { L: Watermarks['L']; R: Watermarks['R'] } = { L: null, R: null };
  private readonly config: JoinConfig;
  /** J2: identity → its binding. */
  private readonly bindings = new Map<string, RowState>();
  /** Key → side → the rows held, sorted by start. */
  private readonly byKey = new Map<string, Record<Side, RowState[]>>();
  /** Endpoint identity → its retained matches, by match. */
  private readonly matchesByEndpoint = new Map<string, Map<string, MatchState>>();
  private readonly byEnd = new RowsByEnd();
  private live = 0;
  private tombstones = 0;
  private matches = 0;

  constructor(config: JoinConfig) {
    this.config = config;
  }

  bound(row: RowContent): RowState | undefined {
    return this.bindings.get(identityOf(row.key, row.side, row.id));
  }

  partners(row: RowContent): RowState[] {
    const rows = this.byKey.get(row.key)?.[opposite(row.side)] ?? [];
    const found: RowState[] = [];
    for (let i = firstStartingAt(rows, row.start - this.config.maxIntervalLength); i < rows.length; i++) {
      const r = rows[i] as RowState;
      if (r.start > row.end) break;
      if (r.live && overlaps(r, row)) found.push(r);
    }
    return found;
  }

  matchesOf(row: RowContent): MatchState[] {
    return [...(this.matchesByEndpoint.get(identityOf(row.key, row.side, row.id))?.values() ?? [])];
  }

  /** One record: its outcome and changes (J7); the state follows it. */
  apply(record: LogRecord): { outcome: Outcome; changes: readonly Change[] } {
    const { outcome, changes, effect } = decideJoin(this.config, this, record);
    if (effect) this.carryOut(effect);
    return { outcome, changes };
  }

  /** §3: the retained counts over all keys. */
  retained(): RetainedCounts {
    return { live: this.live, tombstones: this.tombstones, matches: this.matches };
  }

  private carryOut(effect: JoinEffect): void {
    switch (effect.kind) {
      case 'bind': {
        const { row } = effect;
        this.bindings.set(identityOf(row.key, row.side, row.id), row);
        let sides = this.byKey.get(row.key);
        if (!sides) this.byKey.set(row.key, (sides = { L: [], R: [] }));
        const list = sides[row.side];
        list.splice(firstStartingAt(list, row.start + 1), 0, row);
        this.byEnd.push(row);
        if (row.live) this.live++;
        else this.tombstones++;
        for (const m of effect.matches) this.addMatch(m);
        return;
      }
      case 'tombstone': {
        const { row } = effect;
        const identity = identityOf(row.key, row.side, row.id);
        const was = this.bindings.get(identity) as RowState;
        const now: RowState = { ...was, live: false };
        this.bindings.set(identity, now);
        const list = this.byKey.get(row.key)?.[row.side] ?? [];
        list[list.indexOf(was, firstStartingAt(list, was.start))] = now;
        this.live--;
        this.tombstones++;
        for (const m of effect.matches) this.removeMatch(m);
        return;
      }
      case 'watermark': {
        const before = globalWatermark(this.wm);
        this.wm[effect.side] = effect.wm;
        const gw = globalWatermark(this.wm);
        // J8: only a rise of gw evicts (a row bound since the last rise is retained at the current gw: J5, J6).
        if (gw !== null && (before === null || gw > before)) this.evictBefore(gw);
        return;
      }
    }
  }

  /** J8: evict every row with gw > end + L + D, and every match neither of whose endpoints is bound any more. */
  private evictBefore(gw: number): void {
    for (let r = this.byEnd.peek(); r !== undefined && gw > horizonOf(r.end, this.config); r = this.byEnd.peek()) {
      this.byEnd.pop();
      const identity = identityOf(r.key, r.side, r.id);
      const row = this.bindings.get(identity) as RowState;
      this.bindings.delete(identity);
      const list = this.byKey.get(r.key)?.[r.side] ?? [];
      list.splice(list.indexOf(row, firstStartingAt(list, row.start)), 1);
      if (row.live) this.live--;
      else this.tombstones--;
      const own = this.matchesByEndpoint.get(identity);
      for (const m of own?.values() ?? []) {
        const partner = r.side === 'L' ? identityOf(m.key, 'R', m.right) : identityOf(m.key, 'L', m.left);
        if (!this.bindings.has(partner)) this.removeMatch(m);
      }
    }
  }

  private addMatch(m: MatchState): void {
    const key = matchKey(m);
    for (const endpoint of [identityOf(m.key, 'L', m.left), identityOf(m.key, 'R', m.right)]) {
      let own = this.matchesByEndpoint.get(endpoint);
      if (!own) this.matchesByEndpoint.set(endpoint, (own = new Map()));
      own.set(key, m);
    }
    this.matches++;
  }

  private removeMatch(m: MatchState): void {
    const key = matchKey(m);
    for (const endpoint of [identityOf(m.key, 'L', m.left), identityOf(m.key, 'R', m.right)]) {
      const own = this.matchesByEndpoint.get(endpoint);
      own?.delete(key);
      if (own?.size === 0) this.matchesByEndpoint.delete(endpoint);
    }
    this.matches--;
  }
}
