// Named bounds for exploring the cluster model (SPEC §6), and the key
// decomposition that checks a multi-key configuration one key at a time.
import { rowRecord, watermarkRecord, type LogRecord, type RowRecord } from '../../spec/index.ts';
import type { ClusterSetup, ProtocolElement } from './clusterState.ts';
import type { ClusterBounds, ClusterModelConfig } from './boundedHistories.ts';

const row = rowRecord;
const watermark = watermarkRecord;

/** A named configuration of the cluster model for `streamjoin check` (SPEC §6). */
export interface ClusterPreset {
  /** Name given to `--preset`. */
  readonly name: string;
  /** What the preset explores, for people. */
  readonly description: string;
  /** The cluster and the bounds of its histories. */
  readonly config: ClusterModelConfig;
  /**
   * For a bound far beyond exhaustion: checked by random walks only
   * (`check --simulate`), each at most this many steps by default.
   */
  readonly simulation?: { readonly depth: number };
}

/**
 * A long workload for simulation, the same every time (a fixed generator):
 * `records` records over `keys` keys, in time order. Rows get fresh ids and
 * overlap partners of the other side; now and then a row is inserted twice,
 * retracted while still retained, or retracted before its insert arrives
 * (J6); both watermarks follow two ticks behind the rows, so rows pass their
 * horizon and are evicted (J8), and no identity is reused (J9).
 */
export function simulationWorkload(records: number, keys: number): LogRecord[] {
  let seed = 0x2545f491;
  const random = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    return ((seed >>> 8) & 0xffffff) % n;
  };
  const script: LogRecord[] = [];
  const recent: RowRecord[][] = Array.from({ length: keys }, () => []);
  const overtaken: RowRecord[] = [];
  let t = 2;
  let id = 0;
  while (script.length < records) {
    if (script.length % 12 === 11) {
      t++;
      script.push(watermark('L', t - 2), watermark('R', t - 2));
      for (const rows of recent) while (rows.length > 0 && (rows[0] as RowRecord).start < t - 2) rows.shift();
      continue;
    }
    const pending = overtaken.shift();
    if (pending && random(2) === 0) {
      script.push(pending);
      continue;
    }
    if (pending) overtaken.unshift(pending);
    const k = random(keys);
    const key = `k${k + 1}`;
    const rows = recent[k] as RowRecord[];
    const r = random(100);
    const start = t;
    const end = t + random(3);
    const side = random(2) === 0 ? 'L' : 'R';
    if (r < 60 || rows.length === 0) {
      const inserted: RowRecord = { kind: 'insert', key, side, id: `r${id++}`, ts: start + random(end - start + 1), start, end };
      script.push(inserted);
      rows.push(inserted);
    } else if (r < 70) {
      script.push(rows[random(rows.length)] as RowRecord);
    } else if (r < 90) {
      const [gone] = rows.splice(random(rows.length), 1) as [RowRecord];
      script.push({ ...gone, kind: 'retract' });
    } else {
      const later: RowRecord = { kind: 'insert', key, side, id: `r${id++}`, ts: start, start, end };
      script.push({ ...later, kind: 'retract' });
      overtaken.push(later);
    }
  }
  return script.slice(0, records);
}

const fiveWorkersEightKeys: ClusterSetup = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2', 'w3', 'w4', 'w5'],
  keys: [
    { key: 'k1', owner: 'w1' },
    { key: 'k2', owner: 'w2' },
    { key: 'k3', owner: 'w3' },
    { key: 'k4', owner: 'w4' },
    { key: 'k5', owner: 'w5' },
    { key: 'k6', owner: 'w1' },
    { key: 'k7', owner: 'w2' },
    { key: 'k8', owner: 'w3' },
  ],
};

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

/** The cluster presets within exhaustive bounds (`SIMULATION_PRESETS` has those past them). */
export const CLUSTER_PRESETS: readonly ClusterPreset[] = [
  {
    name: 'ci',
    description:
      '2 keys, 3 workers; a migration and a failover under traffic, one crash anywhere (worker or coordinator, ' +
      'including between the parts of commit and failover), a pause (zombie), a duplicated message, a periodic ' +
      'checkpoint; a match, a duplicate, two retractions (one overtaking its insert), eviction',
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

/** Presets past any exhaustive bound, for `check --simulate`. */
export const SIMULATION_PRESETS: readonly ClusterPreset[] = [
  {
    name: 'sim-large',
    description:
      '8 keys, 5 workers, 1,000 records (a generated workload: matches, duplicates, retractions, ' +
      'overtaking retractions, eviction), every fault budget 10: random walks only (check --simulate)',
    config: {
      cluster: fiveWorkersEightKeys,
      bounds: {
        script: simulationWorkload(1000, 8),
        migrations: 10,
        failovers: 10,
        crashes: 10,
        pauses: 10,
        duplicates: 10,
        checkpoints: 10,
      },
    },
    simulation: { depth: 20_000 },
  },
  {
    name: 'sim-soak',
    description: 'as sim-large with 2,000 records and every fault budget 200: walks of up to 100,000 steps, for soaking (check --simulate)',
    config: {
      cluster: fiveWorkersEightKeys,
      bounds: {
        script: simulationWorkload(2000, 8),
        migrations: 200,
        failovers: 200,
        crashes: 200,
        pauses: 200,
        duplicates: 200,
        checkpoints: 200,
      },
    },
    simulation: { depth: 100_000 },
  },
];

/** The cluster preset of that name (exhaustive or simulation-only), if any. */
export function clusterPreset(name: string): ClusterPreset | undefined {
  return CLUSTER_PRESETS.find((p) => p.name === name) ?? SIMULATION_PRESETS.find((p) => p.name === name);
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
