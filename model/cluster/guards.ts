// The guards of SPEC §5: for each action, why it is not enabled in a state,
// or undefined when it is. Read beside SPEC.md with the effects
// (stateMachine.ts): an action's guard here, its effect there.
import { COORDINATOR } from '../../spec/index.ts';
import type { ClusterAction } from '../../spec/index.ts';
import {
  handoffOf,
  isDeclaredKey,
  nextRelevant,
  off,
  ownerOf,
  up,
  worker,
  type ClusterSetup,
  type ClusterState,
  type HandoffPhase,
  type WorkerId,
} from './clusterState.ts';

/** Phases in which the coordinator may (re)send install (C6). */
const INSTALL_PHASES: readonly HandoffPhase[] = ['persisted', 'installed', 'fenced'];
const INSTALL_PHASES_WITHOUT_PERSIST: readonly HandoffPhase[] = ['frozen', ...INSTALL_PHASES];

function unknownKey(config: ClusterSetup, key: string): string | undefined {
  return isDeclaredKey(config, key) ? undefined : `unknown key ${key}`;
}

function unknownWorker(config: ClusterSetup, w: WorkerId): string | undefined {
  return config.workers.includes(w) ? undefined : `unknown worker ${w}`;
}

const COORDINATOR_DOWN = 'the coordinator is down';
const coordinatorDown = (state: ClusterState): string | undefined => (state.coordinator.up ? undefined : COORDINATOR_DOWN);

/** Why `a` is not enabled in `state`, or undefined if it is: its ids are checked, then the action's guard below. */
export function whyNotEnabled(config: ClusterSetup, state: ClusterState, a: ClusterAction): string | undefined {
  switch (a.type) {
    case 'record':
      return undefined;
    case 'process':
      return unknownWorker(config, a.worker) ?? unknownKey(config, a.key) ?? whyNotEnabledProcess(state, a.worker, a.key);
    case 'freeze':
      return coordinatorDown(state) ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to) ?? whyNotEnabledFreeze(state, a.key, a.to);
    case 'persist':
      return whyNotEnabledPersist(state, a.key);
    case 'install':
      return whyNotEnabledInstall(config, state, a.key);
    case 'duplicateInstall':
      return whyNotEnabledDuplicateInstall(state, a.key);
    case 'duplicateRelease':
      return whyNotEnabledDuplicateRelease(state, a.key);
    case 'commit':
      return whyNotEnabledCommit(state, a.key, a.crashAfterFence === true);
    case 'release':
      return whyNotEnabledRelease(state, a.key);
    case 'abort':
      return whyNotEnabledAbort(state, a.key);
    case 'failover':
      return (
        coordinatorDown(state) ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to) ?? whyNotEnabledFailover(state, a.key, a.to)
      );
    case 'checkpoint':
      return unknownWorker(config, a.worker) ?? unknownKey(config, a.key) ?? whyNotEnabledCheckpoint(state, a.worker, a.key);
    case 'crash':
      return a.node === COORDINATOR
        ? whyNotEnabledCoordinatorCrash(state)
        : (unknownWorker(config, a.node) ?? whyNotEnabledCrash(state, a.node));
    case 'restart':
      return a.node === COORDINATOR
        ? whyNotEnabledCoordinatorRestart(state)
        : (unknownWorker(config, a.node) ?? whyNotEnabledRestart(state, a.node));
    case 'pause':
      return unknownWorker(config, a.worker) ?? whyNotEnabledPause(state, a.worker);
    case 'resume':
      return unknownWorker(config, a.worker) ?? whyNotEnabledResume(state, a.worker);
  }
}

// One guard per action, for a declared key and worker: why the action is not
// enabled, or undefined. The explorer asks these directly, before it builds
// an action, so that it builds no action that is refused.

/** C3: an up worker with an active copy reads its next relevant record. */
export function whyNotEnabledProcess(state: ClusterState, w: WorkerId, key: string): string | undefined {
  if (!up(state, w)) return `${w} is not up`;
  const copy = worker(state, w).keys[key];
  if (!copy) return `${w} holds no copy of ${key}`;
  if (copy.frozen) return `${key} is frozen at ${w}`;
  if (nextRelevant(state.log, key, copy.cursor) >= state.log.length) return `${w} has no backlog for ${key}`;
  return undefined;
}

/** C5: begin a migration of `key` to `to`: no handoff in flight, both up, the owner's copy active. */
export function whyNotEnabledFreeze(state: ClusterState, key: string, to: WorkerId): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
  const src = ownerOf(state, key);
  if (to === src) return `${to} already owns ${key}`;
  if (!up(state, src)) return `the owner ${src} is not up`;
  if (!up(state, to)) return `${to} is not up`;
  const copy = worker(state, src).keys[key];
  if (!copy || copy.frozen || copy.epoch !== state.coordinator.epoch[key]) return `${src} does not hold ${key} active`;
  return undefined;
}

