// Test support for conformance/generate/heldWatermarks.test.ts and its e2e
// sibling (C6, C8, C10 with C2: a copy's watermarks are part of its state):
// per restore of a cluster trace, whether a copy restored without its
// checkpoint's watermarks makes the model answer differently at some later
// step, or the loss was made good first, or it stayed where no later step
// of the trace reads it.
import type { ClusterAction, ClusterEvent, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import {
  applyExternal,
  initialClusterState,
  observeCluster,
  whyNotEnabled,
  withCopy,
  type ClusterSetup,
  type ClusterState,
} from '../../model/index.ts';
import { holdsWatermarks, joinLacking, type RestoreKind } from './installsFresh.ts';
import { withOwnEntry } from '../sut/ownEntry.ts';

/** One model step: its events (undefined: refused) and the state after. */
function step(setup: ClusterSetup, state: ClusterState, action: ClusterAction): { events?: ClusterEvent[]; state: ClusterState } {
  if (action.type === 'process' || whyNotEnabled(setup, state, action) !== undefined) return { state };
  const t = applyExternal(setup, state, action);
  return { events: t.events, state: t.state };
}

/** The store with `key`'s checkpoint lacking its watermarks; undefined if it has none. */
function storeWithoutWatermarks(state: ClusterState, key: string): ClusterState | undefined {
  const cp = state.store[key];
  if (!cp || !holdsWatermarks(cp.join)) return undefined;
  return { ...state, store: withOwnEntry(state.store, key, { ...cp, join: joinLacking(cp.join, 'watermarks') }) };
}

/**
 * The state after the restore at a step, with the watermarks it gave
 * (worker, key) left out, and its events; undefined if it gave none. An
 * install's copy loses them; a failover or a restart reads the checkpoint as
 * if it lacked them, the store itself staying whole (it writes none).
 */
function restoredWithoutWatermarks(
  setup: ClusterSetup,
  before: ClusterState,
  after: ClusterState,
  action: ExternalAction,
  worker: string,
  key: string,
): { state: ClusterState; events?: ClusterEvent[] } | undefined {
  if (action.type === 'install') {
    const copy = after.workers[worker]?.keys[key];
    if (!copy || !holdsWatermarks(copy.join)) return undefined;
    return { state: withCopy(after, worker, key, { ...copy, join: joinLacking(copy.join, 'watermarks') }) };
  }
  const read = storeWithoutWatermarks(before, key);
  if (!read) return undefined;
  const t = step(setup, read, action);
  return { ...t, state: { ...t.state, store: t.state.store === read.store ? before.store : t.state.store } };
}

/** A restore, whether its copy read on, and whether the loss of its watermarks showed, was made good first, or stayed unread. */
export interface Restore {
  readonly kind: RestoreKind;
  /** The step of the trace it is. */
  readonly step: number;
  readonly processed: boolean;
  readonly shows: boolean;
  readonly healed: boolean;
  /**
   * Neither shown nor made good, but at the end of the trace the loss stays
   * only in copies that no longer own their key (a zombie's, a replaced
   * owner's) and in the store's checkpoints, which no later step reads:
   * only a restore after the trace's end could show it.
   */
  readonly unread: boolean;
}

/** Whether every key's current copy (its owner's, at the table's epoch) holds the same join state in both states. */
function ownersAlike(a: ClusterState, b: ClusterState, trace: ClusterTrace): boolean {
  const current = (x: ClusterState, key: string): string => {
    const owner = x.coordinator.owner[key];
    const copy = owner === undefined ? undefined : x.workers[owner]?.keys[key];
    return JSON.stringify(copy && copy.epoch === x.coordinator.epoch[key] ? copy : null);
  };
  return trace.config.keys.every(({ key }) => current(a, key) === current(b, key));
}

/**
 * Per restore of a trace that gave a copy watermarks (an install, a
 * failover, a restart): its kind, and whether the restored copy processed a
 * record afterwards and whether leaving its watermarks out changes the
 * model's events or observation at some step after (at the restore itself
 * for a failover or a restart, which process at once), or first leaves the
 * cluster again as it is with them kept (healed: the log's own watermarks,
 * read after the checkpoint's cursor, made the loss good, or the copy and
 * every checkpoint it wrote went away unread).
 */
export function restoresOf(trace: ClusterTrace): Restore[] {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  const actions = trace.steps.map((s) => s.action);
  const states: ClusterState[] = [initialClusterState(setup)];
  const replies: string[] = [];
  const eventsAt: ClusterEvent[][] = [];
  const reply = (t: { events?: ClusterEvent[]; state: ClusterState }): string =>
    JSON.stringify([t.events ?? null, observeCluster(setup, t.state)]);
  for (const a of actions) {
    const t = step(setup, states[states.length - 1] as ClusterState, a);
    states.push(t.state);
    eventsAt.push(t.events ?? []);
    replies.push(reply(t));
  }
  const out: Restore[] = [];
  for (const [s, a] of actions.entries()) {
    if (a.type !== 'install' && a.type !== 'failover' && a.type !== 'restart') continue;
    for (const e of eventsAt[s] ?? []) {
      if (e.type !== 'restored') continue;
      const lossy = restoredWithoutWatermarks(setup, states[s] as ClusterState, states[s + 1] as ClusterState, a, e.worker, e.key);
      if (!lossy) continue;
      // An install's copy is frozen: nothing shows at the install. A failover's or a restart's reads on at once.
      let shows = a.type !== 'install' && reply(lossy) !== replies[s];
      let healed = JSON.stringify(lossy.state) === JSON.stringify(states[s + 1]);
      let state = lossy.state;
      for (let i = s + 1; i < actions.length && !shows && !healed; i++) {
        const t = step(setup, state, actions[i] as ClusterAction);
        shows = reply(t) !== replies[i];
        healed = JSON.stringify(t.state) === JSON.stringify(states[i + 1]);
        state = t.state;
      }
      // Whether the restored copy went on to read a record at all (else nothing can depend on what it holds).
      const processed = eventsAt
        .slice(s)
        .some((es) => es.some((x) => x.type === 'processed' && x.worker === e.worker && x.key === e.key && x.epoch === e.epoch));
      const unread = !shows && !healed && ownersAlike(state, states[states.length - 1] as ClusterState, trace);
      out.push({ kind: a.type, step: s, processed, shows, healed, unread });
    }
  }
  return out;
}

/**
 * The kinds of restore each cluster scenario makes that give a copy
 * watermarks from a checkpoint (every graph scenario's key holds some before
 * anything else happens): the kinds whose loss its traces must show.
 */
export const HELD_RESTORES: Readonly<Record<string, readonly RestoreKind[]>> = {
  'migration-under-traffic': ['install', 'failover', 'restart'],
  'failover-replay-from-older-checkpoint': ['failover', 'restart'],
  // No checkpoint is ever written (no migration, no checkpoint budget): its failover and restarts rebuild from the log.
  'zombie-after-failover': [],
  'duplicates-after-the-store-moved': ['install'],
  'duplicates-and-retractions-across-a-handoff': ['install', 'restart'],
  'watermark-passes-horizon-during-handoff': ['install', 'restart'],
  'rich-state-across-a-handoff': ['install', 'failover', 'restart'],
  'failover-with-duplicates-and-failback': ['install', 'failover', 'restart'],
  'zombie-failback-with-duplicates': ['install', 'failover'],
  'colliding-ids': ['install', 'restart'],
  'extreme-times': ['install', 'failover', 'restart'],
  'zombie-checkpoint-installed': ['install', 'failover'],
  'zombie-checkpoint-recovered': ['failover', 'restart'],
  'two-keys-handoff-while-the-other-runs': ['install'],
  'two-keys-failover-of-a-shared-owner': ['failover', 'restart'],
};

/** The rule of a restore: an install (C6), a failover (C8), a restart (C10). */
export const RESTORE_RULE: Readonly<Record<RestoreKind, string>> = { install: 'C6', failover: 'C8', restart: 'C10' };
