// Rules named by the earliest broken decision (issue 21, item 6): when
// several fields differ the report cites the rule that decides the
// earliest of them (outcome before changes before observation); events in
// another order cite C12; a store difference cites the rule of the action
// that wrote that checkpoint; an install that ignored its checkpoint cites
// C6 wherever its loss shows; and the one-line summary lists every
// differing field.
import { describe, expect, it } from 'vitest';
import type { AnyTrace, Change, ClusterConfig, ClusterEvent, ClusterTrace, ExternalAction, LogRecord, Outcome } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { modelSut } from '../sut/modelSut.ts';
import type { ClusterUnderTest } from '../sut/sut.ts';
import { compareClusterStep, modelClusterSteps } from '../lockstep/clusterLockstep.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { compareOperatorStep } from '../lockstep/operatorLockstep.ts';
import { runTrace } from '../lockstep/anyTrace.ts';
import { minimizeTrace } from '../lockstep/minimize.ts';
import { installsFresh, installsWithout } from '../testdata/installsFresh.ts';
import { explainDivergence, type Divergence } from './divergence.ts';

const explained = (facts: DivergenceFacts | undefined): Divergence => {
  if (!facts) throw new Error('no divergence');
  return explainDivergence(facts);
};

const config: ClusterConfig = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2'],
  keys: [
    { key: 'k1', owner: 'w1' },
    { key: 'k2', owner: 'w2' },
  ],
};
const observation = createModelCluster(config).observe();
const ins = (key: string, side: 'L' | 'R', id: string, ts = 5): LogRecord => ({
  kind: 'insert',
  key,
  side,
  id,
  ts,
  start: ts,
  end: ts + 1,
});
const record = (r: LogRecord): ExternalAction => ({ type: 'record', record: r });
const processed = (worker: string, key: string, index: number, outcome: Outcome, changes: Change[] = []): ClusterEvent => ({
  type: 'processed',
  worker,
  key,
  index,
  epoch: 1,
  outcome,
  changes,
  fenced: false,
});
const match: Change = { op: 'insert', match: 'k1/a/b', key: 'k1', left: 'a', right: 'b' };

/** A run of the model wrapped so that its observation lies after certain actions. */
const lyingAfter = (changeObservation: (action: ExternalAction, o: ReturnType<ClusterUnderTest['observe']>) => typeof o) =>
  inProcessSystem(
    {
      ...modelSut,
      implementation: { name: 'lying', version: '0' },
      cluster: (c) => {
        const inner = createModelCluster(c);
        let last: ExternalAction | undefined;
        return {
          apply: (a) => {
            last = a;
            return inner.apply(a);
          },
          observe: () => (last ? changeObservation(last, inner.observe()) : inner.observe()),
          close: () => inner.close(),
        };
      },
    },
    'lying',
  );

const trace = (actions: ExternalAction[]): ClusterTrace => ({
  format: 'streamjoin/cluster-trace@1',
  name: 't',
  config,
  steps: actions.map((action) => ({ action })),
});

