// Durability of the cluster's on-disk parts (SPEC C2): a process running the
// cluster killed with SIGKILL at any durable write point reopens with every
// acknowledged record, and after restarting its nodes the run continues to
// the reference model's quiescent sink relation; every corrupt durable file
// is detected and named, never loaded, never a crash. The end-to-end tier
// (npm run test:e2e): it kills child processes.
import { describe, expect, it } from 'vitest';
import { insertRow, recordAction, twoKeyCluster, useTemporaryDirectories } from '../../conformance/testFixtures.ts';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterAction, ClusterConfig, LogRecord } from '../../spec/index.ts';
import { applyExternal, observeCluster } from '../../model/cluster/stateMachine.ts';
import { initialClusterState, type ClusterSetup } from '../../model/cluster/clusterState.ts';
import { sinkRelation } from '../../model/cluster/sink.ts';
import { clusterStepsArbitrary } from '../../conformance/generate/clusterTraces.ts';
import { DurableStateError } from '../errors.ts';
import { ImplCluster } from './cluster.ts';
import { journalLine, parseJournal, readDocument, writeDocument } from './durableFiles.ts';
import { COORDINATOR_FORMAT } from './fileStorage.ts';

const setup: ClusterSetup = twoKeyCluster;

const freshDirectory = useTemporaryDirectories('streamjoin-cluster-');

const ins = insertRow;
const rec = recordAction;

function must(cluster: ImplCluster, action: ClusterAction): void {
  const result = cluster.apply(action);
  if ('error' in result) throw new Error(`${JSON.stringify(action)} refused: ${result.error.text}`);
}

/** The log as the file holds it (torn tail already cut off by the last open). */
function logRecordsIn(dataDir: string): LogRecord[] {
  const path = join(dataDir, 'log.jsonl');
  return parseJournal(path, readFileSync(path)).entries.map((e) => e.value as LogRecord);
}

/**
 * Brings a cluster to a quiescent state (SPEC §6) without faults: restart
 * every node that is down, resume the paused ones, and finish or abort the
 * in-flight handoff.
 */
function driveToQuiescence(cluster: ImplCluster, config: ClusterConfig): void {
  if (!cluster.observe().coordinator.up) must(cluster, { type: 'restart', node: 'coordinator' });
  for (const w of config.workers) {
    const status = cluster.observe().workers[w]?.status;
    if (status === 'down') must(cluster, { type: 'restart', node: w });
    if (status === 'paused') must(cluster, { type: 'resume', worker: w });
  }
  for (let guard = 0; guard < 4; guard++) {
    const o = cluster.observe();
    const h = o.coordinator.handoff;
    if (h === null) return;
    if (h.phase === 'committed') must(cluster, { type: 'release', key: h.key });
    else if (h.phase === 'fenced') {
      if (h.kind === 'migrate' && o.workers[h.dst]?.keys[h.key]?.epoch !== h.from + 1) must(cluster, { type: 'install', key: h.key });
      must(cluster, { type: 'commit', key: h.key });
    } else must(cluster, { type: 'abort', key: h.key });
  }
  throw new Error('the handoff did not finish');
}

/** The model's quiescent state over `log`: records only, no faults (ExactlyOnce: the oracle's relation). */
function modelQuiescent(log: readonly LogRecord[]) {
  let state = initialClusterState(setup);
  for (const record of log) state = applyExternal(setup, state, rec(record)).state;
  const relation = setup.keys.flatMap(({ key }) => sinkRelation(state.sink, key)).sort();
  return { relation, observation: observeCluster(setup, state) };
}

/** Checks that a quiescent cluster shows the model's relation and, per key, an owner copy that has read what the model's has. */
function expectModelQuiescence(cluster: ImplCluster, dataDir: string): void {
  const model = modelQuiescent(logRecordsIn(dataDir));
  expect(cluster.sinkRelation()).toEqual(model.relation);
  const o = cluster.observe();
  expect(o.coordinator).toMatchObject({ up: true, handoff: null });
  for (const { key } of setup.keys) {
    const { owner, epoch } = o.coordinator.keys[key] as { owner: string; epoch: number };
    const modelOwner = model.observation.coordinator.keys[key]?.owner as string;
    const expected = model.observation.workers[modelOwner]?.keys[key];
    expect(o.workers[owner]?.status).toBe('up');
    expect(o.workers[owner]?.keys[key]).toEqual({ ...expected, epoch, frozen: false });
  }
}

