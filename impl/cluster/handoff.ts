// The parts of a handoff (C7, C8) and the delivery of its messages (C6, C7,
// C11): the steps that `commit`, `failover`, `install`, `release` and the
// duplicated messages share.
import type { ClusterEvent } from '../../spec/index.ts';
import {
  copyOf,
  dropCopy,
  rebuildCopy,
  recoverCopy,
  saveCoordinator,
  setCopy,
  slotOf,
  workerNamed,
  type ClusterState,
  type Runnable,
} from './clusterState.ts';
import { wake } from './eager.ts';
import type { HandoffRecord, InstallMessage, ReleaseMessage } from './storage.ts';

/**
 * C7/C8 first part: the handoff's phase becomes `fenced`, and the sink's
 * fence for the key is raised to from + 1. The record is written first: a
 * crash between the two leaves phase `fenced` with the fence not yet up,
 * which the next commit completes (it raises the fence again before the
 * ownership part); the other order could leave the fence raised with the
 * handoff still abortable, the key's owner fenced and nobody to take over.
 */
export function fencePart(c: ClusterState, h: HandoffRecord): HandoffRecord {
  const fenced: HandoffRecord = { ...h, phase: 'fenced' };
  c.handoff = fenced;
  saveCoordinator(c);
  c.sink.raiseFence(h.key, h.from + 1);
  return fenced;
}

/** C7/C8 second part: write ownership; a migrate's destination starts, a failover's recovers the key. */
export function ownershipPart(c: ClusterState, h: HandoffRecord, events: ClusterEvent[], runnable: Runnable): void {
  const slot = slotOf(c, h.key);
  const dst = workerNamed(c, h.dst);
  slot.owner = dst.order;
  slot.epoch = h.from + 1;
  c.handoff = h.kind === 'migrate' ? { ...h, phase: 'committed' } : null;
  saveCoordinator(c);
  if (h.kind === 'migrate') {
    copyOf(dst, slot).frozen = false;
    wake(c, runnable, dst, slot);
  } else if (dst.status === 'up') {
    recoverCopy(c, dst, slot, slot.epoch, events);
    wake(c, runnable, dst, slot);
  }
  // A failover to a down worker: ownership is written; it recovers the key when it restarts (C10).
}

/** C6: deliver an install message, subject to the install epoch check. */
export function deliverInstall(c: ClusterState, m: InstallMessage, events: ClusterEvent[]): void {
  const dst = workerNamed(c, m.dst);
  const slot = slotOf(c, m.key);
  const held = dst.copies.get(slot.order);
  // C6 install epoch check: refuse an epoch the destination already has, or has passed.
  if (held !== undefined && held.epoch >= m.epoch) {
    events.push({ type: 'refused', worker: dst.id, key: slot.key, reason: 'stale-epoch' });
    return;
  }
  const copy = rebuildCopy(c, m.checkpoint ?? undefined, m.epoch, true);
  setCopy(dst, slot, copy);
  events.push({ type: 'restored', worker: dst.id, key: slot.key, cursor: copy.cursor, epoch: m.epoch });
}

/** C7: deliver a release message, subject to the release epoch check. */
export function deliverRelease(c: ClusterState, m: ReleaseMessage, events: ClusterEvent[]): void {
  const src = workerNamed(c, m.src);
  const slot = slotOf(c, m.key);
  const copy = src.copies.get(slot.order);
  // C7 release epoch check: drop the copy only if it is still of the released epoch.
  if (copy === undefined || copy.epoch !== m.epoch) return;
  dropCopy(src, slot);
  events.push({ type: 'dropped', worker: src.id, key: slot.key, reason: 'released' });
}
