// Kill mode's small fixed traces, shared by its end-to-end tests and by the
// mutation run's kill-mode killing test (conformance/mutation/kill.mutation.ts):
// a request killed in flight, and a migration whose commit is killed at
// each of its durable write points. Test support only.
import { CLUSTER_TRACE_FORMAT, COORDINATOR } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { insertRow } from '../testFixtures.ts';

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
    config: { join: { allowedLateness: 2, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
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

/** A planned migration (C4–C7) under traffic; its commit is step COMMIT_STEP. */
export const migrationTrace: ClusterTrace = {
  format: CLUSTER_TRACE_FORMAT,
  name: 'commit-at-every-write',
  config: { join: { allowedLateness: 2, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
  steps: [
    rec('a', 'L', 1),
    { type: 'freeze', key: 'k1', to: 'w2' },
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    rec('b', 'R', 1),
    { type: 'commit', key: 'k1' },
    { type: 'release', key: 'k1' },
  ].map((action) => ({ action: action as ExternalAction })),
};

/** The step of migrationTrace that commits. */
export const COMMIT_STEP = 5;

/**
 * A migration installed, then its source crashed (a crash point: killed
 * there) with the install in flight; after the restarts the install message
 * is delivered again (C11): recovery must have kept the last install message
 * (C2), or the duplicate finds none.
 */
export const reinstallAfterKillTrace: ClusterTrace = {
  format: CLUSTER_TRACE_FORMAT,
  name: 'duplicate-install-after-kill',
  config: { join: { allowedLateness: 2, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
  steps: [
    rec('a', 'L', 1),
    { type: 'freeze', key: 'k1', to: 'w2' },
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'crash', node: 'w1' },
    { type: 'restart', node: 'w1' },
    { type: 'duplicateInstall', key: 'k1' },
    rec('b', 'R', 1),
  ].map((action) => ({ action: action as ExternalAction })),
};