/** Runs the crash child until it reports reaching write point `killAt`, then SIGKILLs it. Resolves with its acknowledgements. */
function runChildUntilKilled(dataDir: string, actions: readonly ClusterAction[], killAt: number): Promise<{ acked: number[]; at: string }> {
  const traceFile = join(dataDir, '..', `${dataDir.split('/').pop() as string}.trace.json`);
  writeFileSync(traceFile, JSON.stringify({ config: setup, actions }));
  const script = join(import.meta.dirname, 'cluster.crashChild.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, traceFile, String(killAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let at = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crash child did not reach write point ${killAt} in time; stdout: ${out}; stderr: ${err}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^at \d+ (.*)$/m.exec(out);
      if (m !== null && at === '') {
        at = m[1] as string;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      rmSync(traceFile, { force: true });
      if (signal !== 'SIGKILL' || at === '') {
        reject(new Error(`crash child ended with ${String(code ?? signal)} before write point ${killAt}; stdout: ${out}; stderr: ${err}`));
        return;
      }
      const acked = [...out.matchAll(/^ack (\d+) (-?\d+)$/gm)].map((m) => Number(m[2]));
      resolve({ acked, at });
    });
  });
}

/** The durable write points a run of `actions` passes through, in order, from a dry run in this process. */
function writePointsOf(actions: readonly ClusterAction[]): string[] {
  const points: string[] = [];
  const dry = ImplCluster.open(setup, {
    dataDir: freshDirectory(),
    onWritePoint: (point, path) => points.push(`${point} ${path.split('/').slice(-1)[0] as string}`),
  });
  for (const a of actions) must(dry, a);
  dry.close();
  return points;
}

/**
 * Kills a child running `actions` at write point `killAt`, reopens its
 * directory here, checks that every acknowledged record is in the log, then
 * restarts the nodes, applies the rest of the trace (skipping what is no
 * longer enabled) and checks quiescence against the model.
 */
async function killReopenContinue(actions: readonly ClusterAction[], killAt: number): Promise<string> {
  const dataDir = freshDirectory();
  const { acked, at } = await runChildUntilKilled(dataDir, actions, killAt);
  // Killed while the directory was being created (before config.json was in place): nothing was ever acknowledged.
  const created = existsSync(join(dataDir, 'config.json'));
  const cluster = ImplCluster.open(setup, { dataDir });
  try {
    const o = cluster.observe();
    if (created) {
      // C2: the whole cluster crashed: every node is down; nothing acknowledged is lost.
      expect(o.coordinator.up).toBe(false);
      for (const w of setup.workers) expect(o.workers[w]).toEqual({ status: 'down', keys: {} });
    } else {
      expect(acked).toEqual([]);
      expect(o).toEqual(observeCluster(setup, initialClusterState(setup)));
    }
    const log = logRecordsIn(dataDir);
    acked.forEach((index, step) => {
      if (index >= 0) expect(log[index]).toEqual((actions[step] as Extract<ClusterAction, { type: 'record' }>).record);
    });
    expect(log.length).toBeLessThanOrEqual(acked.filter((i) => i >= 0).length + 1);
    driveToQuiescence(cluster, setup);
    for (const a of actions.slice(acked.length)) cluster.apply(a); // refused ones change nothing
    driveToQuiescence(cluster, setup);
    expectModelQuiescence(cluster, dataDir);
    return at;
  } finally {
    cluster.close();
  }
}

