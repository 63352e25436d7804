import { describe, expect, it } from 'vitest';
import { clusterScenarios, insertRow, recordAction, twoKeyCluster } from '../../conformance/testFixtures.ts';
import type { ClusterAction, ClusterEvent } from '../../spec/index.ts';
import { applyExternal, observeCluster } from './stateMachine.ts';
import { initialClusterState, type ClusterSetup, type ClusterState } from './clusterState.ts';
import { sinkRelation } from './sink.ts';
import { whyNotEnabled } from './guards.ts';

const setup: ClusterSetup = twoKeyCluster;

const ins = insertRow;
const rec = recordAction;

/** Runs external actions eagerly (SPEC §7); returns the final state and each step's events. */
function run(actions: readonly ClusterAction[], config: ClusterSetup = setup, from?: ClusterState) {
  let state = from ?? initialClusterState(config);
  const events: ClusterEvent[][] = [];
  for (const a of actions) {
    const step = applyExternal(config, state, a);
    state = step.state;
    events.push(step.events);
  }
  return { state, events, observation: observeCluster(config, state) };
}

const processed = (events: readonly ClusterEvent[]) =>
  events.filter((e): e is Extract<ClusterEvent, { type: 'processed' }> => e.type === 'processed');

describe('C1: initial state', () => {
  it('gives each declared key to its owner at epoch 1 with the fence at 1', () => {
    const o = observeCluster(setup, initialClusterState(setup));
    expect(o.coordinator.keys).toEqual({ k1: { owner: 'w1', epoch: 1 }, k2: { owner: 'w2', epoch: 1 } });
    expect(o.workers['w1']?.keys['k1']).toMatchObject({ epoch: 1, cursor: 0, frozen: false });
    expect(o.workers['w3']?.keys).toEqual({});
    expect(o.sink.fence).toEqual({ k1: 1, k2: 1 });
  });
});

describe('C3: the log and processing', () => {
  it('rejects invalid records and records of undeclared keys without appending them', () => {
    const r = run(clusterScenarios.rejected);
    expect(r.events[0]).toEqual([{ type: 'rejected', outcome: { code: 'rejected', reason: 'unknown_key' } }]);
    expect(r.events[1]).toEqual([{ type: 'rejected', outcome: { code: 'rejected', reason: 'bad_side' } }]);
    expect(r.observation.log).toBe(0);
  });

  it('processes a record at its key owner only, and watermarks at every key', () => {
    const r = run(clusterScenarios.ownerAndWatermarks);
    expect(processed(r.events[0] ?? []).map((e) => [e.worker, e.key, e.index])).toEqual([['w1', 'k1', 0]]);
    expect(processed(r.events[1] ?? []).map((e) => [e.worker, e.key, e.index])).toEqual([
      ['w1', 'k1', 1],
      ['w2', 'k2', 1],
    ]);
  });

  it('leaves records of a frozen key in the log until its new owner reads them', () => {
    const r = run(clusterScenarios.frozenKeyWaits);
    expect(processed(r.events[2] ?? [])).toEqual([]);
    expect(r.observation.workers['w1']?.keys['k1']).toMatchObject({ frozen: true, cursor: 1 });
    const atCommit = processed(r.events[5] ?? []);
    expect(atCommit).toHaveLength(1);
    expect(atCommit[0]).toMatchObject({ worker: 'w3', key: 'k1', index: 1, epoch: 2, fenced: false });
    expect(atCommit[0]?.changes.map((c) => c.match)).toEqual(['k1/a/b']);
  });
});

describe('C5–C7: a planned migration', () => {
  it('installs frozen at epoch from + 1, commits with the fence raised, releases the source', () => {
    const r = run(clusterScenarios.migration);
    expect(r.events[3]).toEqual([{ type: 'restored', worker: 'w2', key: 'k1', cursor: 1, epoch: 2 }]);
    expect(r.events[5]).toEqual([{ type: 'dropped', worker: 'w1', key: 'k1', reason: 'released' }]);
    expect(r.observation.coordinator).toMatchObject({ handoff: null, keys: { k1: { owner: 'w2', epoch: 2 } } });
    expect(r.observation.sink.fence['k1']).toBe(2);
    expect(r.observation.workers['w2']?.keys['k1']).toMatchObject({ epoch: 2, frozen: false, cursor: 1 });
    expect(r.observation.workers['w1']?.keys['k1']).toBeUndefined();
  });

  it('C6: refuses a duplicate install at an epoch the destination already has, and the copy stays live', () => {
    const r = run(clusterScenarios.duplicateInstallAfterCommit);
    expect(r.events[5]).toEqual([{ type: 'refused', worker: 'w2', key: 'k1', reason: 'stale-epoch' }]);
    expect(r.observation.workers['w2']?.keys['k1']?.frozen).toBe(false);
  });

  it('C7: a coordinator crash between the parts of commit leaves the fence raised and ownership unwritten', () => {
    const r = run(clusterScenarios.crashBetweenCommitParts);
    expect(r.observation.sink.fence['k1']).toBe(2);
    expect(r.observation.coordinator).toMatchObject({ up: false, keys: { k1: { owner: 'w1', epoch: 1 } } });
    expect(r.observation.coordinator.handoff?.phase).toBe('fenced');
    const d = whyNotEnabled(setup, r.state, { type: 'abort', key: 'k1' });
    expect(d).toBe('the coordinator is down');
    const after = run([{ type: 'restart', node: 'coordinator' }], setup, r.state);
    expect(whyNotEnabled(setup, after.state, { type: 'abort', key: 'k1' })).toBe('past the fence a handoff only goes forward');
    const done = run([{ type: 'commit', key: 'k1' }], setup, after.state);
    expect(done.observation.coordinator.keys['k1']).toEqual({ owner: 'w2', epoch: 2 });
  });

  it('C5: abort unfreezes the source and drops the destination copy', () => {
    const r = run(clusterScenarios.abort);
    expect(r.events[4]).toEqual([{ type: 'dropped', worker: 'w2', key: 'k1', reason: 'aborted' }]);
    expect(processed(r.events[5] ?? [])).toMatchObject([{ worker: 'w1', epoch: 1, fenced: false }]);
  });
});

