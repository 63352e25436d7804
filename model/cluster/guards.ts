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

export function whyNotEnabled(config: ClusterSetup, state: ClusterState, a: ClusterAction): string | undefined {
  const coordinatorUp = state.coordinator.up ? undefined : 'the coordinator is down';
  switch (a.type) {
    case 'record':
      return undefined;
    case 'process': {
      const why = unknownWorker(config, a.worker) ?? unknownKey(config, a.key);
      if (why) return why;
      const copy = worker(state, a.worker).keys[a.key];
      if (!up(state, a.worker)) return `${a.worker} is not up`;
      if (!copy) return `${a.worker} holds no copy of ${a.key}`;
      if (copy.frozen) return `${a.key} is frozen at ${a.worker}`;
      if (nextRelevant(state.log, a.key, copy.cursor) >= state.log.length) return `${a.worker} has no backlog for ${a.key}`;
      return undefined;
    }
    case 'freeze': {
      const why = coordinatorUp ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to);
      if (why) return why;
      if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
      const src = ownerOf(state, a.key);
      if (a.to === src) return `${a.to} already owns ${a.key}`;
      if (!up(state, src)) return `the owner ${src} is not up`;
      if (!up(state, a.to)) return `${a.to} is not up`;
      const copy = worker(state, src).keys[a.key];
      if (!copy || copy.frozen || copy.epoch !== state.coordinator.epoch[a.key]) return `${src} does not hold ${a.key} active`;
      return undefined;
    }
    case 'persist': {
      const h = handoffOf(state, a.key);
      if (coordinatorUp) return coordinatorUp;
      if (h?.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${a.key} awaits persist`;
      if (!up(state, h.src)) return `${h.src} is not up`;
      const copy = worker(state, h.src).keys[a.key];
      if (!copy?.frozen) return `${h.src} holds no frozen copy of ${a.key}`;
      return undefined;
    }
    case 'install': {
      const h = handoffOf(state, a.key);
      if (coordinatorUp) return coordinatorUp;
      // C6: install needs a durable checkpoint (persist) unless that element is ablated.
      const phases = off(config, 'persist-before-commit') ? INSTALL_PHASES_WITHOUT_PERSIST : INSTALL_PHASES;
      if (h?.kind !== 'migrate' || !phases.includes(h.phase)) return `no migration of ${a.key} awaits install`;
      if (!up(state, h.dst)) return `${h.dst} is not up`;
      return undefined;
    }
    case 'duplicateInstall': {
      const m = state.lastInstall[a.key];
      if (!m) return `no install of ${a.key} was ever sent`;
      if (!up(state, m.dst)) return `${m.dst} is not up`;
      return undefined;
    }
    case 'duplicateRelease': {
      const m = state.lastRelease[a.key];
      if (!m) return `no release of ${a.key} was ever sent`;
      if (!up(state, m.src)) return `${m.src} is not up`;
      return undefined;
    }
    case 'commit': {
      const h = handoffOf(state, a.key);
      if (coordinatorUp) return coordinatorUp;
      if (!h || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${a.key} awaits commit`;
      if (a.crashAfterFence && h.phase !== 'installed') return 'the fence is already raised';
      if (h.kind === 'migrate') {
        // C7: the new owner must hold the installed copy, or commit would hand the key to nobody.
        const copy = state.workers[h.dst]?.keys[a.key];
        if (!up(state, h.dst)) return `${h.dst} is not up`;
        if (!copy || copy.epoch !== h.from + 1) return `${h.dst} holds no installed copy of ${a.key}`;
      } else if (state.workers[h.dst]?.status === 'paused') return `${h.dst} is paused`;
      return undefined;
    }
    case 'release': {
      const h = handoffOf(state, a.key);
      if (coordinatorUp) return coordinatorUp;
      if (h?.phase !== 'committed') return `no handoff of ${a.key} awaits release`;
      if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
      return undefined;
    }
    case 'abort': {
      const h = handoffOf(state, a.key);
      if (coordinatorUp) return coordinatorUp;
      if (h?.kind !== 'migrate') return `no migration of ${a.key} in flight`;
      if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward';
      if (state.workers[h.src]?.status === 'paused') return `${h.src} is paused`;
      return undefined;
    }
    case 'failover': {
      const why = coordinatorUp ?? unknownKey(config, a.key) ?? unknownWorker(config, a.to);
      if (why) return why;
      if (state.coordinator.handoff) return `a handoff of ${state.coordinator.handoff.key} is in flight`;
      const dead = ownerOf(state, a.key);
      if (state.workers[dead]?.status === 'up') return `the owner ${dead} is up`;
      if (!up(state, a.to)) return `${a.to} is not up`;
      return undefined;
    }
    case 'checkpoint': {
      const why = unknownWorker(config, a.worker) ?? unknownKey(config, a.key);
      if (why) return why;
      const copy = worker(state, a.worker).keys[a.key];
      if (!up(state, a.worker)) return `${a.worker} is not up`;
      if (!copy || copy.frozen) return `${a.worker} holds no active copy of ${a.key}`;
      return undefined;
    }
    case 'crash':
      if (a.node === COORDINATOR) return state.coordinator.up ? undefined : 'the coordinator is already down';
      return unknownWorker(config, a.node) ?? (worker(state, a.node).status === 'down' ? `${a.node} is already down` : undefined);
    case 'restart':
      if (a.node === COORDINATOR) return state.coordinator.up ? 'the coordinator is up' : undefined;
      return unknownWorker(config, a.node) ?? (worker(state, a.node).status === 'down' ? undefined : `${a.node} is not down`);
    case 'pause':
      return unknownWorker(config, a.worker) ?? (up(state, a.worker) ? undefined : `${a.worker} is not up`);
    case 'resume':
      return unknownWorker(config, a.worker) ?? (worker(state, a.worker).status === 'paused' ? undefined : `${a.worker} is not paused`);
  }
}
