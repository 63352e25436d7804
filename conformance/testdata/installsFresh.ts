// A system whose restores ignore part of the checkpoint they read (C6, C8,
// C10 bugs): the reference model otherwise. An install gives the destination
// an empty copy at the checkpoint's cursor and epoch, ignoring the
// checkpoint's join state (or only its watermarks); a failover or a restart
// reads the key's checkpoint as if it lacked that (then replays the log from
// its cursor as the model does). What it lost shows at the restore when the
// key held rows (the copy's retained counts), and only later when it held
// watermarks alone (a watermark stale under them is accepted, an insert late
// under them is on time). conformance/report/earliestRule.test.ts pins which
// rule the report names for each, conformance/generate/heldWatermarks.test.ts
// that every kind of restore of the held-state scenarios shows the loss.
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction } from '../../spec/index.ts';
import {
  applyExternal,
  initialClusterState,
  initialJoinState,
  observeCluster,
  whyNotEnabled,
  withCopy,
  type ClusterSetup,
  type ClusterState,
  type JoinState,
} from '../../model/index.ts';
import type { ClusterUnderTest, InProcessSut } from '../sut/sut.ts';
import { modelSut } from '../sut/modelSut.ts';
import { withOwnEntry } from '../sut/ownEntry.ts';

/** A kind of restore: an install (C6), a failover (C8), a restart (C10). */
export type RestoreKind = 'install' | 'failover' | 'restart';

/** `join` without what a lossy restore drops: all of it, or only its watermarks. */
export const joinLacking = (join: JoinState, lost: 'state' | 'watermarks'): JoinState =>
  lost === 'state' ? initialJoinState : { ...join, wm: initialJoinState.wm };

/** Whether `join` holds a watermark of either side (what a restore without watermarks can lose). */
export const holdsWatermarks = (join: JoinState): boolean => join.wm.L !== null || join.wm.R !== null;

/** The state with every checkpoint of the store lacking `lost`. */
function storeLacking(state: ClusterState, lost: 'state' | 'watermarks'): ClusterState {
  let store = state.store;
  for (const key of Object.keys(state.store)) {
    const cp = state.store[key];
    if (cp) store = withOwnEntry(store, key, { ...cp, join: joinLacking(cp.join, lost) });
  }
  return { ...state, store };
}

function lossyRestoreCluster(given: ClusterConfig, lost: 'state' | 'watermarks', kinds: readonly RestoreKind[]): ClusterUnderTest {
  const setup: ClusterSetup = { ...given, checkProperties: false };
  let state = initialClusterState(setup);
  return {
    apply(action: ExternalAction) {
      const why = whyNotEnabled(setup, state, action);
      if (why !== undefined) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: why } };
      if ((action.type === 'failover' || action.type === 'restart') && kinds.includes(action.type)) {
        // The bug: the restore reads the checkpoints as if they lacked it; the store itself keeps them whole.
        const read = storeLacking(state, lost);
        const step = applyExternal(setup, read, action);
        // A failover or a restart writes no checkpoint (C8, C10): the store after it is the one it read, and stays whole.
        state = { ...step.state, store: step.state.store === read.store ? state.store : step.state.store };
        return { events: step.events };
      }
      const step = applyExternal(setup, state, action);
      state = step.state;
      if (action.type === 'install' && kinds.includes('install')) {
        for (const e of step.events) {
          // The model's maps have no prototype: a worker or key named `__proto__` reads as its entry.
          const copy = e.type === 'restored' ? state.workers[e.worker]?.keys[e.key] : undefined;
          if (e.type !== 'restored' || !copy) continue;
          // The bug: the copy is installed frozen at the message's epoch and the checkpoint's cursor, but empty (or without its watermarks).
          state = withCopy(state, e.worker, e.key, { ...copy, join: joinLacking(copy.join, lost) });
        }
      }
      return { events: step.events };
    },
    observe: () => observeCluster(setup, state),
    close() {},
  };
}

/** The model, but the restores of `kinds` ignore the checkpoint's join state, or only its watermarks (C6, C8, C10). */
export function restoresWithout(lost: 'state' | 'watermarks', kinds: readonly RestoreKind[]): InProcessSut {
  return {
    ...modelSut,
    implementation: { name: `${kinds.join('-')}-without-${lost}`, version: '0' },
    cluster: (config) => lossyRestoreCluster(config, lost, kinds),
  };
}

/** The model, but an install ignores the checkpoint's join state, or only its watermarks (C6). */
export function installsWithout(lost: 'state' | 'watermarks'): InProcessSut {
  return { ...restoresWithout(lost, ['install']), implementation: { name: `installs-without-${lost}`, version: '0' } };
}

/** An install that restores an empty copy (at the checkpoint's cursor and epoch). */
export const installsFresh: InProcessSut = installsWithout('state');
