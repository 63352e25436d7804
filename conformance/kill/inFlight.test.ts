// The states a request killed in flight may leave (inFlight.ts, PROTOCOL.md
// "Kill mode"): before it, after it, or a model state in between (SPEC §7:
// process steps are actions of their own; C7: the fence before the
// ownership part), each after the crash of every node (C10).
import { describe, expect, it } from 'vitest';
import type { ClusterConfig, ExternalAction } from '../../spec/index.ts';
import { applyExternal, initialClusterState, observeCluster, type ClusterSetup } from '../../model/index.ts';
import { insertRow } from '../testFixtures.ts';
import { inFlightCandidates, resolveInFlight } from './inFlight.ts';
import { crashAll } from './killTraces.ts';

const config: ClusterConfig = {
  join: { allowedLateness: 2, maxIntervalLength: 2 },
  workers: ['w1', 'w2'],
  keys: [{ key: 'k1', owner: 'w1' }],
};
const setup: ClusterSetup = { ...config, checkProperties: false };
const rec = (id: string, side: string): ExternalAction => ({ type: 'record', record: insertRow('k1', side, id, 1, 2) });

describe('inFlightCandidates', () => {
  const before = applyExternal(setup, initialClusterState(setup), rec('a', 'L')).state;
  const candidates = inFlightCandidates(setup, before, rec('b', 'R'));

  it('a record that makes a match: lost, applied (the match in the sink), and partly (appended, not processed: no match)', () => {
    expect(candidates.map((c) => c.resolved)).toEqual(['lost', 'applied', 'partly']);
    const [lost, applied, partly] = candidates.map((c) => observeCluster(setup, c.state));
    expect([lost?.log, applied?.log, partly?.log]).toEqual([1, 2, 2]);
    expect(applied?.sink.matches).toEqual({ 'k1/a/b': 'inserted' });
    expect(partly?.sink.matches).toEqual({});
    // C10: every node down in each.
    for (const o of [lost, applied, partly])
      expect([o?.coordinator.up, o?.workers['w1']?.status, o?.workers['w2']?.status]).toEqual([false, 'down', 'down']);
  });

  it('resolves an observation to the candidates it equals, and to none for a state the model never has', () => {
    const applied = crashAll(setup, applyExternal(setup, before, rec('b', 'R')).state);
    expect(resolveInFlight(setup, candidates, observeCluster(setup, applied)).map((c) => c.resolved)).toEqual(['applied']);
    const wrong = { ...observeCluster(setup, applied), log: 7 };
    expect(resolveInFlight(setup, candidates, wrong)).toEqual([]);
  });

  it('C7: a commit may stop between the fence and the ownership part', () => {
    let s = before;
    for (const a of [
      { type: 'freeze', key: 'k1', to: 'w2' },
      { type: 'persist', key: 'k1' },
      { type: 'install', key: 'k1' },
    ] as const)
      s = applyExternal(setup, s, a).state;
    const c = inFlightCandidates(setup, s, { type: 'commit', key: 'k1' });
    const fenced = c.filter((x) => x.resolved === 'partly').map((x) => observeCluster(setup, x.state));
    expect(fenced.some((o) => o.coordinator.handoff?.phase === 'fenced' && o.sink.fence['k1'] === 2)).toBe(true);
  });

  it('an action the model refuses leaves only the state before it', () => {
    expect(inFlightCandidates(setup, before, { type: 'persist', key: 'k1' }).map((c) => c.resolved)).toEqual(['lost']);
  });

  it('C6, C11: an install retried while the store moved on leaves two states one observation shows, told apart by a duplicate', () => {
    // A zombie (C10) reads a record the frozen source skips, then checkpoints (C4): the retry sends a newer checkpoint.
    const three: ClusterSetup = { ...setup, workers: ['w1', 'w2', 'w3'] };
    let s = initialClusterState(three);
    for (const a of [
      rec('a', 'L'),
      { type: 'pause', worker: 'w1' },
      { type: 'failover', key: 'k1', to: 'w2' },
      { type: 'resume', worker: 'w1' },
      { type: 'freeze', key: 'k1', to: 'w3' },
      { type: 'persist', key: 'k1' },
      rec('b', 'L'),
      { type: 'install', key: 'k1' },
      { type: 'checkpoint', worker: 'w1', key: 'k1' },
    ] as const)
      s = applyExternal(three, s, a).state;
    const retry: ExternalAction = { type: 'install', key: 'k1' };
    const candidates = inFlightCandidates(three, s, retry);
    const applied = crashAll(three, applyExternal(three, s, retry).state);
    const shown = resolveInFlight(three, candidates, observeCluster(three, applied));
    expect(shown.map((c) => c.resolved)).toEqual(['lost', 'applied']);
    // After the restarts, a duplicate install restores the message each one last sent: cursor 1, or the zombie's 2.
    const cursors = shown.map((c) => {
      let t = c.state;
      for (const node of ['coordinator', 'w1', 'w2', 'w3']) t = applyExternal(three, t, { type: 'restart', node }).state;
      const events = applyExternal(three, t, { type: 'duplicateInstall', key: 'k1' }).events;
      return events.flatMap((e) => (e.type === 'restored' ? [e.cursor] : []));
    });
    expect(cursors).toEqual([[1], [2]]);
  });
});