describe('SIGKILL mid-trace: reopen recovers the durable parts and the run continues to the model’s quiescent relation (C2, ExactlyOnce)', () => {
  const trace: ClusterAction[] = [
    rec(ins('k1', 'L', 'a', 1, 2)),
    rec(ins('k1', 'R', 'b', 2)),
    { type: 'checkpoint', worker: 'w1', key: 'k1' },
    { type: 'freeze', key: 'k1', to: 'w3' },
    rec(ins('k1', 'R', 'c', 1)),
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
    { type: 'release', key: 'k1' },
    rec({ ...ins('k1', 'L', 'a', 1, 2), kind: 'retract' }),
    { type: 'pause', worker: 'w2' },
    { type: 'failover', key: 'k2', to: 'w1' },
    rec(ins('k2', 'L', 'x', 3)),
    rec(ins('k2', 'R', 'y', 3)),
    rec({ kind: 'watermark', side: 'L', wm: 4 }),
  ];

  it('killed inside a log append (torn tail), a sink write, a coordinator write, a checkpoint write and an install message write', async () => {
    const points = writePointsOf(trace);
    const wanted = [
      (p: string) => p === 'journal-partial log.jsonl',
      (p: string) => p === 'journal-partial sink.jsonl',
      (p: string) => p === 'document-tmp-synced coordinator.json.tmp',
      (p: string) => p === 'checkpoint-tmp-partial',
      (p: string) => p.startsWith('document-renamed k'),
    ];
    // The last occurrence of each kind: the most state behind it.
    const killPoints = wanted.map((matches) => {
      const i = points.map((p) => p.replace(/ k[0-9a-f]+\.[0-9]+\.ckpt\.tmp$/, '')).findLastIndex(matches);
      expect(i, `write point kind ${String(matches)} occurs`).toBeGreaterThanOrEqual(0);
      return i + 1;
    });
    const reached = await Promise.all(killPoints.map((k) => killReopenContinue(trace, k)));
    expect(reached.map((r) => r.split(' ')[0])).toEqual([
      'journal-partial',
      'journal-partial',
      'document-tmp-synced',
      'checkpoint-tmp-partial',
      'document-renamed',
    ]);
  });

  it('killed at a random write point of a random trace', async () => {
    await fc.assert(
      fc.asyncProperty(clusterStepsArbitrary(setup), fc.nat(), fc.nat(), async (steps, pickA, pickB) => {
        // The child applies every action and must see none refused: the enabled ones only.
        const actions = steps.flatMap((s) => (s.kind === 'action' && 'events' in s.expected ? [s.action] : []));
        const total = writePointsOf(actions).length;
        await Promise.all([killReopenContinue(actions, 1 + (pickA % total)), killReopenContinue(actions, 1 + (pickB % total))]);
      }),
      { numRuns: 2 },
    );
  });
});

/** A directory holding a cluster that migrated k1, took a checkpoint and went on writing (closed: as after a crash between actions). */
function populated(): string {
  const dataDir = freshDirectory();
  const cluster = ImplCluster.open(setup, { dataDir });
  for (const a of [
    rec(ins('k1', 'L', 'a', 1, 2)),
    rec(ins('k1', 'R', 'b', 2)),
    { type: 'freeze', key: 'k1', to: 'w3' },
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
    rec(ins('k1', 'R', 'c', 1)),
    rec(ins('k1', 'R', 'd', 2)),
  ] as ClusterAction[]) {
    must(cluster, a);
  }
  cluster.close();
  return dataDir;
}

const flipByte = (path: string, at: (length: number) => number): void => {
  const bytes = readFileSync(path);
  const i = at(bytes.length);
  bytes[i] = (bytes[i] as number) ^ 0x08;
  writeFileSync(path, bytes);
};

const openError = (dataDir: string, config: ClusterConfig = setup): DurableStateError => {
  try {
    ImplCluster.open(config, { dataDir }).close();
  } catch (e) {
    if (e instanceof DurableStateError) return e;
    throw e;
  }
  throw new Error('open succeeded');
};

