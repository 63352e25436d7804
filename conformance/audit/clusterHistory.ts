// Recorded histories of the implementation's cluster: a cluster trace (the
// random generator's, generate/clusterTraces.ts) run on ImplCluster with a
// recorder, then brought back to quiescence so that the history is
// complete, into a directory `streamjoin audit` reads. What `audit --example`
// writes and what the fault-injection tests damage.
import { CLUSTER_TRACE_FORMAT } from '../../spec/index.ts';
import type { ClusterConfig, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { ImplCluster } from '../../impl/index.ts';
import { interpretChoices, type ControlChoice } from '../generate/clusterTraces.ts';
import { slidingLog, slidingLogConfig } from '../generate/slidingLogs.ts';
import { HistoryFiles, quiesce } from '../adapters/recorder.ts';
import { seededRandom } from '../generate/seededRandom.ts';

export interface RecordedHistory {
  readonly dir: string;
  readonly config: ClusterConfig;
  /** External actions the trace applied, and those quiescing added. */
  readonly actions: number;
  readonly recovery: number;
  /** Why the cluster did not reach quiescence, if it did not (the recording then says it is incomplete). */
  readonly incomplete?: string;
}

/** Runs `trace` on the implementation's cluster, recording into `dir`; then recovers it to quiescence. */
export function recordClusterHistory(trace: Pick<ClusterTrace, 'config' | 'steps'>, dir: string): RecordedHistory {
  const files = new HistoryFiles(dir, trace.config);
  const cluster = ImplCluster.open(trace.config, { recorder: files });
  let recovery = 0;
  try {
    const apply = (action: ExternalAction): boolean => {
      const r = cluster.apply(action);
      files.flush();
      return !('error' in r);
    };
    for (const { action } of trace.steps) {
      if (action.type === 'process') continue; // eager processing (SPEC §7)
      apply(action);
    }
    const why = quiesce(
      () => cluster.observe(),
      (a) => {
        const enabled = apply(a);
        if (enabled) recovery++;
        return enabled;
      },
      () => files.relevant(),
    );
    files.end(cluster.observe());
    const base = { dir, config: trace.config, actions: trace.steps.length, recovery };
    return why === undefined ? base : { ...base, incomplete: why };
  } finally {
    cluster.close();
  }
}

/**
 * A random cluster trace under faults from `seed`: a sliding-window
 * workload of `records` records over three keys (generate/slidingLogs.ts:
 * fresh rows, so in contract, many matches and retractions), interleaved by
 * the random cluster trace generator (generate/clusterTraces.ts) with
 * control actions and faults (crashes, pauses, failovers, migrations,
 * duplicated messages) among those the model says are enabled.
 */
export function exampleTrace(seed: number, records: number): ClusterTrace {
  const options = { records, keys: 3, window: 12, seed };
  const workers = ['w1', 'w2', 'w3'];
  const config: ClusterConfig = {
    join: slidingLogConfig(options),
    workers: workers as ClusterConfig['workers'],
    keys: [0, 1, 2].map((i) => ({ key: `k${i}`, owner: workers[i] as string })) as ClusterConfig['keys'],
  };
  const next = seededRandom(seed);
  const choices: ControlChoice[] = Array.from({ length: Math.ceil(records / 6) }, () => ({
    records: Math.floor(next() * 12),
    pick: Math.floor(next() * 64),
    disabled: false,
    reopen: false,
    probe: 0,
    probeBoundary: false,
    split: false,
    interject: 0,
    interjectPick: 0,
  }));
  return {
    format: CLUSTER_TRACE_FORMAT,
    name: `example-${seed}`,
    config,
    steps: interpretChoices(config, 'faults', [...slidingLog(options)], choices).map((action) => ({ action })),
  };
}
