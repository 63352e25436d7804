import { describe, expect, it } from 'vitest';
import { insertRow, recordAction, twoKeyCluster, useTemporaryDirectories } from '../../conformance/testFixtures.ts';
import { join } from 'node:path';
import type { ClusterAction, ClusterConfig } from '../../spec/index.ts';
import { ClusterStoppedError, ConfigError, DurableStateError } from '../errors.ts';
import { ImplCluster } from './cluster.ts';

const config: ClusterConfig = twoKeyCluster;

const freshDirectory = useTemporaryDirectories('streamjoin-cluster-');

const ins = insertRow;
const rec = recordAction;

function must(cluster: ImplCluster, action: ClusterAction) {
  const result = cluster.apply(action);
  if ('error' in result) throw new Error(`${JSON.stringify(action)} refused: ${result.error.text}`);
  return result.events;
}

function refusal(cluster: ImplCluster, action: ClusterAction): string {
  const before = cluster.observe();
  const result = cluster.apply(action);
  if (!('error' in result)) throw new Error(`${JSON.stringify(action)} was applied`);
  expect(result.error.kind).toBe('not-enabled');
  expect(cluster.observe()).toEqual(before);
  return result.error.text;
}

describe('actions that are not enabled are refused with a reason and change nothing (SPEC §5, §7)', () => {
  it('C10: while the coordinator is down, every handoff step is refused; the rest of the cluster goes on', () => {
    const cluster = ImplCluster.open(config);
    must(cluster, rec(ins('k1', 'L', 'a', 1)));
    must(cluster, { type: 'freeze', key: 'k1', to: 'w2' });
    must(cluster, { type: 'crash', node: 'coordinator' });
    for (const a of [
      { type: 'persist', key: 'k1' },
      { type: 'install', key: 'k1' },
      { type: 'commit', key: 'k1' },
      { type: 'commit', key: 'k1', crashAfterFence: true },
      { type: 'release', key: 'k1' },
      { type: 'abort', key: 'k1' },
      { type: 'freeze', key: 'k2', to: 'w3' },
      { type: 'failover', key: 'k2', to: 'w3' },
    ] as ClusterAction[]) {
      expect(refusal(cluster, a)).toMatch(/coordinator is down/);
    }
    // Records, checkpoints and faults do not need the coordinator.
    expect(must(cluster, rec(ins('k2', 'L', 'b', 1)))).toEqual([
      { type: 'appended', index: 1 },
      { type: 'processed', worker: 'w2', key: 'k2', index: 1, epoch: 1, outcome: { code: 'accepted' }, changes: [], fenced: false },
    ]);
    must(cluster, { type: 'checkpoint', worker: 'w2', key: 'k2' });
    must(cluster, { type: 'restart', node: 'coordinator' });
    // The in-flight handoff continues from its phase.
    must(cluster, { type: 'persist', key: 'k1' });
    expect(cluster.observe().coordinator.handoff).toMatchObject({ key: 'k1', phase: 'persisted' });
  });

  it('process steps are never enabled from outside: processing is eager (§7)', () => {
    const cluster = ImplCluster.open(config);
    must(cluster, rec(ins('k1', 'L', 'a', 1)));
    expect(refusal(cluster, { type: 'process', worker: 'w1', key: 'k1' })).toMatch(/eagerly/);
  });

  it('names nobody declared are refused, saying which', () => {
    const cluster = ImplCluster.open(config);
    expect(refusal(cluster, { type: 'freeze', key: 'k9', to: 'w2' })).toMatch(/unknown key k9/);
    expect(refusal(cluster, { type: 'freeze', key: 'k1', to: 'w9' })).toMatch(/unknown worker w9/);
    expect(refusal(cluster, { type: 'crash', node: 'w9' })).toMatch(/unknown node w9/);
    expect(refusal(cluster, { type: 'checkpoint', worker: 'w1', key: 'k9' })).toMatch(/unknown key k9/);
    expect(refusal(cluster, { type: 'duplicateInstall', key: 'k9' })).toMatch(/no install of k9/);
  });

  it('each guard of the handoff says what is missing', () => {
    const cluster = ImplCluster.open(config);
    expect(refusal(cluster, { type: 'freeze', key: 'k1', to: 'w1' })).toMatch(/w1 already owns k1/);
    expect(refusal(cluster, { type: 'persist', key: 'k1' })).toMatch(/no migration of k1 awaits persist/);
    must(cluster, { type: 'freeze', key: 'k1', to: 'w2' });
    expect(refusal(cluster, { type: 'freeze', key: 'k2', to: 'w3' })).toMatch(/handoff of k1 is in flight/);
    expect(refusal(cluster, { type: 'install', key: 'k1' })).toMatch(/persisted checkpoint/);
    expect(refusal(cluster, { type: 'commit', key: 'k1' })).toMatch(/awaits commit/);
    must(cluster, { type: 'persist', key: 'k1' });
    must(cluster, { type: 'install', key: 'k1' });
    must(cluster, { type: 'commit', key: 'k1' });
    expect(refusal(cluster, { type: 'abort', key: 'k1' })).toMatch(/only goes forward/);
    expect(refusal(cluster, { type: 'failover', key: 'k1', to: 'w3' })).toMatch(/in flight/);
  });
});