describe('the rule of the earliest broken decision (issue 21, item 6)', () => {
  it('a processed event whose outcome and changes both differ cites the outcome (J2 for a duplicate), and the line names both fields', () => {
    const dup = ins('k1', 'R', 'b');
    const want = [processed('w1', 'k1', 2, { code: 'duplicate' })];
    const got = [processed('w1', 'k1', 2, { code: 'accepted' }, [match])];
    const d = explained(
      compareClusterStep(0, record(dup), { events: want, observation }, { reply: { events: got }, observation }, (i) =>
        i === 2 ? dup : undefined,
      ),
    );
    expect(d.refs.rules).toEqual(['J2']);
    expect(d.summary).toBe(
      'record insert k1/R/b ts=5 [5,6]: the events differ at [0] processed w1 k1 #2 e1 duplicate: ' +
        'outcome expected {"code":"duplicate"}, actual {"code":"accepted"}; changes unexpected +k1/a/b',
    );
  });

  it('the same events in another order cite C12 and §7 (eager order: first worker, then first key, in config order)', () => {
    const a = processed('w1', 'k1', 0, { code: 'accepted' });
    const b = processed('w2', 'k2', 0, { code: 'accepted' });
    const wm: ExternalAction = record({ kind: 'watermark', side: 'L', wm: 3 });
    const d = explained(compareClusterStep(0, wm, { events: [a, b], observation }, { reply: { events: [b, a] }, observation }));
    expect(d.refs.rules).toEqual(['C12', '§7']);
    expect(d.summary).toBe(
      "record watermark L=3: the events differ in order from [0] (eager processing's order, §7): " +
        'expected processed w1 k1 #0 e1 accepted, processed w2 k2 #0 e1 accepted; actual processed w2 k2 #0 e1 accepted, processed w1 k1 #0 e1 accepted',
    );
  });

  it('a store epoch that differs after a periodic checkpoint, in a trace without a handoff, cites C4 alone', async () => {
    const system = lyingAfter((a, o) =>
      a.type === 'checkpoint'
        ? { ...o, store: { ...o.store, k1: { ...(o.store.k1 as NonNullable<(typeof o.store)['k1']>), epoch: 2 } } }
        : o,
    );
    const t = trace([record(ins('k1', 'L', 'a')), { type: 'checkpoint', worker: 'w1', key: 'k1' }]);
    const d = explained(await runTrace(system, { kind: 'cluster', trace: t }, 'faults'));
    expect(d.step).toBe(1);
    expect(d.refs.rules).toEqual(['C4']);
    expect(d.summary).toBe('checkpoint w1 k1: the observation differs at /store/k1/epoch: expected 1, actual 2');
  });

  it('a store written by persist and lost by the time of the install cites C5 (the writer), then C4', async () => {
    const system = lyingAfter((a, o) => (a.type === 'install' ? { ...o, store: {} } : o));
    const t = trace([
      record(ins('k1', 'L', 'a')),
      { type: 'freeze', key: 'k1', to: 'w2' },
      { type: 'persist', key: 'k1' },
      { type: 'install', key: 'k1' },
    ]);
    const d = explained(await runTrace(system, { kind: 'cluster', trace: t }, 'cluster'));
    expect(d.step).toBe(3);
    expect(d.refs.rules).toEqual(['C5', 'C4']);
  });

  it('every differing observation path is in the line, in §7 order (workers before the store before the sink)', async () => {
    const system = lyingAfter((a, o) => (a.type === 'checkpoint' ? { ...o, sink: { ...o.sink, applied: 9 }, log: 7 } : o));
    const t = trace([{ type: 'checkpoint', worker: 'w1', key: 'k1' }]);
    const d = explained(await runTrace(system, { kind: 'cluster', trace: t }, 'cluster'));
    expect(d.summary).toBe('checkpoint w1 k1: the observation differs at /log: expected 0, actual 7; /sink/applied: expected 0, actual 9');
    expect(d.refs.rules[0]).toBe('C3');
  });

  it('at level operator the line lists outcome, changes and retained counts together; the rules are the outcome’s', () => {
    const r = ins('k', 'L', 'a');
    const d = explained(
      compareOperatorStep(
        0,
        r,
        { outcome: { code: 'duplicate' }, changes: [], retained: { live: 1, tombstones: 0, matches: 0 } },
        {
          outcome: { code: 'accepted' },
          changes: [{ ...match, key: 'k', match: 'k/a/b' }],
          retained: { live: 2, tombstones: 0, matches: 1 },
        },
      ),
    );
    expect(d.field).toBe('outcome');
    expect(d.refs.rules).toEqual(['J2']);
    expect(d.summary).toBe(
      'record insert k/L/a ts=5 [5,6]: outcome expected {"code":"duplicate"}, actual {"code":"accepted"}; ' +
        'the change set differs: unexpected insert k/a/b; retained counts expected {"live":1,"tombstones":0,"matches":0}, actual {"live":2,"tombstones":0,"matches":1}',
    );
  });
});

