import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Change, ClusterConfig, ClusterEvent, ExternalAction, LogRecord, Outcome, RetainedCounts } from '../../spec/index.ts';
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { compareClusterStep } from '../lockstep/clusterLockstep.ts';
import type { DivergenceFacts, ExpectedClusterStep } from '../sut/divergence.ts';
import { compareOperatorStep } from '../lockstep/operatorLockstep.ts';
import { levelOfClusterTrace, runTrace } from '../lockstep/anyTrace.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { MUTANTS } from '../mutants/catalogue.ts';
import { mutantSut } from '../adapters/mutantSut.ts';
import { explainDivergence, type Divergence } from './divergence.ts';
import { describeDivergence } from '../views/explain.ts';
import { isSpecMatchId } from './rules.ts';

const none: RetainedCounts = { live: 0, tombstones: 0, matches: 0 };
const ins = (id: string, side: 'L' | 'R' = 'L', ts = 5, start = 5, end = 7): LogRecord => ({
  kind: 'insert',
  key: 'k',
  side,
  id,
  ts,
  start,
  end,
});
const ret = (id: string, side: 'L' | 'R' = 'L', ts = 5, start = 5, end = 7): LogRecord => ({
  kind: 'retract',
  key: 'k',
  side,
  id,
  ts,
  start,
  end,
});
const wm = (side: 'L' | 'R', w: number): LogRecord => ({ kind: 'watermark', side, wm: w });
const change = (op: Change['op'], left: string, right: string, match = `k/${left}/${right}`): Change => ({
  op,
  match,
  key: 'k',
  left,
  right,
});
const accepted: Outcome = { code: 'accepted' };

/** What lockstep found at one step, explained (report/divergence.ts). */
function explained(facts: DivergenceFacts | undefined): Divergence {
  if (!facts) throw new Error('no divergence');
  return explainDivergence(facts);
}

/** The refs of one operator step where the system answers `actual` instead of `expected`. */
function operatorRefs(
  record: LogRecord,
  expected: { outcome: Outcome; changes?: Change[]; retained?: RetainedCounts },
  actual: { outcome: Outcome; changes?: Change[]; retained?: RetainedCounts },
) {
  const e = { outcome: expected.outcome, changes: expected.changes ?? [], retained: expected.retained ?? none };
  const a = { outcome: actual.outcome, changes: actual.changes ?? [], retained: actual.retained ?? none };
  return explained(compareOperatorStep(0, record, e, a)).refs;
}

