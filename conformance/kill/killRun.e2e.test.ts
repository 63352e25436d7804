// Kill mode against `streamjoin serve --data` (PROTOCOL.md, "Kill mode"):
// an in-flight kill is resolved by what the system shows after the restart,
// both ways (Jepsen's indefinite outcome): a request the stopped process
// never read is lost, one it answered is applied (C2, C3: an acknowledged
// record is durable). A system that keeps its "durable" parts in memory
// fails at its first kill, and one that cannot read back what a kill left
// fails there too. The end-to-end tier: it kills processes.
import { describe, expect, it } from 'vitest';
import { CLUSTER_TRACE_FORMAT } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { explainDivergence } from '../report/divergence.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { inFlightTrace } from './killFixtures.ts';
import { runKillTrace } from './killRun.ts';
import { withKills } from './killTraces.ts';

const SERVE = 'node bin/streamjoin.js serve --data {data}';
const EXAMPLE = 'python3 examples/python/join.py --data {data}';
/** The example whose inspect answers one request late (testdata/staleInspect.py). */
const STALE_INSPECT = 'python3 conformance/testdata/staleInspect.py --data {data}';
/** The example with state.json rewritten in place (testdata/tornState.py). */
const TORN_STATE = 'python3 conformance/testdata/tornState.py --data {data}';
/** The example answering each request before it writes it (testdata/replyFirst.py). */
const REPLY_FIRST = 'python3 conformance/testdata/replyFirst.py --data {data}';
/** `serve` without --data: its durable parts in memory; the directory is named, and ignored. */
const IN_MEMORY = 'env STREAMJOIN_IGNORED_DIR={data} node bin/streamjoin.js serve';

