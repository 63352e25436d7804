// Fixtures that the cluster tests of model/, impl/ and conformance/ share:
// the two-key, three-worker cluster most scenarios run on, record helpers,
// and temporary directories removed after each test.
import { afterEach } from 'vitest';
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
 * Registers cleanup (after each test of the calling file) and returns a
 * function that makes a fresh temporary directory.
 */
export function useTemporaryDirectories(prefix = 'streamjoin-'): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
