// Where a cluster divergence first went wrong when it shows late: a restore
// that gave a copy an empty state, or one without its watermarks, instead of
// its checkpoint's join state (an install, C6; a failover, C8; a restart,
// C10) shows only at the first step whose reply depends on that state (an
// insert late under the checkpoint's watermarks, a watermark stale under
// them, a retraction of a row it held), where the differing field is some J
// rule's. The fact found here: the system's step is exactly what the model
// gives when that restore loses the state: an install's copy emptied, or the
// checkpoint a failover or a restart reads emptied, cursor and epoch kept
// (the store itself lacking it from then on, or kept whole).
// Lockstep states it; report/ cites the restore's rule for it. Run only on
// a divergence.
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
import type { ClusterStepReply } from '../sut/sut.ts';
import { canonicalEvents, type ExpectedClusterStep, type FreshInstall } from '../sut/divergence.ts';
import { sameJson } from '../sut/jsonDiff.ts';
import { withOwnEntry } from '../sut/ownEntry.ts';

/** How many restores (an install's, with each thing it may have lost) before the divergence are tried, latest first. */
const INSTALLS_TRIED = 8;

/** The model's states before each step and after the last (`states[i]`: before step i). */
function statesAlong(setup: ClusterSetup, actions: readonly ExternalAction[]): ClusterState[] {
  let state = initialClusterState(setup);
  const states = [state];
  for (const action of actions) {
    if (whyNotEnabled(setup, state, action) === undefined) state = applyExternal(setup, state, action).state;
    states.push(state);
  }
  return states;
}

/** One step from `state` in the model: its events (undefined: refused) and the state after. */
function stepFrom(setup: ClusterSetup, state: ClusterState, action: ExternalAction): { events?: ExpectedEvents; state: ClusterState } {
  if (whyNotEnabled(setup, state, action) !== undefined) return { state };
  const t = applyExternal(setup, state, action);
  return { events: t.events, state: t.state };
}

type ExpectedEvents = Extract<ExpectedClusterStep, { events: unknown }>['events'];

/** Whether a model step (events or refused, then the observation) is the expected one. */
function sameStep(setup: ClusterSetup, got: { events?: ExpectedEvents; state: ClusterState }, want: ExpectedClusterStep): boolean {
  if (
    'error' in want
      ? got.events !== undefined
      : got.events === undefined || !sameJson(canonicalEvents(got.events), canonicalEvents(want.events))
  )
    return false;
  return sameJson(observeCluster(setup, got.state), want.observation);
}

/** A join state lacking `lost` (all of it, or its watermarks), or undefined if that changes nothing. */
function lacking(join: JoinState, lost: FreshInstall['lost']): JoinState | undefined {
  const without: JoinState = lost === 'state' ? initialJoinState : { ...join, wm: initialJoinState.wm };
  return sameJson(without, join) ? undefined : without;
}

/**
 * The state with `worker`'s copy of `key` lacking `lost` (its cursor, epoch
 * and frozen flag kept); undefined if it lacks nothing of that.
 */
function withFreshCopy(state: ClusterState, worker: string, key: string, lost: FreshInstall['lost']): ClusterState | undefined {
  const w = state.workers[worker];
  const copy = w?.keys[key];
  const join = copy && lacking(copy.join, lost);
  if (!w || !copy || !join) return undefined;
  // The model's own update: its maps have no prototype, so that a key or worker named `__proto__` is an entry like any other.
  return withCopy(state, worker, key, { ...copy, join });
}

/**
 * The state with the store's checkpoint of `key` lacking `lost`, which a
 * failover (C8) or a restart (C10) restores from; undefined if it lacks
 * nothing of that, or there is none.
 */
function withLackingCheckpoint(state: ClusterState, key: string, lost: FreshInstall['lost']): ClusterState | undefined {
  const cp = state.store[key];
  const join = cp && lacking(cp.join, lost);
  if (!cp || !join) return undefined;
  return { ...state, store: withOwnEntry(state.store, key, { ...cp, join }) };
}

/**
 * The restore (among the latest up to `step`: an install before it, a
 * failover or a restart at it or before) whose copy, restored without its
 * checkpoint's state or watermarks, reproduces the system's answer at
 * `step` (its events, or its observation when the events conform), or
 * undefined.
 */
export function freshInstallBehind(
  config: ClusterConfig,
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  step: number,
  actual: ClusterStepReply,
): FreshInstall | undefined {
  const installs: FreshInstall[] = [];
  for (let s = step; s >= 0 && installs.length < INSTALLS_TRIED; s--) {
    const a = actions[s];
    const e = expected[s];
    // An install's copy is frozen: it shows only at a later step. A failover's or a restart's processes at once.
    const restores = a?.type === 'install' ? s < step : a?.type === 'failover' || a?.type === 'restart';
    if (!a || !restores || !e || 'error' in e) continue;
    for (const ev of e.events) {
      if (ev.type !== 'restored') continue;
      // The whole state lost first (it explains more), then only the watermarks.
      for (const lost of ['state', 'watermarks'] as const) installs.push({ step: s, action: a, worker: ev.worker, key: ev.key, lost });
    }
  }
  if (installs.length === 0) return undefined;
  const setup: ClusterSetup = { ...config, checkProperties: false };
  const states = statesAlong(setup, actions.slice(0, step));
  const reply = actual.reply;
  for (const install of installs) {
    // An install: the state after it, its copy emptied. A failover or a restart: the state before it, the checkpoint it reads emptied.
    const from = install.action.type === 'install' ? install.step + 1 : install.step;
    const at = states[from];
    // A failover or a restart either read a checkpoint that lacked it (the store lacks it from then on, C4), or ignored
    // what the checkpoint held (the store stays whole: the restore writes none).
    for (const storeKept of install.action.type === 'install' ? [false] : [false, true]) {
      let state =
        at &&
        (install.action.type === 'install'
          ? withFreshCopy(at, install.worker, install.key, install.lost)
          : withLackingCheckpoint(at, install.key, install.lost));
      if (!at || !state) continue;
      const whole = at.store;
      const advance = (before: ClusterState, s: number): { events?: ExpectedEvents; state: ClusterState } => {
        const next = stepFrom(setup, before, actions[s] as ExternalAction);
        if (!storeKept || s !== install.step || next.state.store !== before.store) return next;
        return { ...next, state: { ...next.state, store: whole } };
      };
      // Between the restore and the divergence the system answered as expected: so must the copy restored without its state.
      let agrees = true;
      for (let s = from; s < step && agrees; s++) {
        const next = advance(state, s);
        agrees = sameStep(setup, next, expected[s] as ExpectedClusterStep);
        state = next.state;
      }
      if (!agrees) continue;
      const last = advance(state, step);
      const sameReply =
        'error' in reply
          ? last.events === undefined
          : last.events !== undefined && sameJson(canonicalEvents(last.events), canonicalEvents(reply.events));
      if (!sameReply) continue;
      if (actual.observation !== undefined && !sameJson(observeCluster(setup, last.state), actual.observation)) continue;
      return install;
    }
  }
  return undefined;
}
