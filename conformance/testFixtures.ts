// Fixtures that the cluster tests of model/, impl/ and conformance/ share:
// the two-key, three-worker cluster most scenarios run on, record helpers,
// and temporary directories removed after each test.
import { afterAll, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterAction, ClusterConfig, LogRecord, RowRecord } from '../spec/index.ts';

/** Two keys (k1 on w1, k2 on w2) over three workers, L = 1, D = 2. */
export const twoKeyCluster: ClusterConfig = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2', 'w3'],
  keys: [
    { key: 'k1', owner: 'w1' },
    { key: 'k2', owner: 'w2' },
  ],
};

/** An insert of `[start, end]` with `ts = start`. */
export function insertRow(key: string, side: string, id: string, start: number, end = start): RowRecord {
  return { kind: 'insert', key, side, id, ts: start, start, end };
}

/** The action that appends `record` (C3). */
export function recordAction(record: LogRecord): ClusterAction {
  return { type: 'record', record };
}

/**
 * Registers cleanup (after each test of the calling file, or after all of
 * them when a directory outlives one test) and returns a function that makes
 * a fresh temporary directory.
 */
export function useTemporaryDirectories(prefix = 'streamjoin-', when: 'each' | 'all' = 'each'): () => string {
  const made: string[] = [];
  (when === 'each' ? afterEach : afterAll)(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}

const ins = insertRow;
const rec = recordAction;

/** A planned migration of k1 from w1 to w2 under one record (C5–C7). */
const migration: readonly ClusterAction[] = [
  rec(ins('k1', 'L', 'a', 1)),
  { type: 'freeze', key: 'k1', to: 'w2' },
  { type: 'persist', key: 'k1' },
  { type: 'install', key: 'k1' },
  { type: 'commit', key: 'k1' },
  { type: 'release', key: 'k1' },
];

/**
 * The cluster scenarios on `twoKeyCluster` that the model's tests check rule
 * by rule (model/cluster/stateMachine.test.ts) and the implementation's lockstep test
 * replays (impl/cluster/cluster.lockstep.test.ts).
 */
export const clusterScenarios = {
  rejected: [rec(ins('k9', 'L', 'a', 1)), rec({ ...ins('k1', 'L', 'a', 1), side: 'X' })],
  ownerAndWatermarks: [rec(ins('k1', 'L', 'a', 1)), rec({ kind: 'watermark', side: 'L', wm: 5 })],
  frozenKeyWaits: [
    rec(ins('k1', 'L', 'a', 1)),
    { type: 'freeze', key: 'k1', to: 'w3' },
    rec(ins('k1', 'R', 'b', 1)),
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
  ],
  migration,
  duplicateInstallAfterCommit: [...migration.slice(0, 5), { type: 'duplicateInstall', key: 'k1' }],
  crashBetweenCommitParts: [...migration.slice(0, 4), { type: 'commit', key: 'k1', crashAfterFence: true }],
  crashBetweenCommitPartsThenCommit: [
    ...migration.slice(0, 4),
    { type: 'commit', key: 'k1', crashAfterFence: true },
    { type: 'restart', node: 'coordinator' },
    { type: 'commit', key: 'k1' },
  ],
  abort: [...migration.slice(0, 4), { type: 'abort', key: 'k1' }, rec(ins('k1', 'R', 'b', 1))],
  zombieFenced: [
    rec(ins('k1', 'L', 'a', 1)),
    { type: 'pause', worker: 'w1' },
    { type: 'failover', key: 'k1', to: 'w3' },
    rec(ins('k1', 'R', 'b', 1)),
    { type: 'resume', worker: 'w1' },
  ],
  replayFromOlderCheckpoint: [
    { type: 'checkpoint', worker: 'w1', key: 'k1' },
    rec(ins('k1', 'L', 'a', 1)),
    rec(ins('k1', 'R', 'b', 1)),
    rec({ ...ins('k1', 'L', 'a', 1), kind: 'retract' }),
    { type: 'crash', node: 'w1' },
    { type: 'failover', key: 'k1', to: 'w2' },
  ],
  restartRecovers: [
    rec(ins('k1', 'L', 'a', 1)),
    { type: 'checkpoint', worker: 'w1', key: 'k1' },
    rec(ins('k1', 'R', 'b', 1)),
    { type: 'crash', node: 'w1' },
    { type: 'restart', node: 'w1' },
  ],
  duplicateReleaseAfterReturn: [
    { type: 'freeze', key: 'k1', to: 'w2' },
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
    { type: 'release', key: 'k1' },
    { type: 'crash', node: 'w2' },
    { type: 'failover', key: 'k1', to: 'w1' },
    { type: 'duplicateRelease', key: 'k1' },
  ],
} as const satisfies Record<string, readonly ClusterAction[]>;