describe('corrupt durable files are detected and named, never loaded (C2)', () => {
  it('reopens an intact directory with every node down and the durable parts as they were', () => {
    const dataDir = populated();
    const cluster = ImplCluster.open(setup, { dataDir });
    expect(cluster.problems()).toEqual([]);
    const o = cluster.observe();
    expect(o).toMatchObject({
      log: 4,
      coordinator: { up: false, handoff: { phase: 'committed', dst: 'w3' }, keys: { k1: { owner: 'w3', epoch: 2 } } },
    });
    expect(o.sink.fence).toEqual({ k1: 2, k2: 1 });
    expect(o.sink.matches).toEqual({ 'k1/a/b': 'inserted', 'k1/a/c': 'inserted', 'k1/a/d': 'inserted' });
    expect(o.store['k1']).toMatchObject({ epoch: 1, cursor: 2 });
    cluster.close();
  });

  it('log: a torn last line is dropped and reported with the path; the records before it load', () => {
    const dataDir = populated();
    const path = join(dataDir, 'log.jsonl');
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 10));
    const cluster = ImplCluster.open(setup, { dataDir });
    expect(cluster.observe().log).toBe(3);
    expect(cluster.problems()).toEqual([{ path, detail: expect.stringMatching(/torn tail at line 4 .*dropped/) }]);
    // The file is cut back, so the next append starts a clean line.
    driveToQuiescence(cluster, setup);
    must(cluster, rec(ins('k2', 'L', 'z', 1)));
    cluster.close();
    expect(ImplCluster.open(setup, { dataDir }).problems()).toEqual([]);
    expect(logRecordsIn(dataDir)).toHaveLength(4);
  });

  it('log: a damaged line before the last is corruption: refused with path and line', () => {
    const dataDir = populated();
    const path = join(dataDir, 'log.jsonl');
    flipByte(path, () => 40);
    const e = openError(dataDir);
    expect(e.path).toBe(`${path}:1`);
    expect(e.detail).toMatch(/CRC-32/);
  });

  it('log: a well-framed line holding a record the cluster never appends is refused with path and line', () => {
    const dataDir = populated();
    const path = join(dataDir, 'log.jsonl');
    appendFileSync(path, journalLine(ins('k-undeclared', 'L', 'a', 1)));
    appendFileSync(path, journalLine(ins('k1', 'L', 'q', 1)));
    const e = openError(dataDir);
    expect(e.path).toBe(`${path}:5`);
    expect(e.detail).toMatch(/not declared/);
  });

  it('coordinator table: a changed byte is refused with the path', () => {
    const dataDir = populated();
    const path = join(dataDir, 'coordinator.json');
    flipByte(path, (n) => n - 5);
    const e = openError(dataDir);
    expect(e.path).toBe(path);
    expect(e.detail).toMatch(/SHA-256/);
  });

  it('coordinator table: a checksummed table that does not fit the config is refused with the path', () => {
    const dataDir = populated();
    const other: ClusterConfig = { ...setup, keys: [{ key: 'k1', owner: 'w1' }] };
    // Another config is refused before any table is read, naming config.json.
    expect(openError(dataDir, other).path).toBe(join(dataDir, 'config.json'));
  });

  /** A directory holding a cluster whose migration of k1 (one row) to w3 is installed (closed: as after a crash). */
  const installed = (): string => {
    const dataDir = freshDirectory();
    const cluster = ImplCluster.open(setup, { dataDir });
    for (const a of [
      rec(ins('k1', 'L', 'a', 1, 2)),
      { type: 'freeze', key: 'k1', to: 'w3' },
      { type: 'persist', key: 'k1' },
      { type: 'install', key: 'k1' },
    ] as ClusterAction[])
      must(cluster, a);
    cluster.close();
    return dataDir;
  };

  it('install (C2, C6, C11): the message named in the coordinator record with its phase is saved again on reopen when its own file never was', () => {
    const dataDir = installed();
    // As a kill between the record's write and the message's file leaves it: the record names the message, no file holds it.
    const installDir = join(dataDir, 'install');
    for (const name of readdirSync(installDir)) unlinkSync(join(installDir, name));
    const reopened = ImplCluster.open(setup, { dataDir });
    try {
      expect(reopened.observe().coordinator.handoff).toMatchObject({ phase: 'installed', dst: 'w3' });
      expect(readdirSync(installDir)).toHaveLength(1);
      for (const node of ['coordinator', ...setup.workers]) must(reopened, { type: 'restart', node });
      const duplicate = reopened.apply({ type: 'duplicateInstall', key: 'k1' });
      expect(duplicate).toEqual({ events: [{ type: 'restored', worker: 'w3', key: 'k1', cursor: 1, epoch: 2 }] });
    } finally {
      reopened.close();
    }
  });

  it('coordinator record: an installing message that is not the handoff’s install is refused with the path', () => {
    const dataDir = installed();
    const path = join(dataDir, 'coordinator.json');
    const record = readDocument(path, COORDINATOR_FORMAT) as { installing: { dst: string } };
    expect(record.installing.dst).toBe('w3');
    writeDocument(path, COORDINATOR_FORMAT, { ...record, installing: { ...record.installing, dst: 'w2' } });
    const e = openError(dataDir);
    expect(e.path).toBe(path);
    expect(e.detail).toMatch(/installing is not the install message of the handoff/);
  });

  it('sink: a damaged line before the last is refused with path and line; a torn last line is dropped and reported', () => {
    const dataDir = populated();
    const path = join(dataDir, 'sink.jsonl');
    const good = readFileSync(path);
    flipByte(path, () => 40);
    const e = openError(dataDir);
    expect(e.path).toBe(`${path}:1`);
    writeFileSync(path, good.subarray(0, good.length - 3));
    const cluster = ImplCluster.open(setup, { dataDir });
    expect(cluster.problems()).toEqual([{ path, detail: expect.stringMatching(/torn tail/) }]);
    expect(cluster.observe().sink.matches).toEqual({ 'k1/a/b': 'inserted', 'k1/a/c': 'inserted' });
    cluster.close();
  });

  it('sink and table that do not belong together (the fence behind the committed epoch) are refused, naming the sink', () => {
    const dataDir = populated();
    unlinkSync(join(dataDir, 'sink.jsonl'));
    const e = openError(dataDir);
    expect(e.path).toBe(join(dataDir, 'sink.jsonl'));
    expect(e.detail).toMatch(/fence of "k1" is 1, behind its committed epoch 2/);
  });

  it('install message: a changed byte is refused with the path', () => {
    const dataDir = populated();
    const [name] = readdirSync(join(dataDir, 'install'));
    const path = join(dataDir, 'install', name as string);
    flipByte(path, (n) => n - 2);
    expect(openError(dataDir).path).toBe(path);
  });

  it('checkpoints: a damaged newest checkpoint is reported with its path and the key has no checkpoint (the store has no older one)', () => {
    const dataDir = populated();
    const [name] = readdirSync(join(dataDir, 'checkpoints'));
    const path = join(dataDir, 'checkpoints', name as string);
    flipByte(path, (n) => n - 2);
    const cluster = ImplCluster.open(setup, { dataDir });
    expect(cluster.problems()).toEqual([{ path, detail: expect.stringMatching(/checksum/) }]);
    expect(cluster.observe().store).toEqual({});
    cluster.close();
  });

  it('a directory with state files but no config.json is refused, naming the file', () => {
    const dataDir = freshDirectory();
    writeFileSync(join(dataDir, 'log.jsonl'), journalLine(ins('k1', 'L', 'a', 1)));
    expect(openError(dataDir).path).toBe(join(dataDir, 'log.jsonl'));
  });

  it('any change to the bytes of a durable file is refused or reported, never loaded silently and never a crash', () => {
    const dataDir = populated();
    const files = ['log.jsonl', 'sink.jsonl', 'coordinator.json', 'config.json'].map((f) => join(dataDir, f));
    const originals = files.map((f) => readFileSync(f));
    const reference = ImplCluster.open(setup, { dataDir });
    const intact = reference.observe();
    reference.close();
    fc.assert(
      fc.property(fc.nat({ max: files.length - 1 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (file, position, mask) => {
        const path = files[file] as string;
        const bytes = Buffer.from(originals[file] as Buffer);
        const i = position % bytes.length;
        bytes[i] = (bytes[i] as number) ^ mask;
        writeFileSync(path, bytes);
        try {
          const cluster = ImplCluster.open(setup, { dataDir });
          // Only a journal's last line may be dropped, and then it is reported.
          const problems = cluster.problems();
          const same = JSON.stringify(cluster.observe()) === JSON.stringify(intact);
          cluster.close();
          expect(same || problems.some((p) => p.path === path)).toBe(true);
          if (!same) expect(problems).toEqual([{ path, detail: expect.stringMatching(/torn tail/) }]);
        } catch (e) {
          expect(e).toBeInstanceOf(DurableStateError);
          expect((e as DurableStateError).path.startsWith(path)).toBe(true);
        } finally {
          for (const [j, f] of files.entries()) writeFileSync(f, originals[j] as Buffer);
        }
      }),
      { numRuns: 60 },
    );
  });
});
