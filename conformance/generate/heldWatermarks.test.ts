// C6, C8, C10 with C2 (a copy's watermarks are part of its state): every
// restore in random cluster traces, and each kind of restore in the
// scenarios that carry held state with the held watermark sent again,
// restores a copy whose watermarks a later step depends on. The copy
// restored without them (an install's copy emptied of its watermarks, or the
// checkpoint a failover or a restart reads emptied of them) makes the model
// answer differently at some step after: a system that leaves them out
// diverges there.
import { describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import type { ClusterAction, ClusterEvent, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import {
  applyExternal,
  initialClusterState,
  initialJoinState,
  observeCluster,
  whyNotEnabled,
  withCopy,
  type ClusterSetup,
  type ClusterState,
} from '../../model/index.ts';
import { clusterTraceArbitrary } from './clusterTraces.ts';
import { coverScenario } from './exhaustive.ts';
import { exhaustiveScenario, type ExhaustiveScenario } from './clusterScenarios.ts';

const seed = inject('fcSeed');

/** One model step: its events (undefined: refused) and the state after. */
function step(setup: ClusterSetup, state: ClusterState, action: ClusterAction): { events?: ClusterEvent[]; state: ClusterState } {
  if (action.type === 'process' || whyNotEnabled(setup, state, action) !== undefined) return { state };
  const t = applyExternal(setup, state, action);
  return { events: t.events, state: t.state };
}

/** The state with the watermarks a restore at step `s` gave (worker, key) left out; undefined if it gave none. */
function withoutRestoredWatermarks(
  before: ClusterState,
  after: ClusterState,
  action: ExternalAction,
  worker: string,
  key: string,
): ClusterState | undefined {
  const noWatermarks = initialJoinState.wm;
  if (action.type === 'install') {
    const copy = after.workers[worker]?.keys[key];
    if (!copy || (copy.join.wm.L === null && copy.join.wm.R === null)) return undefined;
    return withCopy(after, worker, key, { ...copy, join: { ...copy.join, wm: noWatermarks } });
  }
  const cp = before.store[key];
  if (!cp || (cp.join.wm.L === null && cp.join.wm.R === null)) return undefined;
  const store: Record<string, typeof cp> = Object.create(null);
  for (const k of Object.keys(before.store)) store[k] = before.store[k] as typeof cp;
  store[key] = { ...cp, join: { ...cp.join, wm: noWatermarks } };
  return { ...before, store };
}

/** A restore, whether its copy read on, and whether the loss of its watermarks showed, or was made good first. */
interface Restore {
  readonly kind: string;
  readonly processed: boolean;
  readonly shows: boolean;
  readonly healed: boolean;
}

/**
 * Per restore of a trace that gave a copy watermarks (an install, a
 * failover, a restart): its kind, and whether the restored copy processed a
 * record afterwards and whether leaving its watermarks out changes the
 * model's events or observation at some step after (at the restore itself
 * for a failover or a restart, which process at once).
 */
function restoresOf(trace: ClusterTrace): Restore[] {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  const actions = trace.steps.map((s) => s.action);
  const states: ClusterState[] = [initialClusterState(setup)];
  const replies: string[] = [];
  const eventsAt: ClusterEvent[][] = [];
  for (const a of actions) {
    const t = step(setup, states[states.length - 1] as ClusterState, a);
    states.push(t.state);
    eventsAt.push(t.events ?? []);
    replies.push(JSON.stringify([t.events ?? null, observeCluster(setup, t.state)]));
  }
  const out: Restore[] = [];
  for (const [s, a] of actions.entries()) {
    if (a.type !== 'install' && a.type !== 'failover' && a.type !== 'restart') continue;
    for (const e of eventsAt[s] ?? []) {
      if (e.type !== 'restored') continue;
      let state = withoutRestoredWatermarks(states[s] as ClusterState, states[s + 1] as ClusterState, a, e.worker, e.key);
      if (!state) continue;
      const from = a.type === 'install' ? s + 1 : s;
      // Until an answer differs, or the copy is again what it is with the watermarks kept: the log's own watermarks, read
      // after the checkpoint's cursor, made the loss good, and nothing this restore did can show any more.
      const held = (x: ClusterState): string => JSON.stringify(x.workers[e.worker]?.keys[e.key]?.join ?? null);
      let shows = false;
      let healed = false;
      for (let i = from; i < actions.length && !shows && !healed && state; i++) {
        const t = step(setup, state, actions[i] as ClusterAction);
        shows = JSON.stringify([t.events ?? null, observeCluster(setup, t.state)]) !== replies[i];
        healed = held(t.state) === held(states[i + 1] as ClusterState);
        state = t.state;
      }
      // Whether the restored copy went on to read a record at all (else nothing can depend on what it holds).
      const processed = eventsAt
        .slice(s)
        .some((es) => es.some((x) => x.type === 'processed' && x.worker === e.worker && x.key === e.key && x.epoch === e.epoch));
      out.push({ kind: a.type, processed, shows, healed });
    }
  }
  return out;
}

describe('C6, C8, C10, C2: every restore gives a copy watermarks that a later step depends on', () => {
  it('random cluster and faults traces: every restore whose copy reads on shows the loss of its watermarks at some later step, unless the log made it good first', () => {
    const count = { shows: 0, healed: 0 };
    for (const level of ['cluster', 'faults'] as const) {
      for (const [n, t] of fc.sample(clusterTraceArbitrary(level), { seed, numRuns: 120 }).entries()) {
        for (const r of restoresOf(t)) {
          if (!r.processed) continue;
          if (r.healed && !r.shows) count.healed++;
          else {
            expect(r.shows, `random ${level} trace ${n + 1} (seed ${seed}): a ${r.kind} whose watermarks no later step depends on`).toBe(
              true,
            );
            count.shows++;
          }
        }
      }
    }
    // Made good: the log's own watermarks, appended before the restore and read after it, passed the held ones first.
    console.log(
      `restores of copies that read on, 120 random traces per level: loss shown ${count.shows}, made good by the log ${count.healed}`,
    );
    expect(count.shows).toBeGreaterThan(100);
    expect(count.shows).toBeGreaterThan(5 * count.healed);
  }, 300_000);

  it('colliding-ids, failover-replay-from-older-checkpoint and two-keys-failover-of-a-shared-owner: each kind of restore they make shows the loss of its watermarks in some trace', () => {
    const kinds: Record<string, string[]> = {
      'colliding-ids': ['install', 'restart'],
      'failover-replay-from-older-checkpoint': ['failover', 'restart'],
      'two-keys-failover-of-a-shared-owner': ['failover', 'restart'],
    };
    for (const [name, wanted] of Object.entries(kinds)) {
      const shown = new Set<string>();
      for (const t of coverScenario(exhaustiveScenario(name) as ExhaustiveScenario, { probes: false }).traces) {
        for (const r of restoresOf(t)) if (r.shows) shown.add(r.kind);
        if (wanted.every((k) => shown.has(k))) break;
      }
      expect([...shown].sort(), name).toEqual(expect.arrayContaining(wanted));
    }
  }, 300_000);
});
