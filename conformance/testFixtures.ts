// Fixtures that the cluster tests of model/, impl/ and conformance/ share:
// the two-key, three-worker cluster most scenarios run on, record helpers,
// the cluster example traces, and temporary directories removed after each
// test.
import { afterAll, afterEach } from 'vitest';
import { constants, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadClusterTrace,
  type ClusterAction,
  type ClusterConfig,
  type ClusterTrace,
  type LogRecord,
  type RowRecord,
} from '../spec/index.ts';

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

const clusterExamplesDir = join(import.meta.dirname, '..', 'spec', 'examples', 'cluster');

/**
 * The cluster example traces (spec/examples/cluster, SPEC §7), which conform
 * runs for every system: the scenarios the model's tests check rule by rule
 * (model/cluster/stateMachine.test.ts) and the implementation's lockstep test
 * replays (impl/cluster/cluster.lockstep.test.ts).
 */
export function clusterExamples(): ClusterTrace[] {
  return readdirSync(clusterExamplesDir)
    .filter((f) => f.endsWith('.trace.json'))
    .sort()
    .map((f) => loadClusterTrace(join(clusterExamplesDir, f)));
}

/** The cluster example named `name` (its file is spec/examples/cluster/NAME.trace.json). */
export function clusterExample(name: string): ClusterTrace {
  return loadClusterTrace(join(clusterExamplesDir, `${name}.trace.json`));
}

/** The rule ids an example's description begins with ("C5-C7: …" gives "C5-C7"). */
export function rulesOfExample(trace: ClusterTrace): string {
  return /^([^:]+):/.exec(trace.description ?? '')?.[1] ?? trace.name;
}

/**
 * Writes `content` into the FIFO at `path` once a reader has it open (a
 * command reading it ahead, spec/inputFiles.ts), then closes it: the reader
 * sees the end. Never blocks a thread: the FIFO is opened without waiting
 * (retried every 5 ms while no reader is there, up to `ms`) and written as
 * a pipe is. Resolves when all is written; rejects if no reader came.
 */
export async function writeFifoWhenRead(path: string, content: string | Buffer, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > until) throw e;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const pipe = new Socket({ fd, readable: false, writable: true });
  await new Promise<void>((resolve, reject) => {
    pipe.on('error', reject);
    pipe.end(content, () => resolve());
  });
  pipe.destroy();
}
