// Where a cluster divergence first went wrong when it shows late: an install
// that gave the destination an empty copy instead of its checkpoint's join
// state (C6) shows only at the first later step whose reply depends on that
// state (an insert late under the checkpoint's watermarks, a watermark
// stale under them, a retraction of a row it held), where the differing
// field is some J rule's. The fact found here: the system's step is exactly
// what the model gives when that install restores the copy fresh, at the
// checkpoint's cursor and epoch. Lockstep states it; report/ cites C6 for
// it. Run only on a divergence.
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
} from '../../model/index.ts';
import type { ClusterStepReply } from '../adapters/sut.ts';
import { canonicalEvents, type ExpectedClusterStep, type FreshInstall } from './divergence.ts';
import { sameJson } from './jsonDiff.ts';

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

/**
 * The state with `worker`'s copy of `key` lacking `lost` (its cursor, epoch
 * and frozen flag kept); undefined if it lacks nothing of that.
 */
function withFreshCopy(state: ClusterState, worker: string, key: string, lost: FreshInstall['lost']): ClusterState | undefined {
  const w = state.workers[worker];
  const copy = w?.keys[key];
  if (!w || !copy) return undefined;
  const join = lost === 'state' ? initialJoinState : { ...copy.join, wm: initialJoinState.wm };
  if (sameJson(join, copy.join)) return undefined;
  // The model's own update: its maps have no prototype, so that a key or worker named `__proto__` is an entry like any other.
  return withCopy(state, worker, key, { ...copy, join });
}

/**
 * The install (among the latest before `step`) whose fresh restore
 * reproduces the system's answer at `step` (its events, or its
 * observation when the events conform), or undefined.
 */
export function freshInstallBehind(
  config: ClusterConfig,
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  step: number,
  actual: ClusterStepReply,
): FreshInstall | undefined {
  const installs: FreshInstall[] = [];
  for (let s = step - 1; s >= 0 && installs.length < INSTALLS_TRIED; s--) {
    const a = actions[s];
    const e = expected[s];
    if (a?.type !== 'install' || !e || 'error' in e) continue;
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
    // The state after the install step (a migrate's install leaves the copy frozen: nothing processed it yet).
    const after = states[install.step + 1];
    let state = after && withFreshCopy(after, install.worker, install.key, install.lost);
    if (!state) continue;
    // Between the install and the divergence the system answered as expected: so must the fresh copy.
    let agrees = true;
    for (let s = install.step + 1; s < step && agrees; s++) {
      const next = stepFrom(setup, state, actions[s] as ExternalAction);
      agrees = sameStep(setup, next, expected[s] as ExpectedClusterStep);
      state = next.state;
    }
    if (!agrees) continue;
    const last = stepFrom(setup, state, actions[step] as ExternalAction);
    const sameReply =
      'error' in reply
        ? last.events === undefined
        : last.events !== undefined && sameJson(canonicalEvents(last.events), canonicalEvents(reply.events));
    if (!sameReply) continue;
    if (actual.observation !== undefined && !sameJson(observeCluster(setup, last.state), actual.observation)) continue;
    return install;
  }
  return undefined;
}
