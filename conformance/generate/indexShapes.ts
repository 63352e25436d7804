// The interval index's and the heap of horizons' shapes (issue 21, item 7)
// in an operator trace, found on the model's state each record meets: the
// steps where an index or eviction bug of those shapes shows. Read by
// power.test.ts (how often random traces make them) and by
// mutants/indexHeapBugs.test.ts (that the step a bug diverges at is one).
import type { OperatorTrace } from '../../spec/index.ts';
import { initialJoinState, stepJoin, type JoinState } from '../../model/index.ts';

export interface IndexShapes {
  /**
   * Steps that probe a gap: in an index of one key's and side's live rows
   * keyed by start, a retraction of a row with rows before it and after it
   * (a node with two children, once the index holds them in a balanced tree),
   * where a row before it reaches further right than any row from it on (so
   * a successor that replaces it must not take over the reach of the part
   * before); then, before any watermark, a row of the other side that
   * overlaps that gap (the step listed).
   */
  readonly gapProbes: readonly number[];
  /**
   * Watermarks that evict a key's last live row while a tombstone of the key
   * with a later end stays (a heap of horizons that drops a key with its last
   * live row loses that tombstone, J6).
   */
  readonly lastLiveUnderTombstone: readonly number[];
}

export function indexShapes(t: OperatorTrace): IndexShapes {
  let state: JoinState = initialJoinState;
  let gap = null as { key: string; side: string; from: number; to: number } | null;
  const gapProbes: number[] = [];
  const lastLiveUnderTombstone: number[] = [];
  for (const [step, { record }] of t.steps.entries()) {
    if (
      record.kind === 'insert' &&
      gap?.key === record.key &&
      gap.side !== record.side &&
      record.start <= gap.to &&
      record.end > gap.from
    ) {
      gapProbes.push(step);
      gap = null;
    }
    if (record.kind === 'retract') {
      const live = state.rows.filter((r) => r.live && r.key === record.key && r.side === record.side);
      const target = live.find((r) => r.id === record.id);
      if (target) {
        const before = live.filter((r) => r.start < target.start || (r.start === target.start && r.id < target.id));
        const after = live.filter((r) => r !== target && !before.includes(r));
        const reachBefore = Math.max(...before.map((r) => r.end));
        const reachFrom = Math.max(target.end, ...after.map((r) => r.end));
        if (before.length > 0 && after.length > 0 && reachBefore > reachFrom)
          gap = { key: record.key, side: record.side, from: reachFrom, to: reachBefore };
      }
    } else if (record.kind === 'watermark') gap = null;
    const next = stepJoin(t.config, state, record).state;
    if (record.kind === 'watermark') {
      for (const key of new Set(state.rows.filter((r) => r.live).map((r) => r.key))) {
        const evicted = state.rows.filter((r) => r.live && r.key === key);
        if (next.rows.some((r) => r.live && r.key === key)) continue;
        if (next.rows.some((r) => !r.live && r.key === key && evicted.every((e) => r.end > e.end))) lastLiveUnderTombstone.push(step);
      }
    }
    state = next;
  }
  return { gapProbes, lastLiveUnderTombstone };
}
