import { describe, expect, it } from 'vitest';
import { clusterExample, insertRow, recordAction, twoKeyCluster } from '../../conformance/testFixtures.ts';
import { COORDINATOR, type ClusterAction, type ClusterEvent, type ClusterObservation } from '../../spec/index.ts';
import { applyExternal, observeCluster } from './stateMachine.ts';
import { initialClusterState, type ClusterSetup, type ClusterState } from './clusterState.ts';
import { sinkRelation } from './sink.ts';
import { whyNotEnabled } from './guards.ts';

const setup: ClusterSetup = twoKeyCluster;

const ins = insertRow;
const rec = recordAction;

/**
 * Runs external actions eagerly (SPEC §7); returns the final state, each
 * step's events and observation, and why each refused step was not enabled
 * (a refused step changes nothing).
 */
function run(actions: readonly ClusterAction[], config: ClusterSetup = setup, from?: ClusterState) {
  let state = from ?? initialClusterState(config);
  const events: ClusterEvent[][] = [];
  const observations: ClusterObservation[] = [];
  const refused: (string | undefined)[] = [];
  for (const a of actions) {
    const why = whyNotEnabled(config, state, a);
    refused.push(why);
    if (why === undefined) {
      const step = applyExternal(config, state, a);
      state = step.state;
      events.push(step.events);
    } else events.push([]);
    observations.push(observeCluster(config, state));
  }
  return { state, events, observations, refused, observation: observeCluster(config, state) };
}

/** Runs the cluster example `name` (spec/examples/cluster/NAME.trace.json) through the model. */
const runExample = (name: string) => {
  const trace = clusterExample(name);
  return run(
    trace.steps.map((step) => step.action),
    trace.config,
  );
};

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
    const r = runExample('rejected-records');
    expect(r.events[0]).toEqual([{ type: 'rejected', outcome: { code: 'rejected', reason: 'unknown_key' } }]);
    expect(r.events[1]).toEqual([{ type: 'rejected', outcome: { code: 'rejected', reason: 'bad_side' } }]);
    expect(r.observations[1]?.log).toBe(0);
    expect(r.events[2]?.[0]).toEqual({ type: 'appended', index: 0 });
  });

  it('processes a record at its key owner only, and watermarks at every key', () => {
    const r = runExample('watermark-reaches-every-key');
    expect(processed(r.events[0] ?? []).map((e) => [e.worker, e.key, e.index])).toEqual([['w1', 'k1', 0]]);
    expect(processed(r.events[1] ?? []).map((e) => [e.worker, e.key, e.index])).toEqual([
      ['w1', 'k1', 1],
      ['w2', 'k2', 1],
    ]);
  });

  it('leaves records of a frozen key in the log until its new owner reads them', () => {
    // k1 is frozen at step 2; b arrives at step 3 (log index 2); commit at step 7 hands k1 to w2.
    const r = runExample('planned-migration-under-traffic');
    expect(r.events[3]).toEqual([{ type: 'appended', index: 2 }]);
    expect(r.observations[3]?.workers['w1']?.keys['k1']).toMatchObject({ frozen: true, cursor: 1 });
    const atCommit = processed(r.events[7] ?? []);
    expect(atCommit).toHaveLength(1);
    expect(atCommit[0]).toMatchObject({ worker: 'w2', key: 'k1', index: 2, epoch: 2, fenced: false });
    expect(atCommit[0]?.changes.map((c) => c.match)).toEqual(['k1/a/b']);
  });
});

