// Kill mode's traces (killTraces.ts, killJob.ts): kills at every crash point
// the level faults reaches (C7, C8, C10), each followed by restarts of the
// nodes the kill took; in-flight kills only where the nodes to restart do not
// depend on how they resolve; random kill traces replay from their seed.
import { describe, expect, inject, it } from 'vitest';
import { CLUSTER_TRACE_FORMAT, COORDINATOR } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { initialClusterState, type ClusterSetup } from '../../model/index.ts';
import { insertRow } from '../testFixtures.ts';
import { randomKillTraces } from './killJob.ts';
import { commandWithData } from './killRun.ts';
import { crashAll, isCrashPoint, killsIn, modelAfter, withKills } from './killTraces.ts';

const seed = Number(inject('fcSeed'));

const config: ClusterTrace['config'] = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2'],
  keys: [{ key: 'k1', owner: 'w1' }],
};

const rec = (id: string): ExternalAction => ({ type: 'record', record: insertRow('k1', 'L', id, 1, 2) });

const trace = (actions: readonly ExternalAction[]): ClusterTrace => ({
  format: CLUSTER_TRACE_FORMAT,
  name: 't',
  config,
  steps: actions.map((action) => ({ action })),
});

describe('withKills', () => {
  it('C10: a crash is killed after its reply, and every node the kill took (not the crashed one) is restarted, the coordinator first', () => {
    const t = withKills(trace([rec('a'), { type: 'crash', node: 'w1' }, { type: 'restart', node: 'w1' }]));
    expect(t.steps.map((s) => [s.action.type, 'node' in s.action ? s.action.node : undefined, s.kill?.when])).toEqual([
      ['record', undefined, undefined],
      ['crash', 'w1', 'after-reply'],
      ['restart', COORDINATOR, undefined],
      ['restart', 'w2', undefined],
      ['restart', 'w1', undefined],
    ]);
    expect(t.steps[1]?.note).toMatch(/^killed here/);
  });

  it('C7, C8: commit and failover with crashAfterFence are crash points; a crash the model refuses is not', () => {
    expect(isCrashPoint({ type: 'commit', key: 'k1', crashAfterFence: true })).toBe(true);
    expect(isCrashPoint({ type: 'failover', key: 'k1', to: 'w2', crashAfterFence: true })).toBe(true);
    expect(isCrashPoint({ type: 'commit', key: 'k1' })).toBe(false);
    const t = withKills(
      trace([
        { type: 'crash', node: 'w1' },
        { type: 'crash', node: 'w1' },
      ]),
    );
    // The second crash is refused (w1 is down): a probe, not a crash point.
    expect(killsIn(t)).toEqual({ afterReply: 1, inFlight: 0 });
    expect(t.steps.at(-1)?.action).toEqual({ type: 'crash', node: 'w1' });
    expect(t.steps.at(-1)?.kill).toBeUndefined();
  });

  it('an in-flight kill goes to an enabled step that changes no node liveness, with its restarts', () => {
    const actions: ExternalAction[] = [rec('a'), { type: 'pause', worker: 'w2' }];
    const t = withKills(trace(actions), [{ at: 0, timing: 'unread' }]);
    expect(t.steps[0]?.kill).toEqual({ when: 'in-flight', timing: 'unread' });
    // Up were the coordinator, w1 and w2: all three are restarted.
    expect(t.steps.slice(1, 4).map((s) => s.action)).toEqual([
      { type: 'restart', node: COORDINATOR },
      { type: 'restart', node: 'w1' },
      { type: 'restart', node: 'w2' },
    ]);
    // At the pause (a liveness change) no in-flight kill is placed.
    expect(withKills(trace(actions), [{ at: 1, timing: 'answered' }]).steps.some((s) => s.kill)).toBe(false);
  });

  it('the restarts bring back every node the kill took: after them the model has the same nodes up as before the kill', () => {
    for (const t of randomKillTraces(seed, 20)) {
      const s: ClusterSetup = { ...t.config, checkProperties: false };
      let state = initialClusterState(s);
      t.steps.forEach((step, i) => {
        state = modelAfter(s, state, step.action as ExternalAction);
        if (step.kill === undefined) return;
        const taken = [state.coordinator.up ? COORDINATOR : undefined, ...s.workers.filter((w) => state.workers[w]?.status !== 'down')];
        const restarts = t.steps.slice(i + 1, i + 1 + taken.filter(Boolean).length).map((x) => x.action);
        expect(restarts, `${t.name} step ${i}`).toEqual(taken.filter(Boolean).map((node) => ({ type: 'restart', node })));
        state = crashAll(s, state);
      });
    }
  });
});

describe('randomKillTraces', () => {
  it(`replays from its seed (${seed}): the same traces, and at least one of them with a kill`, () => {
    const a = randomKillTraces(seed, 10);
    expect(randomKillTraces(seed, 10)).toEqual(a);
    const killed = a.filter((t) => killsIn(t).afterReply + killsIn(t).inFlight > 0).length;
    expect(killed).toBeGreaterThan(0);
    // At most 4 kills at crash points per trace.
    for (const t of a) expect(killsIn(t).afterReply).toBeLessThanOrEqual(4);
  });
});

describe('commandWithData', () => {
  it('puts the directory, shell-quoted, at every {data}', () => {
    expect(commandWithData('serve --data {data} --x={data}', "/tmp/a b'c")).toBe(`serve --data '/tmp/a b'\\''c' --x='/tmp/a b'\\''c'`);
  });
});