describe('C8/C9: failover, zombies and the sink', () => {
  it('fences a paused owner that resumes after failover, which then drops the key', () => {
    const r = run(clusterScenarios.zombieFenced);
    // No checkpoint: w3 restores an empty copy at cursor 0 and replays record 0 under epoch 2.
    expect(r.events[2]?.[0]).toEqual({ type: 'restored', worker: 'w3', key: 'k1', cursor: 0, epoch: 2 });
    expect(processed(r.events[2] ?? []).map((e) => [e.worker, e.index, e.epoch])).toEqual([['w3', 0, 2]]);
    expect(processed(r.events[3] ?? []).map((e) => [e.worker, e.index, e.epoch, e.fenced])).toEqual([['w3', 1, 2, false]]);
    // The zombie w1 reads b under epoch 1: its write is fenced and it drops k1.
    expect(r.events[4]).toEqual([
      expect.objectContaining({ type: 'processed', worker: 'w1', index: 1, epoch: 1, fenced: true }),
      { type: 'dropped', worker: 'w1', key: 'k1', reason: 'fenced' },
    ]);
    expect(r.observation.sink).toMatchObject({ applied: 1, fenced: 1, matches: { 'k1/a/b': 'inserted' } });
  });

  it('deduplicates what a replay from an older checkpoint writes again, and keeps retracted terminal', () => {
    const r = run(clusterScenarios.replayFromOlderCheckpoint);
    expect(r.observation.sink).toMatchObject({ applied: 2, deduped: 2, matches: { 'k1/a/b': 'retracted' } });
    expect(sinkRelation(r.state.sink, 'k1')).toEqual([]);
  });
});

describe('C10/C11: restarts and duplicated messages', () => {
  it('a restarted owner recovers its key from the latest checkpoint under the same epoch', () => {
    const r = run(clusterScenarios.restartRecovers);
    expect(r.events[4]?.[0]).toEqual({ type: 'restored', worker: 'w1', key: 'k1', cursor: 1, epoch: 1 });
    expect(r.observation.sink).toMatchObject({ applied: 1, deduped: 1 });
  });

  it('a duplicated release after the key came back under a newer epoch drops nothing', () => {
    const r = run(clusterScenarios.duplicateReleaseAfterReturn);
    expect(r.events[7]).toEqual([]);
    expect(r.observation.workers['w1']?.keys['k1']).toMatchObject({ epoch: 3, frozen: false });
  });

  it('refuses actions that are not enabled, saying why', () => {
    const s = initialClusterState(setup);
    expect(whyNotEnabled(setup, s, { type: 'persist', key: 'k1' })).toBe('no migration of k1 awaits persist');
    expect(whyNotEnabled(setup, s, { type: 'failover', key: 'k1', to: 'w2' })).toBe('the owner w1 is up');
    expect(whyNotEnabled(setup, s, { type: 'freeze', key: 'k1', to: 'w1' })).toBe('w1 already owns k1');
    expect(whyNotEnabled(setup, s, { type: 'crash', node: 'w9' })).toBe('unknown worker w9');
    expect(() => applyExternal(setup, s, { type: 'commit', key: 'k1' })).toThrow(/not enabled/);
  });
});

describe('C1: keys and worker ids are data, whatever they spell', () => {
  it('runs a migration and a failover for a key named __proto__ on workers named constructor and toString', () => {
    const odd: ClusterSetup = {
      join: { allowedLateness: 1, maxIntervalLength: 2 },
      workers: ['constructor', 'toString', 'hasOwnProperty'],
      keys: [
        { key: '__proto__', owner: 'constructor' },
        { key: 'valueOf', owner: 'toString' },
      ],
    };
    const r = run(
      [
        rec(ins('__proto__', 'L', 'a', 1)),
        rec(ins('__proto__', 'R', 'b', 1)),
        { type: 'freeze', key: '__proto__', to: 'toString' },
        { type: 'persist', key: '__proto__' },
        { type: 'install', key: '__proto__' },
        { type: 'commit', key: '__proto__' },
        { type: 'release', key: '__proto__' },
        { type: 'crash', node: 'toString' },
        { type: 'failover', key: '__proto__', to: 'hasOwnProperty' },
        rec(ins('valueOf', 'L', 'c', 1)),
      ],
      odd,
    );
    // (An object literal cannot say `__proto__:` as a key; JSON can.)
    expect(JSON.stringify(r.observation.coordinator.keys)).toBe(
      '{"__proto__":{"owner":"hasOwnProperty","epoch":3},"valueOf":{"owner":"toString","epoch":1}}',
    );
    expect(Object.keys(r.observation.workers['hasOwnProperty']?.keys ?? {})).toEqual(['__proto__']);
    expect(r.observation.sink.matches).toEqual(JSON.parse('{"__proto__/a/b":"inserted"}'));
    expect(r.observation.store['valueOf']).toBeUndefined();
  });
});