describe('an install that ignores its checkpoint cites C6 where its loss shows (issue 21, item 5)', () => {
  const handoff: ExternalAction[] = [
    { type: 'freeze', key: 'k1', to: 'w2' },
    { type: 'persist', key: 'k1' },
    { type: 'install', key: 'k1' },
    { type: 'commit', key: 'k1' },
  ];

  it('an install that restores the wrong cursor cites C6 first (install says what it restores), a failover C4 first (it defers to C4)', () => {
    const restored = (cursor: number): ClusterEvent => ({ type: 'restored', worker: 'w2', key: 'k1', cursor, epoch: 2 });
    const at = (action: ExternalAction) =>
      explained(compareClusterStep(0, action, { events: [restored(2)], observation }, { reply: { events: [restored(0)] }, observation }))
        .refs.rules;
    expect(at({ type: 'install', key: 'k1' })).toEqual(['C6', 'C4']);
    expect(at({ type: 'failover', key: 'k1', to: 'w2' })).toEqual(['C4', 'C8']);
    expect(at({ type: 'restart', node: 'w2' })).toEqual(['C4', 'C10']);
  });

  it('rows lost: at the install, in the copy’s retained counts, citing C6 first', async () => {
    const t = trace([record(ins('k1', 'L', 'a')), ...handoff]);
    const d = explained(await runTrace(inProcessSystem(installsFresh), { kind: 'cluster', trace: t }, 'cluster'));
    expect(d.step).toBe(3);
    expect(d.diff.map((x) => x.path)).toEqual(['/workers/w2/keys/k1/retained/live']);
    expect(d.refs.rules[0]).toBe('C6');
  });

  it('watermarks lost: at the first insert late under them, citing C6 before the lateness rule J5, and naming the install', async () => {
    const t = trace([
      record({ kind: 'watermark', side: 'L', wm: 20 }),
      record({ kind: 'watermark', side: 'R', wm: 20 }),
      ...handoff,
      record(ins('k1', 'L', 'a', 5)),
    ]);
    // The model: the insert is late at w2 (its watermarks came with the checkpoint).
    const model = modelClusterSteps(t).at(-1);
    expect(model && 'events' in model && model.events.some((e) => e.type === 'processed' && e.outcome.code === 'late')).toBe(true);
    const d = explained(await runTrace(inProcessSystem(installsFresh), { kind: 'cluster', trace: t }, 'cluster'));
    expect(d.step).toBe(6);
    expect(d.refs.rules).toEqual(['C6', 'C4', 'J5']);
    expect(d.summary).toContain(
      "as if the install at step 5 (install k1) had given w2 an empty copy of k1, without its checkpoint's state (C6), or from a checkpoint that lacked it (C4)",
    );
  });

  it('only the watermarks lost (rows kept): C6, C4 and C2 (a copy’s watermarks are part of its state), before J5', async () => {
    const t = trace([
      record(ins('k1', 'L', 'a', 30)),
      record({ kind: 'watermark', side: 'L', wm: 20 }),
      record({ kind: 'watermark', side: 'R', wm: 20 }),
      ...handoff,
      record(ins('k1', 'L', 'b', 5)),
    ]);
    const d = explained(await runTrace(inProcessSystem(installsWithout('watermarks')), { kind: 'cluster', trace: t }, 'cluster'));
    expect(d.step).toBe(7);
    expect(d.refs.rules).toEqual(['C6', 'C4', 'C2', 'J5']);
    expect(d.summary).toContain('without the watermarks of its checkpoint');
  });

  it('minimized, the counterexample keeps the install only when the install is to blame: C6 for it, J5 alone for a system wrong about lateness everywhere', async () => {
    // Lateness ignored at every copy: the insert is accepted with or without a handoff before it.
    const lax = inProcessSystem({
      ...modelSut,
      implementation: { name: 'lax', version: '0' },
      cluster: (c) => createModelCluster({ ...c, join: { ...c.join, allowedLateness: 1000 } }),
    });
    const t: AnyTrace = {
      kind: 'cluster',
      trace: trace([
        record({ kind: 'watermark', side: 'L', wm: 20 }),
        record({ kind: 'watermark', side: 'R', wm: 20 }),
        ...handoff,
        record(ins('k1', 'L', 'a', 5)),
      ]),
    };
    const minimal = async (system: typeof lax) => {
      const found = await runTrace(system, t, 'cluster');
      const m = await minimizeTrace(system, 'cluster', t, found as DivergenceFacts);
      return { steps: m.trace.trace.steps.length, d: explainDivergence(m.divergence) };
    };
    // Both explain the unminimized trace's last step alike (a fresh copy accepts the insert too): minimizing tells them apart.
    const wrongLateness = await minimal(lax);
    expect(wrongLateness.steps).toBe(3);
    expect(wrongLateness.d.refs.rules).toEqual(['J5']);
    const fresh = await minimal(inProcessSystem(installsFresh));
    expect(fresh.steps).toBe(7);
    expect(fresh.d.refs.rules).toEqual(['C6', 'C4', 'J5']);
  });
});