/** C4/C5: the frozen source persists its checkpoint. */
export function whyNotEnabledPersist(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${key} awaits persist`;
  if (!up(state, h.src)) return `${h.src} is not up`;
  const copy = worker(state, h.src).keys[key];
  if (!copy?.frozen) return `${h.src} holds no frozen copy of ${key}`;
  return undefined;
}

/** C6: (re)send install once the checkpoint is durable (at once, with persist-before-commit ablated). */
export function whyNotEnabledInstall(config: ClusterSetup, state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  const phases = off(config, 'persist-before-commit') ? INSTALL_PHASES_WITHOUT_PERSIST : INSTALL_PHASES;
  if (h?.kind !== 'migrate' || !phases.includes(h.phase)) return `no migration of ${key} awaits install`;
  if (!up(state, h.dst)) return `${h.dst} is not up`;
  return undefined;
}

/** C11: the last install message of `key` is delivered again. */
export function whyNotEnabledDuplicateInstall(state: ClusterState, key: string): string | undefined {
  const m = state.lastInstall[key];
  if (!m) return `no install of ${key} was ever sent`;
  if (!up(state, m.dst)) return `${m.dst} is not up`;
  return undefined;
}

/** C11: the last release message of `key` is delivered again. */
export function whyNotEnabledDuplicateRelease(state: ClusterState, key: string): string | undefined {
  const m = state.lastRelease[key];
  if (!m) return `no release of ${key} was ever sent`;
  if (!up(state, m.src)) return `${m.src} is not up`;
  return undefined;
}

/** C7/C8: commit a handoff that is installed (or fenced, after a crash between the parts of commit). */
export function whyNotEnabledCommit(state: ClusterState, key: string, crashAfterFence: boolean): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (!h || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${key} awaits commit`;
  if (crashAfterFence && h.phase !== 'installed') return 'the fence is already raised';
  if (h.kind === 'migrate') {
    // C7: the new owner must hold the installed copy, or commit would hand the key to nobody.
    const copy = state.workers[h.dst]?.keys[key];
    if (!up(state, h.dst)) return `${h.dst} is not up`;
    if (!copy || copy.epoch !== h.from + 1) return `${h.dst} holds no installed copy of ${key}`;
  } else if (state.workers[h.dst]?.status === 'paused') return `${h.dst} is paused`;
  return undefined;
}

/** C7: after commit, the source is told to let go. */
export function whyNotEnabledRelease(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.phase !== 'committed') return `no handoff of ${key} awaits release`;
  if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
  return undefined;
}

/** C5: a migration may be abandoned before the fence. */
export function whyNotEnabledAbort(state: ClusterState, key: string): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  const h = handoffOf(state, key);
  if (h?.kind !== 'migrate') return `no migration of ${key} in flight`;
  if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward';
  if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
  return undefined;
}

/** C8: move a key whose owner is not up to a live worker. */
export function whyNotEnabledFailover(state: ClusterState, key: string, to: WorkerId): string | undefined {
  if (!state.coordinator.up) return COORDINATOR_DOWN;
  if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
  const dead = ownerOf(state, key);
  if (state.workers[dead]?.status === 'up') return `the owner ${dead} is up`;
  if (!up(state, to)) return `${to} is not up`;
  return undefined;
}

/** C4: a periodic checkpoint of an active copy. */
export function whyNotEnabledCheckpoint(state: ClusterState, w: WorkerId, key: string): string | undefined {
  if (!up(state, w)) return `${w} is not up`;
  const copy = worker(state, w).keys[key];
  if (!copy || copy.frozen) return `${w} holds no active copy of ${key}`;
  return undefined;
}

/** C10: crashes and restarts of the coordinator and of workers; pauses and resumes of workers. */
export function whyNotEnabledCoordinatorCrash(state: ClusterState): string | undefined {
  return state.coordinator.up ? undefined : 'the coordinator is already down';
}

export function whyNotEnabledCrash(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'down' ? `${w} is already down` : undefined;
}

export function whyNotEnabledCoordinatorRestart(state: ClusterState): string | undefined {
  return state.coordinator.up ? 'the coordinator is up' : undefined;
}

export function whyNotEnabledRestart(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'down' ? undefined : `${w} is not down`;
}

export function whyNotEnabledPause(state: ClusterState, w: WorkerId): string | undefined {
  return up(state, w) ? undefined : `${w} is not up`;
}

export function whyNotEnabledResume(state: ClusterState, w: WorkerId): string | undefined {
  return worker(state, w).status === 'paused' ? undefined : `${w} is not paused`;
}
