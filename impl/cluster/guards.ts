// The guards of SPEC §5: for each external action, why it is not enabled in
// the cluster's current state, or undefined when it is. An action that is not
// enabled changes nothing (cluster.ts returns the reason).
import { COORDINATOR } from '../../spec/index.ts';
import type { ClusterAction } from '../../spec/index.ts';
import { slotOf, workerAt, workerNamed, handoffOf, type ClusterState, type KeySlot, type Worker } from './clusterState.ts';
import type { HandoffPhase } from './storage.ts';

/**
 * C5, C8: a migration (freeze) or a failover of `key` to `to` starts only
 * with the coordinator up, the key and the worker known, and no handoff in
 * flight. Why not, or the key's slot and the worker.
 */
function handoffStart(c: ClusterState, key: string, to: string): { slot: KeySlot; to: Worker } | string {
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (!c.coordinatorUp) return 'the coordinator is down';
  const slot = c.slotByKey.get(key);
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (slot === undefined) return `unknown key ${key}`;
  const worker = c.workerByName.get(to);
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (worker === undefined) return `unknown worker ${to}`;
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (c.handoff !== null) return `a handoff of ${c.handoff.key} is in flight`;
  return { slot, to: worker };
}

/** Install is enabled in these phases (C6): only once `persist` has made the checkpoint durable. */
const INSTALL_PHASES: readonly HandoffPhase[] = ['persisted', 'installed', 'fenced'];