describe('a divergence cites the rules that decide the differing field for the action at hand (SPEC J1–J8)', () => {
  it("a retract's wrong changes cite J6; an insert's cite J3; ids not written as J3 says cite J3 for either", () => {
    expect(operatorRefs(ret('a'), { outcome: accepted, changes: [change('retract', 'a', 'b')] }, { outcome: accepted }).rules).toEqual([
      'J6',
    ]);
    expect(operatorRefs(ins('a'), { outcome: accepted, changes: [change('insert', 'a', 'b')] }, { outcome: accepted }).rules).toEqual([
      'J3',
    ]);
    const escaped = change('retract', 'a/x', 'b', 'k/a%2Fx/b');
    const naive = change('retract', 'a/x', 'b', 'k/a/x/b');
    expect(operatorRefs(ret('a/x'), { outcome: accepted, changes: [escaped] }, { outcome: accepted, changes: [naive] }).rules).toEqual([
      'J6',
      'J3',
    ]);
    expect(isSpecMatchId('k/a%2Fx/b')).toBe(true);
    expect(isSpecMatchId('k/a/x/b')).toBe(false);
    expect(isSpecMatchId('k/a%x/b')).toBe(false);
    // Changes where none are allowed (a duplicate has none, J7).
    expect(
      operatorRefs(ins('a'), { outcome: { code: 'duplicate' } }, { outcome: { code: 'duplicate' }, changes: [change('insert', 'a', 'b')] })
        .rules,
    ).toEqual(['J7']);
  });

  it(
    'a wrong outcome cites the rule of each outcome: identity and conflict J2, lateness J5 or ' +
      'J6 by kind, staleness J4, validity J1 with its check, and J7 when two checks compete',
    () => {
      const conflict: Outcome = { code: 'rejected', reason: 'conflict' };
      expect(operatorRefs(ins('a'), { outcome: conflict }, { outcome: accepted }).rules).toEqual(['J2']);
      expect(operatorRefs(ins('a'), { outcome: { code: 'duplicate' } }, { outcome: accepted }).rules).toEqual(['J2']);
      expect(operatorRefs(ret('a'), { outcome: { code: 'duplicate' } }, { outcome: accepted }).rules).toEqual(['J6', 'J2']);
      expect(operatorRefs(ins('a'), { outcome: accepted }, { outcome: { code: 'late' } }).rules).toEqual(['J5']);
      expect(operatorRefs(ret('a'), { outcome: accepted }, { outcome: { code: 'late' } }).rules).toEqual(['J6']);
      expect(operatorRefs(wm('L', 3), { outcome: { code: 'stale' } }, { outcome: accepted }).rules).toEqual(['J4']);
      const before: Outcome = { code: 'rejected', reason: 'ts_before_start' };
      const after: Outcome = { code: 'rejected', reason: 'ts_after_end' };
      expect(operatorRefs(ins('a', 'L', 5, 6, 4), { outcome: before }, { outcome: after })).toEqual({
        rules: ['J1', 'J7'],
        properties: ['JoinCorrect'],
        checks: ['J1 check 5 (ts_before_start)', 'J1 check 6 (ts_after_end)'],
      });
      expect(operatorRefs(ins('a', 'L', 5, 6, 4), { outcome: before }, { outcome: accepted }).checks).toEqual([
        'J1 check 5 (ts_before_start)',
      ]);
      expect(operatorRefs(ins('a'), { outcome: { code: 'late' } }, { outcome: conflict }).rules).toEqual(['J5', 'J2', 'J7']);
    },
  );

  it('wrong retained counts cite J8 after a watermark, the binding after an insert (J2) or a retract (J6)', () => {
    expect(operatorRefs(wm('R', 9), { outcome: accepted, retained: { ...none, live: 1 } }, { outcome: accepted }).rules).toEqual(['J8']);
    expect(operatorRefs(ins('a'), { outcome: accepted, retained: { ...none, live: 1 } }, { outcome: accepted }).rules).toEqual([
      'J2',
      'J8',
    ]);
    expect(operatorRefs(ret('a'), { outcome: accepted, retained: { ...none, tombstones: 1 } }, { outcome: accepted }).rules).toEqual([
      'J6',
      'J8',
    ]);
  });
});

const cluster: ClusterConfig = {
  join: { allowedLateness: 1, maxIntervalLength: 2 },
  workers: ['w1', 'w2'],
  keys: [{ key: 'k', owner: 'w1' }],
};
const observation = createModelCluster(cluster).observe();

function clusterStep(action: ExternalAction, expected: ExpectedClusterStep, reply: ExpectedClusterStep, log: LogRecord[] = []) {
  const actual = 'error' in reply ? { error: { code: PROTOCOL_ERRORS.not_enabled, text: reply.error } } : { events: reply.events };
  return explained(compareClusterStep(0, action, expected, { reply: actual, observation: reply.observation }, (i) => log[i]));
}

