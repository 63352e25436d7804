// §7 eager processing: after every external action, each copy the action may
// have made runnable reads its relevant records (C3) to the end of the log,
// writing each record's changes to the sink (C9). Also the per-key and
// watermark indexes of the log that make finding a copy's next record a
// binary search.
import type { Change, ClusterEvent, LogRecord } from '../../spec/index.ts';
import {
  dropCopy,
  slotAt,
  slotOf,
  workerAt,
  type ClusterState,
  type KeyCopy,
  type KeySlot,
  type Runnable,
  type Worker,
} from './clusterState.ts';

/** The first position in ascending `xs` whose value is >= `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Adds the record at `index` to its key's index, or to the watermark index. */
export function indexRecord(c: ClusterState, record: LogRecord, index: number): void {
  if (record.kind === 'watermark') c.watermarks.push(index);
  else slotOf(c, record.key).records.push(index);
}

/** C3: the index of the next record a copy of `slot` at `cursor` reads (its key's rows and every watermark), or the log length. */
function nextRelevant(c: ClusterState, slot: KeySlot, cursor: number): number {
  const own = slot.records[lowerBound(slot.records, cursor)];
  const wm = c.watermarks[lowerBound(c.watermarks, cursor)];
  const next = own === undefined ? wm : wm === undefined ? own : Math.min(own, wm);
  return next ?? c.storage.log.length;
}

/** C3: a worker processes a copy only while it is up and the copy is active; a frozen copy's records stay in the log. */
function canProcess(w: Worker, copy: KeyCopy): boolean {
  return w.status === 'up' && !copy.frozen;
}

/** Marks a copy as possibly runnable: `settle` visits it. */
export function wake(c: ClusterState, runnable: Runnable, w: Worker, slot: KeySlot): void {
  runnable.add(w.order * c.slots.length + slot.order);
}

/**
 * §7 eager processing: repeatedly the first worker in config order, then
 * its first key in config order, with an enabled process step. Processing
 * one copy never enables another (it touches only that copy and the sink),
 * so visiting the woken copies once, in that order, each to the end of its
 * backlog, is the same run.
 */
export function settle(c: ClusterState, runnable: Runnable, events: ClusterEvent[]): void {
  if (runnable.size === 0) return;
  const order = [...runnable].sort((a, b) => a - b);
  const keyCount = c.slots.length;
  for (const id of order) {
    const w = workerAt(c, Math.floor(id / keyCount));
    const slot = slotAt(c, id % keyCount);
    const copy = w.copies.get(slot.order);
    if (copy !== undefined && canProcess(w, copy)) processBacklog(c, w, slot, copy, events);
  }
}

/** C3/C9: the copy reads its relevant records to the end of the log, writing each record's changes as one write. */
function processBacklog(c: ClusterState, w: Worker, slot: KeySlot, copy: KeyCopy, events: ClusterEvent[]): void {
  const log = c.storage.log;
  for (;;) {
    const index = nextRelevant(c, slot, copy.cursor);
    if (index >= log.length) return;
    const { outcome, changes } = copy.operator.apply(log.at(index));
    copy.cursor = index + 1;
    const fenced = changes.length > 0 && c.sink.write(slot.key, copy.epoch, changes);
    events.push({
      type: 'processed',
      worker: w.id,
      key: slot.key,
      index,
      epoch: copy.epoch,
      outcome,
      changes: changes as Change[],
      fenced,
    });
    if (fenced) {
      // C9: a writer the sink has fenced has lost the key; it stops and forgets it.
      dropCopy(w, slot);
      events.push({ type: 'dropped', worker: w.id, key: slot.key, reason: 'fenced' });
      return;
    }
  }
}
