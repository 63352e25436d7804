// The effects of enabled external actions (SPEC §5), one case per action.
// Durable writes come before the volatile changes they announce. Eager
// processing (eager.ts) runs after each of them.
import { COORDINATOR } from '../../spec/index.ts';
import type { ClusterAction, ClusterEvent, LogRecord } from '../../spec/index.ts';
import { recordValidity } from '../validity.ts';
import {
  copyOf,
  dropCopy,
  inFlight,
  recoverCopy,
  checkpointOf,
  saveCoordinator,
  setPhase,
  storeCheckpoint,
  slotAt,
  slotOf,
  storedCheckpoint,
  workerAt,
  workerNamed,
  writeCheckpoint,
  type ClusterState,
  type Runnable,
} from './clusterState.ts';
import { indexRecord, wake } from './eager.ts';
import { deliverInstall, deliverRelease, fencePart, ownershipPart } from './handoff.ts';
import type { InstallMessage, ReleaseMessage } from './storage.ts';

/** The effect of an action the guards (guards.ts) have found enabled: its events go to `events`, the copies it may have made runnable to `runnable`. */
export function perform(c: ClusterState, a: ClusterAction, events: ClusterEvent[], runnable: Runnable): void {
  switch (a.type) {
    case 'record':
      return appendRecord(c, a.record, events, runnable);
    // Stryker disable all: dead code: a process action is never enabled (SPEC §7) (docs/mutation.md)
    case 'process':
      return; // never enabled (see whyNotEnabled)
    // Stryker restore all
    case 'freeze': {
      // C5: record the handoff durably, then stop the source's copy.
      const slot = slotOf(c, a.key);
      const src = workerAt(c, slot.owner);
      c.handoff = { kind: 'migrate', key: slot.key, src: src.id, dst: a.to, from: slot.epoch, phase: 'frozen' };
      saveCoordinator(c);
      copyOf(src, slot).frozen = true;
      return;
    }
    case 'persist': {
      // C5: the frozen source's checkpoint is durable before the handoff may move on to install.
      const h = inFlight(c);
      const slot = slotOf(c, h.key);
      // One step, two durable parts (the store, then the phase): the record names the checkpoint
      // first, so that recovery finishes a step a kill split (recovery.ts) instead of leaving the
      // checkpoint stored with the handoff still frozen, a state SPEC does not have.
      const checkpoint = checkpointOf(slot, copyOf(workerNamed(c, h.src), slot));
      saveCoordinator(c, { persisting: checkpoint });
      // mutant: commit-before-durable-checkpoint
      storeCheckpoint(c, slot, checkpoint);
      setPhase(c, 'persisted');
      return;
    }
    case 'install': {
      // C6: send the store's latest checkpoint (or none) at epoch from + 1.
      const h = inFlight(c);
      const slot = slotOf(c, h.key);
      const message: InstallMessage = { key: slot.key, dst: h.dst, epoch: h.from + 1, checkpoint: storedCheckpoint(c, slot) ?? null };
      // One step, two durable parts (the phase, the message a duplicate delivers again, C11): the record
      // carries the message with the phase, so that a kill between them leaves both (recovery.ts saves
      // the message from the record) or neither, never a phase without its message or the reverse.
      if (h.phase !== 'fenced') c.handoff = { ...h, phase: 'installed' };
      saveCoordinator(c, { installing: message });
      c.storage.coordinator.saveInstall(message);
      slot.lastInstall = message;
      deliverInstall(c, message, events);
      return;
    }
    case 'duplicateInstall':
      return deliverInstall(c, slotOf(c, a.key).lastInstall as InstallMessage, events);
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    case 'duplicateRelease':
      return deliverRelease(c, slotOf(c, a.key).lastRelease as ReleaseMessage, events);
    case 'commit': {
      // C7: the fence part, then the ownership part; the coordinator may crash between them.
      let h = inFlight(c);
      if (h.phase === 'installed') {
        h = fencePart(c, h);
        if (a.crashAfterFence) {
          c.coordinatorUp = false;
          return;
        }
      } else {
        // Phase fenced: the fence part ran before a crash. Raising the fence again is a
        // no-op unless that crash fell between writing the phase and raising the fence.
        // Stryker disable next-line ArithmeticOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        c.sink.raiseFence(h.key, h.from + 1);
      }
      return ownershipPart(c, h, events, runnable);
    }
    case 'release': {
      // C7: the handoff is over; tell the source to let go of the old epoch.
      const h = inFlight(c);
      const slot = slotOf(c, h.key);
      const message: ReleaseMessage = { key: slot.key, src: h.src, epoch: h.from };
      slot.lastRelease = message;
      c.handoff = null;
      saveCoordinator(c);
      if (workerNamed(c, h.src).status === 'up') deliverRelease(c, message, events);
      return;
    }
    case 'abort': {
      // C5: before the fence a handoff may be abandoned; the source goes on under the old epoch.
      const h = inFlight(c);
      const slot = slotOf(c, h.key);
      c.handoff = null;
      saveCoordinator(c);
      const src = workerNamed(c, h.src);
      const srcCopy = src.copies.get(slot.order);
      if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {
        srcCopy.frozen = false;
        wake(c, runnable, src, slot);
      }
      const dst = workerNamed(c, h.dst);
      const dstCopy = dst.copies.get(slot.order);
      if (dst.status === 'up' && dstCopy !== undefined && dstCopy.frozen && dstCopy.epoch === h.from + 1) {
        dropCopy(dst, slot);
        events.push({ type: 'dropped', worker: dst.id, key: slot.key, reason: 'aborted' });
      }
      return;
    }
    case 'failover': {
      // C8: the fence part, then ownership to a live worker that recovers the key.
      const slot = slotOf(c, a.key);
      const h = fencePart(c, {
        kind: 'failover',
        key: slot.key,
        src: workerAt(c, slot.owner).id,
        dst: a.to,
        from: slot.epoch,
        // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        phase: 'fenced',
      });
      if (a.crashAfterFence) {
        c.coordinatorUp = false;
        return;
      }
      return ownershipPart(c, h, events, runnable);
    }
    case 'checkpoint': {
      // C4: a periodic checkpoint of an active copy.
      const w = workerNamed(c, a.worker);
      const slot = slotOf(c, a.key);
      writeCheckpoint(c, slot, copyOf(w, slot));
      return;
    }
    case 'crash': {
      // C10: a crash loses the node's volatile state; durable parts are untouched.
      if (a.node === COORDINATOR) {
        c.coordinatorUp = false;
        // mutant: frozen-key-events-in-coordinator-memory
        return;
      }
      const w = workerNamed(c, a.node);
      w.status = 'down';
      for (const order of [...w.copies.keys()]) dropCopy(w, slotAt(c, order));
      return;
    }
    case 'restart': {
      if (a.node === COORDINATOR) {
        // C10: the durable record is intact; an in-flight handoff continues from its phase.
        c.coordinatorUp = true;
        return;
      }
      // C10: up with no copies, then recover every key the table gives it, under the key's epoch.
      const w = workerNamed(c, a.node);
      w.status = 'up';
      for (const slot of c.slots) {
        if (slot.owner !== w.order) continue;
        recoverCopy(c, w, slot, slot.epoch, events);
        wake(c, runnable, w, slot);
      }
      return;
    }
    case 'pause':
      // C10: stops acting, keeps its copies.
      workerNamed(c, a.worker).status = 'paused';
      return;
    case 'resume': {
      // C10: acts again with the copies and epochs it had (a zombie, if its keys moved meanwhile).
      const w = workerNamed(c, a.worker);
      w.status = 'up';
      for (const order of w.copies.keys()) wake(c, runnable, w, slotAt(c, order));
      return;
    }
  }
}

