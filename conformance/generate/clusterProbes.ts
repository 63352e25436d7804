// What the cluster covers (exhaustive.ts over a scenario's graph,
// clusterScripts.ts over its given scripts) send besides the transitions:
// the probes (actions the model refuses, records the cluster rejects, §7)
// and the coverage label of each transition.
import type { ClusterConfig, ClusterEvent, ExternalAction, LogRecord } from '../../spec/index.ts';
import { clusterActionKind, type ExploredState } from '../../model/index.ts';
import { controlActions } from './clusterTraces.ts';
import { invalidRecords } from './edges.ts';

/**
 * The coverage label of a transition: the explorer's label for the action
 * where it is taken (every crash point is its own label), and what eager
 * processing did after it (`process`, `process:fenced`), and a duplicate
 * install the destination refused (`duplicateInstall:refused`).
 */
export function transitionLabels(s: ExploredState, a: ExternalAction, events: readonly ClusterEvent[]): string[] {
  const labels = [clusterActionKind(s, a)];
  if (events.some((e) => e.type === 'processed')) labels.push('process');
  if (events.some((e) => e.type === 'processed' && e.fenced)) labels.push('process:fenced');
  if (a.type === 'duplicateInstall' && events.some((e) => e.type === 'refused')) labels.push('duplicateInstall:refused');
  return labels;
}

/** A worker and a key no config declares: the probes that name them are refused in every state (§7). */
const UNKNOWN_WORKER = 'w-unknown';
const UNKNOWN_KEY = 'k-undeclared';

/** The actions a refusal probe sends in every state where the model refuses them (§7): every control and fault action over the config's keys and workers. */
export function probeActions(config: ClusterConfig): ExternalAction[] {
  return controlActions(config, 'faults');
}

/** Each kind of action once with a worker or key nobody declared: refused in every state, so probed once, at the start (§7). */
export function unknownNameProbes(config: ClusterConfig): ExternalAction[] {
  const key = config.keys[0].key;
  const w = config.workers[0];
  return [
    { type: 'freeze', key, to: UNKNOWN_WORKER },
    { type: 'freeze', key: UNKNOWN_KEY, to: w },
    { type: 'persist', key: UNKNOWN_KEY },
    { type: 'install', key: UNKNOWN_KEY },
    { type: 'commit', key: UNKNOWN_KEY },
    { type: 'release', key: UNKNOWN_KEY },
    { type: 'abort', key: UNKNOWN_KEY },
    { type: 'checkpoint', worker: UNKNOWN_WORKER, key },
    { type: 'checkpoint', worker: w, key: UNKNOWN_KEY },
    { type: 'failover', key: UNKNOWN_KEY, to: w },
    { type: 'failover', key, to: UNKNOWN_WORKER },
    { type: 'duplicateInstall', key: UNKNOWN_KEY },
    { type: 'duplicateRelease', key: UNKNOWN_KEY },
    { type: 'crash', node: UNKNOWN_WORKER },
    { type: 'restart', node: UNKNOWN_WORKER },
    { type: 'pause', worker: UNKNOWN_WORKER },
    { type: 'resume', worker: UNKNOWN_WORKER },
  ];
}

/** The records a cluster must reject (J1 checks alone and in pairs, C3's unknown key), as rejection probes. */
export function rejectedRecords(config: ClusterConfig): LogRecord[] {
  return invalidRecords(config.join, { key: config.keys[0].key, id: 'a', unknownKey: UNKNOWN_KEY });
}
