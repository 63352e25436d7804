// Kill mode's traces (killTraces.ts, killJob.ts): kills at every crash point
// the level faults reaches (C7, C8, C10), each followed by restarts of the
// nodes the kill took; in-flight kills only where the nodes to restart do not
// depend on how they resolve; kills inside init, followed by restarts of
// every node; random kill traces replay from their seed.
import { describe, expect, inject, it } from 'vitest';
import { CLUSTER_TRACE_FORMAT, COORDINATOR, schemaError } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { initialClusterState, observeCluster, type ClusterSetup } from '../../model/index.ts';
import { insertRow } from '../testFixtures.ts';
import { INIT_KILL_MAX_WRITE, INIT_KILL_ONE_IN, initKillWrites, KILL_NAME_DOMAINS, randomKillTraces } from './killJob.ts';
import { LINE_BREAKS } from '../generate/edges.ts';
import { commandWithData } from './killRun.ts';
import {
  crashAll,
  inFlightCandidates,
  isCrashPoint,
  killNoteAt,
  killsIn,
  modelAfter,
  startState,
  withInitKill,
  withKills,
} from './killTraces.ts';

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

  it('C2: with finalKill the last step is killed after its reply and every node restarted; crash points past crashPointKills go as plain requests', () => {
    const crash: ExternalAction = { type: 'crash', node: 'w1' };
    const restart: ExternalAction = { type: 'restart', node: 'w1' };
    const t = withKills(trace([crash, restart, crash, restart, rec('a')]), [], { crashPointKills: 1, finalKill: true });
    expect(t.steps.map((s) => [s.action.type, 'node' in s.action ? s.action.node : undefined, s.kill?.when])).toEqual([
      ['crash', 'w1', 'after-reply'],
      ['restart', COORDINATOR, undefined],
      ['restart', 'w2', undefined],
      ['restart', 'w1', undefined],
      ['crash', 'w1', undefined],
      ['restart', 'w1', undefined],
      ['record', undefined, 'after-reply'],
      ['restart', COORDINATOR, undefined],
      ['restart', 'w1', undefined],
      ['restart', 'w2', undefined],
    ]);
    expect(t.steps[6]?.note).toMatch(/^killed here, at the trace's end/);
    expect(killNoteAt(t, 6)).toBe(t.steps[6]?.note);
    // A last step killed already gets no second kill.
    const ending = withKills(trace([rec('a'), crash]), [], { finalKill: true });
    expect(ending.steps.filter((s) => s.kill !== undefined)).toHaveLength(1);
    expect(ending.steps[1]?.note).toMatch(/^killed here: after the reply/);
  });

  it('C11: after the restarts, the last install and release message of every key the trace sent one for are delivered again; none for a key without', () => {
    const two: ClusterTrace = {
      ...trace([
        rec('a'),
        { type: 'freeze', key: 'k1', to: 'w2' },
        { type: 'persist', key: 'k1' },
        { type: 'install', key: 'k1' },
        { type: 'crash', node: 'w2' },
        { type: 'restart', node: 'w2' },
        // The kill took the destination's installed copy with every node: installed again (C6).
        { type: 'install', key: 'k1' },
        { type: 'commit', key: 'k1' },
        { type: 'release', key: 'k1' },
        { type: 'crash', node: 'w1' },
      ]),
      config: { ...config, keys: [...config.keys, { key: 'k2', owner: 'w2' }] },
    };
    const t = withKills(two);
    const duplicatesAfter = (i: number): string[] =>
      t.steps
        .slice(i + 1)
        .flatMap((s) => (s.action.type.startsWith('duplicate') ? [`${s.action.type} ${'key' in s.action ? s.action.key : ''}`] : []));
    const kills = t.steps.flatMap((s, i) => (s.kill ? [i] : []));
    expect(kills).toHaveLength(2);
    // The first kill: an install was sent, no release yet; the second: both, and still none for k2.
    const first = duplicatesAfter(kills[0] as number).slice(
      0,
      duplicatesAfter(kills[0] as number).length - duplicatesAfter(kills[1] as number).length,
    );
    expect(first).toEqual(['duplicateInstall k1']);
    expect(duplicatesAfter(kills[1] as number)).toEqual(['duplicateInstall k1', 'duplicateRelease k1']);
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
      let state = startState(s, t);
      if (t.initKill !== undefined) {
        // A kill inside init takes every node: the trace starts with their restarts.
        expect(t.steps.slice(0, 1 + s.workers.length).map((x) => x.action)).toEqual(
          [COORDINATOR, ...s.workers].map((node) => ({ type: 'restart', node })),
        );
      }
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

describe('withInitKill', () => {
  it('C10: init killed at a write point: the trace starts as the crash of every node of the initial state, then restarts every node, the coordinator first, then the workers in config order', () => {
    const t = withInitKill(trace([rec('a')]), 2);
    expect(t.initKill?.write).toBe(2);
    expect(t.initKill?.note).toMatch(/^killed here, inside init: SIGKILL at durable write point 2 of init/);
    expect(t.steps.map((x) => x.action)).toEqual([
      { type: 'restart', node: COORDINATOR },
      { type: 'restart', node: 'w1' },
      { type: 'restart', node: 'w2' },
      rec('a'),
    ]);
    const s: ClusterSetup = { ...config, checkProperties: false };
    // Every node down, empty durable parts: the model's crash of every node of the initial state.
    const start = observeCluster(s, startState(s, t));
    expect(start.coordinator.up).toBe(false);
    expect(Object.values(start.workers).map((w) => w.status)).toEqual(['down', 'down']);
    expect(start.log).toBe(0);
    expect(observeCluster(s, startState(s, trace([])))).toEqual(observeCluster(s, initialClusterState(s)));
    // Kills placed afterwards (withKills) start from there: the restarts are enabled steps, the record is not a crash point.
    expect(withKills(t).steps).toEqual(t.steps);
    // Marked once: a second call leaves the trace as it is.
    expect(withInitKill(t, 3)).toBe(t);
  });

  it('a trace with a kill inside init (as run, answered or not) is a valid cluster trace (cluster-trace.schema.json)', () => {
    const t = withInitKill(trace([rec('a')]), 1);
    expect(schemaError('cluster-trace', t)).toBeUndefined();
    expect(schemaError('cluster-trace', { ...t, initKill: { write: 4, answered: true, note: 'x' } })).toBeUndefined();
    expect(schemaError('cluster-trace', { ...t, initKill: { write: 0 } })?.pointer).toBe('/initKill/write');
    expect(schemaError('cluster-trace', { ...t, initKill: {} })).toBeDefined();
  });
});

describe('randomKillTraces', () => {
  it(`C10: some random kill traces (seed ${seed}) are also killed inside init, at write points 1..${INIT_KILL_MAX_WRITE}, about one in ${INIT_KILL_ONE_IN}`, () => {
    const writes = initKillWrites(seed, 800).filter((w) => w !== undefined);
    // One in 8 of 800 is 100; the bounds are far out in the binomial's tails.
    expect(writes.length).toBeGreaterThan(60);
    expect(writes.length).toBeLessThan(140);
    expect(new Set(writes)).toEqual(new Set(Array.from({ length: INIT_KILL_MAX_WRITE }, (_, i) => i + 1)));
    // The traces get them: those drawn are killed inside init at that write point, the others are not.
    const traces = randomKillTraces(seed, 10);
    expect(traces.map((t) => t.initKill?.write)).toEqual(initKillWrites(seed, 10));
  });

  it(`C2, C11: in-flight kills go to every kind of step, and an install and a release are each killed at their first durable write with a duplicate after (seed ${seed}, 400 traces)`, () => {
    // Drawn over the steps, nearly all went to records (637 of 678 at seeds 1-30): no install or
    // release was ever killed between two writes, where a system that saves a step's phase and its
    // message apart shows it (conformance/testdata/splitMessages.py).
    const traces = randomKillTraces(seed, 400);
    const killable = new Map<string, number>();
    const killed = new Map<string, number>();
    const splitAndDuplicated = { install: 0, release: 0 };
    for (const t of traces) {
      const plain = {
        ...t,
        steps: t.steps.filter((s) => s.note !== 'restarted after the kill' && !s.note?.startsWith('the last message')),
      };
      for (const type of new Set(inFlightCandidates(plain).map((c) => c.type))) killable.set(type, (killable.get(type) ?? 0) + 1);
      t.steps.forEach((s, i) => {
        if (s.kill?.when !== 'in-flight') return;
        const action = s.action as ExternalAction;
        killed.set(action.type, (killed.get(action.type) ?? 0) + 1);
        if (s.kill.timing !== 'at-write' || s.kill.write !== 1) return;
        if (action.type !== 'install' && action.type !== 'release') return;
        const duplicate = action.type === 'install' ? 'duplicateInstall' : 'duplicateRelease';
        const later = t.steps.slice(i + 1).map((x) => x.action as ExternalAction);
        if (later.some((a) => a.type === duplicate && a.key === action.key)) splitAndDuplicated[action.type]++;
      });
    }
    const inFlight = [...killed.values()].reduce((a, b) => a + b, 0);
    for (const [type, traceCount] of killable) if (traceCount >= 60) expect(killed.get(type) ?? 0, type).toBeGreaterThan(0);
    expect(killed.get('record') ?? 0).toBeLessThan((inFlight * 2) / 3);
    expect(splitAndDuplicated.install).toBeGreaterThan(0);
    expect(splitAndDuplicated.release).toBeGreaterThan(0);
  });

  it(`J1, C2: every run's first traces are over the names a durable format must carry whole, one over each domain: line breaks, odd names, colliding names (seeds ${seed} and 1-8)`, () => {
    for (const s of [seed, 1, 2, 3, 4, 5, 6, 7, 8]) {
      const traces = randomKillTraces(s, 20);
      expect(traces).toHaveLength(20);
      KILL_NAME_DOMAINS.forEach((domain, i) => {
        const keys = (traces[i] as ClusterTrace).config.keys.map((k) => k.key);
        expect(keys, `seed ${s}, trace ${i + 1}`).toEqual(expect.arrayContaining([...domain.keys]));
        expect(keys).toHaveLength(domain.keys.length);
      });
      // Over the line breaks: the trace's records name them (J1: any non-empty string).
      const names = (traces[0] as ClusterTrace).steps.flatMap((st) =>
        st.action?.type === 'record' && st.action.record.kind !== 'watermark' ? [st.action.record.key, st.action.record.id] : [],
      );
      expect(
        names.some((x) => LINE_BREAKS.some((b) => x.includes(b))),
        `seed ${s}`,
      ).toBe(true);
    }
  });

  it(`replays from its seed (${seed}): the same traces, and at least one of them with a kill`, () => {
    const a = randomKillTraces(seed, 10);
    expect(randomKillTraces(seed, 10)).toEqual(a);
    const killed = a.filter((t) => killsIn(t).afterReply + killsIn(t).inFlight > 0).length;
    expect(killed).toBeGreaterThan(0);
    for (const t of a) {
      // At most 4 kills at crash points per trace, and one at its end (unless its last step is killed already).
      const atEnd = t.steps.filter((s) => s.note?.startsWith("killed here, at the trace's end")).length;
      expect(killsIn(t).afterReply - atEnd).toBeLessThanOrEqual(4);
      expect(atEnd).toBeLessThanOrEqual(1);
    }
    expect(a.filter((t) => t.steps.some((s) => s.note?.startsWith("killed here, at the trace's end"))).length).toBeGreaterThan(0);
  });
});

describe('commandWithData', () => {
  it('puts the directory, shell-quoted, at every {data}', () => {
    expect(commandWithData('serve --data {data} --x={data}', "/tmp/a b'c")).toBe(`serve --data '/tmp/a b'\\''c' --x='/tmp/a b'\\''c'`);
  });
});
