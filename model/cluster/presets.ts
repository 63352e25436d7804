// Named bounds for exploring the cluster model (SPEC §6), and the key
// decomposition that checks a multi-key configuration one key at a time.
import type { LogRecord, RowRecord } from '../../spec/index.ts';
import type { ClusterSetup, ProtocolElement } from './clusterState.ts';
import type { ClusterBounds, ClusterModelConfig } from './boundedHistories.ts';

const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, start: number, end: number): RowRecord => ({
  kind,
  key,
  side,
  id,
  ts: start,
  start,
  end,
});
const watermark = (side: 'L' | 'R', wm: number): LogRecord => ({ kind: 'watermark', side, wm });

export interface ClusterPreset {
  readonly name: string;
  readonly description: string;
  readonly config: ClusterModelConfig;
}

const threeWorkers: ClusterSetup = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2', 'w3'],
  keys: [
    { key: 'k1', owner: 'w1' },
    { key: 'k2', owner: 'w2' },
  ],
};

/**
 * The workload of the `ci` preset: k1 gets a match, a duplicate of one of
 * its rows and the retraction of the other; k2 gets a retraction that
 * overtakes its insert; both then see the watermarks pass every horizon, so
 * eviction happens under handoffs too.
 */
const ciScript: readonly LogRecord[] = [
  row('insert', 'k1', 'L', 'a', 1, 2),
  row('retract', 'k2', 'R', 'd', 1, 1),
  row('insert', 'k1', 'R', 'b', 2, 3),
  row('insert', 'k2', 'R', 'd', 1, 1),
  row('insert', 'k1', 'R', 'b', 2, 3),
  row('retract', 'k1', 'L', 'a', 1, 2),
  watermark('L', 9),
  watermark('R', 9),
];

const ciBounds: ClusterBounds = {
  script: ciScript,
  migrations: 1,
  failovers: 1,
  crashes: 1,
  pauses: 1,
  duplicates: 1,
  checkpoints: 1,
};

export const CLUSTER_PRESETS: readonly ClusterPreset[] = [
  {
    name: 'ci',
    description:
      '2 keys, 3 workers; a migration and a failover under traffic, one crash anywhere (worker or coordinator, including between the parts of commit and failover), a pause (zombie), a duplicated message, a periodic checkpoint; a match, a duplicate, two retractions (one overtaking its insert), eviction',
    config: { cluster: threeWorkers, bounds: ciBounds },
  },
  {
    name: 'deep',
    description:
      'as ci, with two crashes anywhere (so also inside the window between the parts of commit and of failover) and two duplicated messages: several minutes, not for CI',
    config: { cluster: threeWorkers, bounds: { ...ciBounds, crashes: 2, duplicates: 2 } },
  },
  {
    name: 'smoke',
    description: 'one key, 3 workers; a match and its retraction; every budget 1: seconds; for tests',
    config: {
      cluster: { ...threeWorkers, keys: [{ key: 'k1', owner: 'w1' }] },
      bounds: {
        ...ciBounds,
        script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'L', 'a', 1, 2)],
      },
    },
  },
];

export function clusterPreset(name: string): ClusterPreset | undefined {
  return CLUSTER_PRESETS.find((p) => p.name === name);
}

/** The same configuration with protocol elements switched off (SPEC §6, Necessity). */
export function withAblation(config: ClusterModelConfig, ablate: readonly ProtocolElement[]): ClusterModelConfig {
  return { ...config, cluster: { ...config.cluster, ablate } };
}

/**
 * Key decomposition (SPEC §6): the single-key model of `key` — only that
 * key is declared, and the script keeps only the records `key` reads (its
 * own and the watermarks). Every per-key property holds in the multi-key
 * model iff it holds in each key's projection.
 */
export function projectOntoKey(config: ClusterModelConfig, key: string): ClusterModelConfig {
  const placement = config.cluster.keys.find((k) => k.key === key);
  if (!placement) throw new Error(`unknown key ${key}`);
  return {
    cluster: { ...config.cluster, keys: [placement] },
    bounds: {
      ...config.bounds,
      script: config.bounds.script.filter((r) => r.kind === 'watermark' || r.key === key),
    },
  };
}