describe('a cluster divergence cites the guard or the event rule of the action at hand (SPEC C3–C11)', () => {
  it("a wrong refusal cites the guard's rule, and C10 when a node being down or paused decides", () => {
    const carriedOut = (action: ExternalAction, why: string) =>
      clusterStep(action, { error: why, observation }, { events: [], observation }).refs.rules;
    expect(carriedOut({ type: 'install', key: 'k' }, 'no migration of k awaits install')).toEqual(['C6', '§7']);
    expect(carriedOut({ type: 'install', key: 'k' }, 'w2 is not up')).toEqual(['C6', 'C10', '§7']);
    expect(carriedOut({ type: 'freeze', key: 'k', to: 'w2' }, 'w2 already owns k')).toEqual(['C5', '§7']);
    expect(carriedOut({ type: 'release', key: 'k' }, 'no handoff of k awaits release')).toEqual(['C7', '§7']);
    expect(carriedOut({ type: 'failover', key: 'k', to: 'w2' }, 'the owner w1 is up')).toEqual(['C8', 'C10', '§7']);
    expect(carriedOut({ type: 'duplicateRelease', key: 'k' }, 'no release of k was ever sent')).toEqual(['C11', 'C7', '§7']);
    expect(carriedOut({ type: 'checkpoint', worker: 'w1', key: 'k' }, 'w1 holds no active copy of k')).toEqual(['C4', '§7']);
    const refused = clusterStep({ type: 'commit', key: 'k' }, { events: [], observation }, { error: 'nope', observation });
    expect(refused.refs.rules).toEqual(['C7', '§7']);
  });

  it("events of different kinds: the summary names both kinds, and the rules are each kind's and the action's", () => {
    const fenced: ClusterEvent = { type: 'dropped', worker: 'w1', key: 'k', reason: 'fenced' };
    const restored: ClusterEvent = { type: 'restored', worker: 'w2', key: 'k', cursor: 0, epoch: 2 };
    const d = clusterStep({ type: 'resume', worker: 'w1' }, { events: [fenced], observation }, { events: [], observation });
    expect(d.summary).toBe('resume w1: the events differ at [0]: expected dropped w1 k (fenced), actual no event');
    expect(d.refs.rules).toEqual(['C9', 'C10']);
    const e = clusterStep({ type: 'failover', key: 'k', to: 'w2' }, { events: [restored], observation }, { events: [fenced], observation });
    expect(e.summary).toBe('failover k -> w2: the events differ at [0]: expected restored w2 k @0 e2, actual dropped w1 k (fenced)');
    expect(e.refs.rules).toEqual(['C4', 'C9', 'C8', 'C12']);
    expect(describeDivergence(e)).not.toContain('(absent)');
    const cursor = clusterStep(
      { type: 'restart', node: 'w2' },
      { events: [restored], observation },
      { events: [{ ...restored, cursor: 1 }], observation },
    );
    expect(cursor.summary).toBe('restart w2: the events differ at [0] restored w2 k @0 e2: cursor expected 0, actual 1');
    expect(cursor.refs.rules).toEqual(['C4', 'C10']);
  });

  it('a processed event cites the rules of the record it applies: a retract J6, an insert J3, a fenced write C9', () => {
    const log = [ins('a'), ins('b', 'R'), ret('a')];
    const processed = (index: number, changes: Change[], fenced = false): ClusterEvent => ({
      type: 'processed',
      worker: 'w1',
      key: 'k',
      index,
      epoch: 1,
      outcome: accepted,
      changes,
      fenced,
    });
    const record = (r: LogRecord): ExternalAction => ({ type: 'record', record: r });
    const at = (index: number, want: Change[], got: Change[], fenced = false) =>
      clusterStep(
        record(log[index] as LogRecord),
        { events: [processed(index, want)], observation },
        { events: [processed(index, got, fenced)], observation },
        log,
      ).refs.rules;
    expect(at(2, [change('retract', 'a', 'b')], [])).toEqual(['J6']);
    expect(at(1, [change('insert', 'a', 'b')], [])).toEqual(['J3']);
    expect(at(1, [], [], true)).toEqual(['C9']);
  });
});

/**
 * What each mutant's kept counterexample cites, earliest decision first
 * (issue 21, item 6): the mutant's own rule, then the others the
 * differing fields touch.
 */
const CITED: Readonly<Record<string, readonly string[]>> = {
  'commit-before-durable-checkpoint': ['C5', 'C4'],
  'no-fencing': ['C9'],
  'replay-from-older-checkpoint-without-dedup': ['C4', 'C8'],
  'eviction-at-ts-plus-lateness': ['J8'],
  'match-dropped-with-one-endpoint': ['J8'],
  'retraction-held-to-insert-lateness': ['J6'],
  'overtaking-retract-dropped': ['J6', 'J8'],
  'sink-fence-from-caller-epochs': ['C9'],
  'last-writer-wins-sink': ['C9'],
  'ambiguous-match-ids': ['J3'],
  'reversed-interval-swapped': ['J1'],
  'frozen-key-events-in-coordinator-memory': ['C3'],
  'off-by-one-eviction': ['J8'],
};

describe("each catalogue mutant's counterexample cites the mutant's rule first", () => {
  it('the kept counterexample of every mutant (its regression trace), run against the mutant, diverges citing Mutant.rule first', async () => {
    expect(Object.keys(CITED).sort()).toEqual(MUTANTS.map((m) => m.name).sort());
    for (const m of MUTANTS) {
      const trace = loadCheckedTrace(join(import.meta.dirname, '..', 'mutants', 'regressions', `${m.regression}.trace.json`));
      const level = trace.kind === 'operator' ? 'operator' : levelOfClusterTrace(trace.trace);
      const found = await runTrace(inProcessSystem(await mutantSut(m)), trace, level);
      const d = found && explainDivergence(found);
      expect(d?.refs.rules[0], `${m.name}: ${d?.summary}`).toBe(m.rule);
      expect(d?.refs.rules, `${m.name}: ${d?.summary}`).toEqual(CITED[m.name]);
    }
  });
});