describe('C5–C7: a planned migration', () => {
  it('installs frozen at epoch from + 1, commits with the fence raised, releases the source', () => {
    // Freeze at step 2, persist 4, install 5, commit 7, release 8.
    const r = runExample('planned-migration-under-traffic');
    expect(r.events[5]).toEqual([{ type: 'restored', worker: 'w2', key: 'k1', cursor: 1, epoch: 2 }]);
    expect(r.observations[5]?.workers['w2']?.keys['k1']).toMatchObject({ epoch: 2, frozen: true });
    expect(r.observations[7]?.sink.fence['k1']).toBe(2);
    expect(r.observations[7]?.coordinator).toMatchObject({ handoff: { phase: 'committed' }, keys: { k1: { owner: 'w2', epoch: 2 } } });
    expect(r.observations[7]?.workers['w2']?.keys['k1']).toMatchObject({ epoch: 2, frozen: false, cursor: 3 });
    expect(r.events[8]).toEqual([{ type: 'dropped', worker: 'w1', key: 'k1', reason: 'released' }]);
    expect(r.observations[8]?.coordinator.handoff).toBeNull();
    expect(r.observations[8]?.workers['w1']?.keys['k1']).toBeUndefined();
  });

  it('C6: refuses a duplicate install at an epoch the destination already has, and the copy stays live', () => {
    // Commit at step 6, the duplicated install at step 7.
    const r = runExample('duplicate-install-refused');
    expect(r.events[7]).toEqual([{ type: 'refused', worker: 'w2', key: 'k1', reason: 'stale-epoch' }]);
    expect(r.observations[7]?.workers['w2']?.keys['k1']).toMatchObject({ epoch: 2, frozen: false });
  });

  it('C7: a coordinator crash between the parts of commit leaves the fence raised and ownership unwritten', () => {
    // Commit with a crash after the fence at step 4; abort at 6 (coordinator down) and 8 (after its restart at 7); commit at 9.
    const r = runExample('crash-between-commit-parts');
    const crashed = r.observations[4];
    expect(crashed?.sink.fence['k1']).toBe(2);
    expect(crashed?.coordinator).toMatchObject({ up: false, keys: { k1: { owner: 'w1', epoch: 1 } } });
    expect(crashed?.coordinator.handoff?.phase).toBe('fenced');
    expect(r.refused[6]).toBe('the coordinator is down');
    expect(r.refused[8]).toBe('past the fence a handoff only goes forward');
    expect(r.observations[9]?.coordinator.keys['k1']).toEqual({ owner: 'w2', epoch: 2 });
  });

  it('C5: abort unfreezes the source and drops the destination copy', () => {
    // Installed at w3 (step 3); b arrives while k1 is frozen (step 4); abort at step 5.
    const r = runExample('abort-before-fence');
    expect(processed(r.events[4] ?? [])).toEqual([]);
    expect(r.events[5]?.filter((e) => e.type === 'dropped')).toEqual([{ type: 'dropped', worker: 'w3', key: 'k1', reason: 'aborted' }]);
    expect(processed(r.events[5] ?? [])).toMatchObject([{ worker: 'w1', index: 1, epoch: 1, fenced: false }]);
    expect(r.observations[5]?.workers['w1']?.keys['k1']).toMatchObject({ epoch: 1, frozen: false, cursor: 2 });
    expect(r.observations[5]?.coordinator).toMatchObject({ handoff: null, keys: { k1: { owner: 'w1', epoch: 1 } } });
  });
});

describe('C8/C9: failover, zombies and the sink', () => {
  it('fences a paused owner that resumes after failover, which then drops the key', () => {
    // w1 is paused at step 1; k1 fails over to w2 at step 2; b arrives at step 3; w1 resumes at step 4.
    const r = runExample('zombie-fenced');
    // No checkpoint: w2 restores an empty copy at cursor 0 and replays record 0 under epoch 2.
    expect(r.events[2]?.[0]).toEqual({ type: 'restored', worker: 'w2', key: 'k1', cursor: 0, epoch: 2 });
    expect(processed(r.events[2] ?? []).map((e) => [e.worker, e.index, e.epoch])).toEqual([['w2', 0, 2]]);
    expect(processed(r.events[3] ?? []).map((e) => [e.worker, e.index, e.epoch, e.fenced])).toEqual([['w2', 1, 2, false]]);
    // The zombie w1 reads b under epoch 1: its write is fenced and it drops k1.
    expect(r.events[4]).toEqual([
      expect.objectContaining({ type: 'processed', worker: 'w1', index: 1, epoch: 1, fenced: true }),
      { type: 'dropped', worker: 'w1', key: 'k1', reason: 'fenced' },
    ]);
    expect(r.observations[4]?.sink).toMatchObject({ applied: 1, fenced: 1, matches: { 'k1/a/b': 'inserted' } });
  });

  it('deduplicates what a replay from an older checkpoint writes again, and keeps retracted terminal', () => {
    const r = runExample('replay-after-retract');
    expect(r.observation.sink).toMatchObject({ applied: 2, deduped: 2, matches: { 'k1/a/b': 'retracted' } });
    expect(sinkRelation(r.state.sink, 'k1')).toEqual([]);
  });
});