/** C3: validate, append durably, and wake the copies that read the record. */
function appendRecord(c: ClusterState, record: LogRecord, events: ClusterEvent[], runnable: Runnable): void {
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  const slot = record.kind === 'watermark' ? undefined : c.slotByKey.get(record.key);
  const reason =
    recordValidity(record, c.config.join.maxIntervalLength) ??
    (record.kind !== 'watermark' && slot === undefined ? 'unknown_key' : undefined);
  if (reason !== undefined) {
    events.push({ type: 'rejected', outcome: { code: 'rejected', reason } });
    return;
  }
  const index = c.storage.log.length;
  // C3: every valid record goes to the durable log, whether or not its key is
  // frozen. A frozen key's records wait there for whichever copy owns the key
  // next, which reads them from its checkpoint's cursor; none is held anywhere else.
  // mutant: frozen-key-events-in-coordinator-memory
  c.storage.log.append(record);
  indexRecord(c, record, index);
  c.onAppended?.(record);
  events.push({ type: 'appended', index });
  if (slot === undefined) {
    // A watermark is read by every copy (C3); only the copies that exist are visited.
    for (const w of c.workers) if (w.status === 'up') for (const order of w.copies.keys()) wake(c, runnable, w, slotAt(c, order));
  } else {
    for (const w of slot.holders) wake(c, runnable, w, slot);
  }
}