describe('ImplCluster API', () => {
  it('C1: a new cluster, in memory or in a new data directory, starts with every node up and each owner holding an empty active copy', () => {
    const memory = ImplCluster.open(config);
    const disk = ImplCluster.open(config, { dataDir: freshDirectory() });
    expect(disk.observe()).toEqual(memory.observe());
    expect(memory.observe()).toEqual({
      log: 0,
      coordinator: { up: true, handoff: null, keys: { k1: { owner: 'w1', epoch: 1 }, k2: { owner: 'w2', epoch: 1 } } },
      workers: {
        w1: { status: 'up', keys: { k1: { epoch: 1, cursor: 0, frozen: false, retained: { live: 0, tombstones: 0, matches: 0 } } } },
        w2: { status: 'up', keys: { k2: { epoch: 1, cursor: 0, frozen: false, retained: { live: 0, tombstones: 0, matches: 0 } } } },
        w3: { status: 'up', keys: {} },
      },
      store: {},
      sink: { fence: { k1: 1, k2: 1 }, matches: {}, applied: 0, deduped: 0, fenced: 0 },
    });
    disk.close();
  });

  it('C10: a directory reopened recovers with every node down, with the crash flag or without it, and the crash flag alone does so over a directory that holds nothing yet', () => {
    const down = (c: ImplCluster): unknown => {
      const o = c.observe();
      return { coordinator: o.coordinator.up, workers: Object.values(o.workers).map((w) => w.status) };
    };
    const allDown = { coordinator: false, workers: ['down', 'down', 'down'] };
    // A process killed before its first durable write: the directory exists and holds nothing.
    const empty = ImplCluster.open(config, { dataDir: freshDirectory(), crashed: true });
    expect(down(empty)).toEqual(allDown);
    empty.close();
    const dataDir = freshDirectory();
    ImplCluster.open(config, { dataDir }).close();
    for (const crashed of [false, true]) {
      const reopened = ImplCluster.open(config, { dataDir, crashed });
      expect(down(reopened), `crashed: ${crashed}`).toEqual(allDown);
      reopened.close();
    }
  });

  it('refuses a bad config with a ConfigError naming the field', () => {
    const bad: [Partial<ClusterConfig>, RegExp][] = [
      [{ workers: [] as unknown as ClusterConfig['workers'] }, /config.workers must list/],
      [{ workers: ['w1', 'w1'] }, /config.workers\[1\] repeats/],
      [{ workers: ['w1', 'coordinator'] }, /config.workers\[1\] must not be "coordinator"/],
      [{ keys: [{ key: 'k1', owner: 'w9' }] }, /config.keys\[0\].owner "w9"/],
      [
        {
          keys: [
            { key: 'k1', owner: 'w1' },
            { key: 'k1', owner: 'w2' },
          ],
        },
        /config.keys\[1\] repeats key/,
      ],
      [{ join: { allowedLateness: -1, maxIntervalLength: 0 } }, /J0: allowedLateness/],
    ];
    for (const [patch, message] of bad) {
      expect(() => ImplCluster.open({ ...config, ...patch })).toThrow(ConfigError);
      expect(() => ImplCluster.open({ ...config, ...patch })).toThrow(message);
    }
  });

  it('throws TypeError for an action or record of no known type, and stays usable', () => {
    const cluster = ImplCluster.open(config);
    expect(() => cluster.apply({ type: 'explode' } as unknown as ClusterAction)).toThrow(/action.type "explode"/);
    expect(() => cluster.apply({ type: 'record', record: { kind: 'upsert' } } as unknown as ClusterAction)).toThrow(/record.kind/);
    must(cluster, rec(ins('k1', 'L', 'a', 1)));
  });

  it('keeps its own copy of each record: changing the caller’s object later changes nothing', () => {
    const cluster = ImplCluster.open(config);
    const record = ins('k1', 'L', 'a', 1);
    must(cluster, rec(record));
    must(cluster, rec(ins('k1', 'R', 'b', 1)));
    record.id = 'changed';
    must(cluster, { type: 'crash', node: 'w1' });
    const replay = must(cluster, { type: 'failover', key: 'k1', to: 'w3' });
    expect(replay.flatMap((e) => (e.type === 'processed' ? e.changes.map((c) => c.match) : []))).toEqual(['k1/a/b']);
  });

  it('observations are fresh objects: changing one changes nothing', () => {
    const cluster = ImplCluster.open(config);
    must(cluster, rec(ins('k1', 'L', 'a', 1)));
    const o = cluster.observe();
    (o.workers['w1']?.keys['k1'] as { cursor: number }).cursor = 99;
    o.sink.fence['k1'] = 7;
    expect(cluster.observe()).not.toEqual(o);
  });

  it('keys and ids of any characters, "__proto__" included, are own properties of the observation', () => {
    const odd: ClusterConfig = {
      ...config,
      keys: [
        { key: '__proto__', owner: 'w1' },
        { key: 'k/%', owner: 'w2' },
      ],
    };
    const cluster = ImplCluster.open(odd);
    must(cluster, rec(ins('__proto__', 'L', 'constructor', 1)));
    must(cluster, rec(ins('__proto__', 'R', 'x/y', 1)));
    const o = cluster.observe();
    expect(Object.keys(o.coordinator.keys)).toEqual(['__proto__', 'k/%']);
    expect(Object.keys(o.sink.matches)).toEqual(['__proto__/constructor/x%2Fy']);
    expect(Object.getPrototypeOf(o.sink.fence)).toBe(Object.prototype);
  });

  it('after close every call throws ClusterStoppedError', () => {
    const cluster = ImplCluster.open(config);
    cluster.close();
    expect(() => cluster.apply(rec(ins('k1', 'L', 'a', 1)))).toThrow(ClusterStoppedError);
    expect(() => cluster.observe()).toThrow(ClusterStoppedError);
  });

  it('a durable write that fails stops the cluster; reopening recovers the state that was durable', () => {
    const dataDir = freshDirectory();
    let failing = false;
    const cluster = ImplCluster.open(config, {
      dataDir,
      onWritePoint: (point, path) => {
        if (failing && point === 'journal-partial' && path.endsWith('sink.jsonl')) throw new Error('ENOSPC (simulated)');
      },
    });
    must(cluster, rec(ins('k1', 'L', 'a', 1)));
    failing = true;
    // The record is durable in the log; writing its change to the sink fails.
    expect(() => cluster.apply(rec(ins('k1', 'R', 'b', 1)))).toThrow(DurableStateError);
    expect(() => cluster.observe()).toThrow(/stopped: record insert k1\/R\/b ts=1 \[1,1\] failed part-way/);
    cluster.close();
    const reopened = ImplCluster.open(config, { dataDir });
    expect(reopened.problems()).toEqual([{ path: join(dataDir, 'sink.jsonl'), detail: expect.stringMatching(/torn tail/) }]);
    expect(reopened.observe().log).toBe(2);
    must(reopened, { type: 'restart', node: 'coordinator' });
    for (const w of config.workers) must(reopened, { type: 'restart', node: w });
    expect(reopened.sinkRelation()).toEqual(['k1/a/b']);
    reopened.close();
  });
});