describe('C10/C11: restarts and duplicated messages', () => {
  it('a restarted owner recovers its key from the latest checkpoint under the same epoch', () => {
    const r = runExample('restart-recovers-from-checkpoint');
    expect(r.events[4]?.[0]).toEqual({ type: 'restored', worker: 'w1', key: 'k1', cursor: 1, epoch: 1 });
    expect(r.observation.sink).toMatchObject({ applied: 1, deduped: 1 });
  });

  it('a duplicated release after the key came back under a newer epoch drops nothing', () => {
    const r = runExample('duplicate-release-after-return');
    expect(r.events[7]).toEqual([]);
    expect(r.observation.workers['w1']?.keys['k1']).toMatchObject({ epoch: 3, frozen: false });
  });

  it('C10: crash, restart, pause and resume are each enabled only from the state they leave; C11: a duplicate needs its receiver up, not the coordinator', () => {
    const r = run([
      { type: 'crash', node: 'w1' }, // up: enabled
      { type: 'crash', node: 'w1' }, // already down
      { type: 'resume', worker: 'w1' }, // down, not paused
      { type: 'pause', worker: 'w1' }, // down, not up
      { type: 'restart', node: 'w1' }, // down: enabled
      { type: 'restart', node: 'w1' }, // up, not down
      { type: 'pause', worker: 'w2' }, // up: enabled
      { type: 'crash', node: 'w2' }, // paused is not down: enabled, and it is down after
      { type: 'resume', worker: 'w2' }, // down, not paused
      { type: 'restart', node: 'w2' },
      { type: 'freeze', key: 'k1', to: 'w2' },
      { type: 'persist', key: 'k1' },
      { type: 'install', key: 'k1' },
      { type: 'crash', node: COORDINATOR },
      { type: 'duplicateInstall', key: 'k1' }, // the coordinator down: still enabled (w2, its receiver, is up)
      { type: 'pause', worker: 'w2' },
      { type: 'duplicateInstall', key: 'k1' }, // its receiver paused
    ]);
    expect(r.refused.map((why) => why !== undefined)).toEqual([
      false,
      true,
      true,
      true,
      false,
      true,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(r.state.workers['w2']?.status).toBe('paused');
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

describe('C10, §7: a restarted worker restores its keys in config order', () => {
  it('whatever the names: integer-like keys ("7", "10") are not put first, as an object would list them', () => {
    const config: ClusterSetup = {
      join: { allowedLateness: 1, maxIntervalLength: 1 },
      workers: ['w1', 'w2'],
      keys: [
        { key: '7.0', owner: 'w1' },
        { key: '10', owner: 'w1' },
        { key: 'b', owner: 'w1' },
        { key: '7', owner: 'w1' },
      ],
    };
    const crashed = applyExternal(config, initialClusterState(config), { type: 'crash', node: 'w1' }).state;
    const restart = applyExternal(config, crashed, { type: 'restart', node: 'w1' });
    expect(restart.events.filter((e) => e.type === 'restored').map((e) => ('key' in e ? e.key : ''))).toEqual(['7.0', '10', 'b', '7']);
  });
});