export function whyNotEnabled(c: ClusterState, a: ClusterAction): string | undefined {
  const coordinatorDown = c.coordinatorUp ? undefined : 'the coordinator is down';
  switch (a.type) {
    case 'record':
      return undefined;
    // Stryker disable all: dead code: a process action is never enabled (SPEC §7) (docs/mutation.md)
    case 'process':
      // §7: processing is eager, so after every action no process step is left enabled.
      return 'processing runs eagerly after every action (SPEC §7); no process step is pending';
    // Stryker restore all
    case 'freeze': {
      const start = handoffStart(c, a.key, a.to);
      if (typeof start === 'string') return start;
      const { slot, to } = start;
      const src = workerAt(c, slot.owner);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (to === src) return `${a.to} already owns ${a.key}`;
      if (src.status !== 'up') return `the owner ${src.id} is not up`;
      if (to.status !== 'up') return `${to.id} is not up`;
      const copy = src.copies.get(slot.order);
      // Stryker disable next-line LogicalOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (copy === undefined || copy.frozen || copy.epoch !== slot.epoch)
        // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        return `the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`;
      return undefined;
    }
    case 'persist': {
      const h = handoffOf(c, a.key);
      if (coordinatorDown) return coordinatorDown;
      if (h === undefined || h.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${a.key} awaits persist`;
      const src = workerNamed(c, h.src);
      if (src.status !== 'up') return `the source ${src.id} is not up`;
      const copy = src.copies.get(slotOf(c, a.key).order);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (copy === undefined || !copy.frozen) return `the source ${src.id} holds no frozen copy of ${a.key}`;
      return undefined;
    }
    case 'install': {
      const h = handoffOf(c, a.key);
      if (coordinatorDown) return coordinatorDown;
      if (h === undefined || h.kind !== 'migrate' || !INSTALL_PHASES.includes(h.phase))
        // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        return `no migration of ${a.key} awaits install (it needs a persisted checkpoint)`;
      if (workerNamed(c, h.dst).status !== 'up') return `the destination ${h.dst} is not up`;
      return undefined;
    }
    case 'duplicateInstall': {
      const m = c.slotByKey.get(a.key)?.lastInstall;
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (m === undefined) return `no install of ${a.key} was ever sent`;
      if (workerNamed(c, m.dst).status !== 'up') return `its destination ${m.dst} is not up`;
      return undefined;
    }
    case 'duplicateRelease': {
      const m = c.slotByKey.get(a.key)?.lastRelease;
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (m === undefined) return `no release of ${a.key} was ever sent`;
      if (workerNamed(c, m.src).status !== 'up') return `its source ${m.src} is not up`;
      return undefined;
    }
    case 'commit': {
      const h = handoffOf(c, a.key);
      if (coordinatorDown) return coordinatorDown;
      if (h === undefined || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${a.key} awaits commit`;
      if (a.crashAfterFence && h.phase !== 'installed') return 'the fence is already raised, so there is no crash point between the parts';
      const dst = workerNamed(c, h.dst);
      if (h.kind === 'migrate') {
        if (dst.status !== 'up') return `the destination ${dst.id} is not up`;
        const copy = dst.copies.get(slotOf(c, a.key).order);
        if (copy === undefined || copy.epoch !== h.from + 1)
          // Stryker disable next-line ArithmeticOperator,StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
          return `the destination ${dst.id} holds no installed copy of ${a.key} at epoch ${h.from + 1}`;
      } else if (dst.status === 'paused') return `the destination ${dst.id} is paused`;
      return undefined;
    }
    case 'release': {
      const h = handoffOf(c, a.key);
      if (coordinatorDown) return coordinatorDown;
      if (h === undefined || h.phase !== 'committed') return `no handoff of ${a.key} awaits release`;
      if (workerNamed(c, h.src).status === 'paused') return `the source ${h.src} is paused`;
      return undefined;
    }
    case 'abort': {
      const h = handoffOf(c, a.key);
      if (coordinatorDown) return coordinatorDown;
      if (h === undefined || h.kind !== 'migrate') return `no migration of ${a.key} is in flight`;
      if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward (C5)';
      if (workerNamed(c, h.src).status === 'paused') return `the source ${h.src} is paused`;
      return undefined;
    }
    case 'failover': {
      const start = handoffStart(c, a.key, a.to);
      if (typeof start === 'string') return start;
      const { slot, to } = start;
      const owner = workerAt(c, slot.owner);
      if (owner.status === 'up') return `the owner ${owner.id} is up`;
      if (to.status !== 'up') return `${to.id} is not up`;
      return undefined;
    }
    case 'checkpoint': {
      const w = c.workerByName.get(a.worker);
      const slot = c.slotByKey.get(a.key);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (w === undefined) return `unknown worker ${a.worker}`;
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (slot === undefined) return `unknown key ${a.key}`;
      if (w.status !== 'up') return `${w.id} is not up`;
      const copy = w.copies.get(slot.order);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (copy === undefined || copy.frozen) return `${w.id} holds no active copy of ${a.key}`;
      return undefined;
    }
    case 'crash': {
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (a.node === COORDINATOR) return c.coordinatorUp ? undefined : 'the coordinator is already down';
      const w = c.workerByName.get(a.node);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (w === undefined) return `unknown node ${a.node}`;
      return w.status === 'down' ? `${w.id} is already down` : undefined;
    }
    case 'restart': {
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (a.node === COORDINATOR) return c.coordinatorUp ? 'the coordinator is up' : undefined;
      const w = c.workerByName.get(a.node);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (w === undefined) return `unknown node ${a.node}`;
      return w.status === 'down' ? undefined : `${w.id} is not down`;
    }
    case 'pause': {
      const w = c.workerByName.get(a.worker);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (w === undefined) return `unknown worker ${a.worker}`;
      return w.status === 'up' ? undefined : `${w.id} is not up`;
    }
    case 'resume': {
      const w = c.workerByName.get(a.worker);
      // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (w === undefined) return `unknown worker ${a.worker}`;
      return w.status === 'paused' ? undefined : `${w.id} is not paused`;
    }
    // Stryker disable all: action validation, unreachable through the protocol (docs/mutation.md)
    default:
      throw new TypeError(`action.type ${JSON.stringify((a as { type?: unknown }).type)} is not a cluster action`);
  }
}
// Stryker restore all