describe('kill mode: an in-flight kill, resolved by observation', () => {
  it('the request the stopped process never read: resolved lost, and the steps after it conform to the run of the model from the state before it', async () => {
    const r = await runKillTrace(inFlightTrace('unread'), { command: SERVE });
    expect(r.divergence).toBeUndefined();
    expect(r.trace.steps[2]?.kill).toEqual({ when: 'in-flight', timing: 'unread', resolved: 'lost' });
    expect(r.trace.steps[2]?.note).toMatch(/resolved: lost/);
    expect(r.kills).toEqual({ afterReply: 0, inFlightLost: 1, inFlightApplied: 0, inFlightPartly: 0, inInit: 0 });
    expect(r.restartMs).toHaveLength(1);
  });

  it('the request it answered (the reply left unread): resolved applied, C2: the record is in the log after the restart', async () => {
    const r = await runKillTrace(inFlightTrace('answered'), { command: SERVE });
    expect(r.divergence).toBeUndefined();
    expect(r.trace.steps[2]?.kill).toEqual({ when: 'in-flight', timing: 'answered', resolved: 'applied' });
    expect(r.kills).toEqual({ afterReply: 0, inFlightLost: 0, inFlightApplied: 1, inFlightPartly: 0, inInit: 0 });
  });

  it('killed inside its own writes (STREAMJOIN_KILL_AT_WRITE): the log line half written is cut off (lost), the record appended but its match not yet in the sink (partly), the sink write synced (applied)', async () => {
    // A record that makes a match: its durable writes are the log append (half a line, synced), then the sink's (the same two points).
    const at = async (write: number): Promise<string | undefined> => {
      const r = await runKillTrace(inFlightTrace('at-write', write), { command: SERVE });
      expect(r.divergence, `write ${write}`).toBeUndefined();
      return r.trace.steps[2]?.kill?.resolved;
    };
    expect(await at(1)).toBe('lost');
    expect(await at(2)).toBe('partly');
    expect(await at(4)).toBe('applied');
  });

  it('a system run through a shell that outlives it (a compound command) and kills itself at a write point: the kill it was asked for, not "cannot be judged"', async () => {
    // The shell exits with 137 (128 + SIGKILL) for the system it ran; before, that read as a death of its own.
    const r = await runKillTrace(inFlightTrace('at-write', 1), { command: 'cd examples/python && python3 join.py --data {data}' });
    expect(r.divergence).toBeUndefined();
    expect(r.trace.steps[2]?.kill?.resolved).toBe('lost');
  });

  it('C2: a request answered before the kill inside its writes was acknowledged: a system that answers first and writes after diverges at the first write points (the correct example never)', async () => {
    // Writes 1 and 2: the record's journal line not yet whole. (At its last write points the deferred writes may all
    // be done before the harness's own kill after the reply: a race the later write points lose or win.)
    for (const write of [1, 2]) {
      const wrong = await runKillTrace(inFlightTrace('at-write', write), { command: REPLY_FIRST });
      expect(wrong.divergence?.step, `write ${write}`).toBe(2);
      expect(wrong.killed, `write ${write}`).toBe(true);
      // What the restart shows lacks some of the answered record: its log line, or its match in the sink.
      expect(wrong.divergence?.field, `write ${write}`).toBe('observation');
      const right = await runKillTrace(inFlightTrace('at-write', write), { command: EXAMPLE });
      expect(right.divergence, `write ${write}`).toBeUndefined();
    }
  });

  it('C2, C10: a system that cannot read back what a kill left (state.json rewritten in place, torn between its halves) diverges at the kill, its re-attach refused: a fail, not "cannot be judged"', async () => {
    const persistKilled: ClusterTrace = {
      format: CLUSTER_TRACE_FORMAT,
      name: 'torn-state',
      config: { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
      steps: [
        { action: { type: 'freeze', key: 'k1', to: 'w2' } },
        { action: { type: 'persist', key: 'k1' }, kill: { when: 'in-flight', timing: 'at-write', write: 1 } },
      ],
    };
    const torn = await runKillTrace(persistKilled, { command: TORN_STATE });
    expect(torn.divergence?.step).toBe(1);
    expect(torn.killed).toBe(true);
    const at = torn.divergence?.at;
    expect(at?.level === 'cluster' ? at.reattachFailed : undefined).toMatch(/^init at level faults refused with internal_error/);
    const explained = explainDivergence(torn.divergence as DivergenceFacts);
    expect(explained.summary).toMatch(/^persist k1, killed here: the system could not re-attach after the kill/);
    expect(explained.refs.rules).toEqual(['C2', 'C10']);
    // The example it is made from writes a temporary file and renames it: the same kill, no divergence.
    expect((await runKillTrace(persistKilled, { command: EXAMPLE })).divergence).toBeUndefined();
  });

  it("§7: the kill after a trace's last step judges that step's observation first (observed): a system whose inspect lags one request, right on disk, diverges there; killed right after the reply it would pass", async () => {
    const oneRecord: ClusterTrace = {
      format: CLUSTER_TRACE_FORMAT,
      name: 'stale-inspect',
      config: { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1'], keys: [{ key: 'k1', owner: 'w1' }] },
      steps: [{ action: { type: 'record', record: { kind: 'watermark', side: 'L', wm: 5 } } }],
    };
    const ended = withKills(oneRecord, [], { finalKill: true });
    expect(ended.steps[0]?.kill).toEqual({ when: 'after-reply', observed: true });
    const judged = await runKillTrace(ended, { command: STALE_INSPECT });
    expect(judged.divergence?.step).toBe(0);
    expect(judged.divergence?.field).toBe('observation');
    expect(judged.killed).toBeUndefined();
    // The same kill right after the reply, the trace ending there: the step's observation is never asked for, and the
    // recovery is right (the restarts after it would show the lag: each is observed).
    const unobserved: ClusterTrace = {
      ...oneRecord,
      steps: [{ ...oneRecord.steps[0], action: oneRecord.steps[0]?.action as ExternalAction, kill: { when: 'after-reply' } }],
    };
    expect((await runKillTrace(unobserved, { command: STALE_INSPECT })).divergence).toBeUndefined();
  });

  it('a system whose durable parts are in memory diverges at the kill: after the restart its nodes are up and its log empty (C2, C10)', async () => {
    const r = await runKillTrace(inFlightTrace('answered'), { command: IN_MEMORY });
    expect(r.divergence?.step).toBe(2);
    expect(r.killed).toBe(true);
    expect(r.divergence?.field).toBe('observation');
    const paths = r.divergence?.diff.map((d) => d.path) ?? [];
    expect(paths).toContain('/log');
    expect(paths).toContain('/coordinator/up');
  });
});

describe('kill mode: a valid config refused at init (J0, C1)', () => {
  /** The example that divides by D (testdata/divideByD.py): a config with D = 0 is refused at init. */
  const DIVIDE_BY_D = 'python3 conformance/testdata/divideByD.py --data {data}';
  const traceWithD = (D: number): ClusterTrace => ({
    format: CLUSTER_TRACE_FORMAT,
    name: `d-${D}`,
    config: { join: { allowedLateness: 1, maxIntervalLength: D }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    steps: [
      { action: { type: 'record', record: { kind: 'insert', key: 'k1', side: 'L', id: 'a', ts: 1, start: 1, end: 1 } } },
      { action: { type: 'crash', node: 'w1' }, kill: { when: 'after-reply' } },
      { action: { type: 'restart', node: 'w1' } },
    ],
  });

  it('the trace fails at its first step, never sent in a session, its summary quoting the config: a fail, not "cannot be judged"', async () => {
    const r = await runKillTrace(traceWithD(0), { command: DIVIDE_BY_D });
    expect(r.divergence?.step).toBe(0);
    const explained = explainDivergence(r.divergence as DivergenceFacts);
    expect(explained.summary).toMatch(
      /never sent, because the session's init at level faults refused with internal_error: ZeroDivisionError.*\(a valid config, J0 and C1: \{"join":\{"allowedLateness":1,"maxIntervalLength":0\}/,
    );
    expect(explained.refs.rules).toEqual(['J0', 'C1']);
  });

  it('the same system with D = 1 conforms through the kill', async () => {
    const r = await runKillTrace(traceWithD(1), { command: DIVIDE_BY_D });
    expect(r.divergence).toBeUndefined();
    expect(r.kills.afterReply).toBe(1);
  });

  /** The same bug, the process exiting at that init instead of answering (an uncaught error). */
  const DIES_ON_D = 'python3 conformance/testdata/divideByD.py --die --data {data}';
  it('a process that dies at that init, and again in a fresh process, fails the trace at its first step (J0 first), whether or not that step is killed: a fail, not "cannot be judged"', async () => {
    const firstKilled = (t: ClusterTrace): ClusterTrace => ({
      ...t,
      steps: t.steps.map((s, i) => (i === 0 ? { ...s, kill: { when: 'after-reply' as const } } : s)),
    });
    for (const trace of [traceWithD(0), firstKilled(traceWithD(0))]) {
      const r = await runKillTrace(trace, { command: DIES_ON_D });
      expect(r.divergence?.step, trace.name).toBe(0);
      expect(r.divergence?.actual).toMatchObject({
        died: expect.stringMatching(/exited with code 3 .*before the session's init was answered/),
      });
      const explained = explainDivergence(r.divergence as DivergenceFacts);
      expect(explained.summary).toMatch(/and again when the trace was run once more up to it, in a fresh process/);
      expect(explained.refs.rules[0]).toBe('J0');
    }
    const passes = await runKillTrace(traceWithD(1), { command: DIES_ON_D });
    expect(passes.divergence).toBeUndefined();
  });
});
