// Kill mode's small fixed traces, shared by its end-to-end tests and by the
// mutation run's kill-mode killing test (conformance/mutation/kill.mutation.ts):
// a request killed in flight, a migration whose commit is killed at each
// of its durable write points, and two rows to run after a kill inside init.
// Test support only.
import { CLUSTER_TRACE_FORMAT, COORDINATOR } from '../../spec/index.ts';
import type { ClusterConfig, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { insertRow } from '../testFixtures.ts';

/** One key on two workers, the config of every trace here. */
const config: ClusterConfig = {
  join: { allowedLateness: 2, maxIntervalLength: 2 },
  workers: ['w1', 'w2'],
  keys: [{ key: 'k1', owner: 'w1' }],
};

/** A trace of plain steps (no kill marked: kill mode kills at its crash points). */
const plainTrace = (name: string, actions: readonly ExternalAction[]): ClusterTrace => ({
  format: CLUSTER_TRACE_FORMAT,
  name,
  config,
  steps: actions.map((action) => ({ action })),
});

const rec = (id: string, side: string, start: number): ExternalAction => ({
  type: 'record',
  record: insertRow('k1', side, id, start, start + 1),
});

/**
 * Two records (a match), then a third killed in flight (`timing`; at a write,
 * the first unless `write` says), the nodes restarted, a fourth record after.
 */
export function inFlightTrace(timing: 'unread' | 'answered' | 'at-write', write = 1): ClusterTrace {
  return {
    format: CLUSTER_TRACE_FORMAT,
    name: `in-flight-${timing}`,
    config,
    steps: [
      { action: rec('a', 'L', 1) },
      { action: rec('b', 'R', 2) },
      { action: rec('c', 'R', 1), kill: { when: 'in-flight', timing, ...(timing === 'at-write' ? { write } : {}) } },
      { action: { type: 'restart', node: COORDINATOR } },
      { action: { type: 'restart', node: 'w1' } },
      { action: { type: 'restart', node: 'w2' } },
      { action: rec('d', 'R', 2) },
    ],
  };
}

/** Two rows that match: a trace to run after a kill inside init (killTraces.ts `withInitKill`). */
export const matchTrace: ClusterTrace = plainTrace('match', [rec('a', 'L', 1), rec('b', 'R', 1)]);

/** A row, then a migration of k1 to w2 up to its install (C4–C6). */
const installedMigration: readonly ExternalAction[] = [
  rec('a', 'L', 1),
  { type: 'freeze', key: 'k1', to: 'w2' },
  { type: 'persist', key: 'k1' },
  { type: 'install', key: 'k1' },
];

/** A planned migration (C4–C7) under traffic; its commit is step COMMIT_STEP. */
export const migrationTrace: ClusterTrace = plainTrace('commit-at-every-write', [
  ...installedMigration,
  rec('b', 'R', 1),
  { type: 'commit', key: 'k1' },
  { type: 'release', key: 'k1' },
]);

/** The step of migrationTrace that commits. */
export const COMMIT_STEP = 5;

/** The step of migrationTrace that persists the frozen copy's checkpoint (C5). */
export const PERSIST_STEP = 2;

/** The step of migrationTrace that sends the install message (C6). */
export const INSTALL_STEP = 3;

/** The step of migrationTrace that sends the release message (C7). */
export const RELEASE_STEP = 6;

/**
 * A migration whose install is retried (C6) after the store moved on: the
 * key failed over from a paused w1, which comes back a zombie (C10), reads a
 * record the frozen source skips and checkpoints it (C4). The retry, step
 * RETRY_STEP, sends a newer checkpoint than the first install did, and a
 * kill in it leaves two model states the observation cannot tell apart:
 * they differ in the last install message alone (C11).
 */
export const installRetryTrace: ClusterTrace = {
  format: CLUSTER_TRACE_FORMAT,
  name: 'install-retry-after-zombie-checkpoint',
  config: { ...config, workers: ['w1', 'w2', 'w3'] },
  steps: [
    rec('a', 'L', 1),
    { type: 'pause', worker: 'w1' },
    { type: 'failover', key: 'k1', to: 'w2' },
    { type: 'resume', worker: 'w1' },
    { type: 'freeze', key: 'k1', to: 'w3' },
    { type: 'persist', key: 'k1' },
    rec('b', 'L', 3),
    { type: 'install', key: 'k1' },
    { type: 'checkpoint', worker: 'w1', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
    rec('c', 'R', 3),
  ].map((action) => ({ action: action as ExternalAction })),
};

/** The step of installRetryTrace that retries the install. */
export const RETRY_STEP = 9;

/**
 * A migration installed, then its source crashed (a crash point: killed
 * there) with the install in flight; after the restarts the install message
 * is delivered again (C11): recovery must have kept the last install message
 * (C2), or the duplicate finds none.
 */
export const reinstallAfterKillTrace: ClusterTrace = plainTrace('duplicate-install-after-kill', [
  ...installedMigration,
  { type: 'crash', node: 'w1' },
  { type: 'restart', node: 'w1' },
  { type: 'duplicateInstall', key: 'k1' },
  rec('b', 'R', 1),
]);
