// Test support for the exhaustive scenarios (generate/exhaustive.test.ts and
// exhaustive.e2e.test.ts): a cover's traces replayed through the model, and
// the checks every cover must pass.
import { expect } from 'vitest';
import { schemaError } from '../../spec/index.ts';
import {
  encodeExplored,
  enabledClusterActions,
  initialExplored,
  isQuiescent,
  nextEager,
  type ClusterModelConfig,
  type ExploredState,
} from '../../model/cluster/boundedHistories.ts';
import { whyNotEnabled } from '../../model/cluster/guards.ts';
import { coverScenario, probeActions, rejectedRecords, type ScenarioCover } from '../generate/exhaustive.ts';
import type { ExhaustiveScenario } from '../generate/clusterScenarios.ts';
import { clusterContractViolation } from '../lockstep/traceFiles.ts';

export const configOf = (s: ExhaustiveScenario): ClusterModelConfig => ({
  cluster: { ...s.cluster, checkProperties: false },
  bounds: { ...s.bounds, script: [...(s.prelude ?? []), ...s.bounds.script] },
});

/**
 * Replays a cover's traces through the model: the transitions they take
 * (state encoding + action), whether each ends settled, and the probes: the
 * steps the model refuses or that change nothing after the prelude.
 */
function replayCover(cover: ScenarioCover): {
  taken: Set<string>;
  unsettled: number;
  probes: number;
  visited: Map<string, ExploredState>;
  probed: Map<string, Set<string>>;
} {
  const config = configOf(cover.scenario);
  const taken = new Set<string>();
  // Every state a trace passes (budgets aside: the guards never read them), and the actions probed there.
  const visited = new Map<string, ExploredState>();
  const probed = new Map<string, Set<string>>();
  let unsettled = 0;
  let probes = 0;
  const prelude = cover.scenario.prelude?.length ?? 0;
  // The epilogue is appended past the script: replayed under a config whose script goes on with it.
  const withEpilogue: ClusterModelConfig = {
    ...config,
    bounds: {
      ...config.bounds,
      script: [...config.bounds.script, ...cover.epilogue.flatMap((a) => (a.type === 'record' ? [a.record] : []))],
    },
  };
  const epilogueText = JSON.stringify(cover.epilogue);
  for (const trace of cover.traces) {
    let s: ExploredState = initialExplored(config);
    const last = trace.steps.length - cover.epilogue.length;
    if (cover.epilogue.length > 0 && JSON.stringify(trace.steps.slice(last).map((x) => x.action)) !== epilogueText) {
      throw new Error(`${trace.name}: does not end with the epilogue`);
    }
    for (const [i, { action }] of trace.steps.slice(0, last).entries()) {
      if (action.type === 'process') throw new Error('process in a conformance trace');
      const here = encodeExplored(config, { ...s, used: unspent }, false);
      if (i >= prelude) visited.set(here, s);
      if (i < prelude) {
        expect(action).toEqual({ type: 'record', record: cover.scenario.prelude?.[i] });
        s = nextEager(config, s, action).state;
        continue;
      }
      // A probe: refused by the model (§7), or a record the cluster rejects; it changes nothing.
      const next = whyNotEnabled(config.cluster, s.cluster, action) === undefined ? nextEager(config, s, action).state : undefined;
      if (next === undefined || next.cluster === s.cluster) {
        probes++;
        probed.set(here, (probed.get(here) ?? new Set()).add(JSON.stringify(action)));
        continue;
      }
      const enabled = enabledClusterActions(config, s).some((a) => JSON.stringify(a) === JSON.stringify(action));
      if (!enabled) throw new Error(`${trace.name}: ${JSON.stringify(action)} is not enabled within the budgets`);
      taken.add(`${encodeExplored(config, s, false)} ${JSON.stringify(action)}`);
      s = next;
    }
    visited.set(encodeExplored(config, { ...s, used: unspent }, false), s);
    if (!(isQuiescent(config, s) && s.cluster.log.length === prelude + cover.scenario.bounds.script.length)) unsettled++;
    // The epilogue: each record read at once by every owner, stale for every copy that reads it (J4: a settled copy holds the log's latest watermarks).
    for (const action of trace.steps.slice(last).map((x) => x.action)) {
      const { state, events } = nextEager(withEpilogue, s, action);
      const read = events.flatMap((e) => (e.type === 'processed' ? [`${e.key} ${e.outcome.code}`] : []));
      expect([...new Set(read)].sort(), `${trace.name}: the epilogue's ${JSON.stringify(action)}`).toEqual(
        cover.scenario.cluster.keys.map(({ key }) => `${key} stale`).sort(),
      );
      s = state;
    }
  }
  return { taken, unsettled, probes, visited, probed };
}

const unspent = { migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 };

/**
 * The checks every cover passes: its traces take every transition of the
 * graph, each ends settled (script appended, quiescent) and then sends the
 * epilogue, stale for every copy (J4), each enabled within
 * the budgets, valid and in contract (J9), none a prefix of another; at
 * every state they pass, every action the model refuses there is probed,
 * and every invalid record is probed and rejected (§7, J1, C3).
 */
/** What checkCover checks, for the titles of the tests that call it. */
export const COVER_CHECKS =
  'the traces take every transition of the graph, each ends settled (script appended, quiescent) and then sends the ' +
  'epilogue, stale for every copy (J4), each enabled within the ' +
  'budgets, valid and in contract (J9); at every state they pass, every action the model refuses there is probed once (§7)';

export function checkCover(s: ExhaustiveScenario): ScenarioCover {
  const cover = coverScenario(s);
  const { taken, unsettled, probes, visited, probed } = replayCover(cover);
  expect(taken.size).toBe(cover.transitions);
  expect(unsettled).toBe(0);
  for (const trace of cover.traces) {
    expect(schemaError('cluster-trace', trace)).toBeUndefined();
    expect(clusterContractViolation(trace)).toBeUndefined();
  }
  // Deduplicated: no trace is a prefix of another.
  const keys = cover.traces.map((t) => t.steps.map((st) => JSON.stringify(st.action)));
  const set = new Set(keys.map((k) => k.join('\n')));
  expect(set.size).toBe(keys.length);
  for (const k of keys) for (let n = 1; n < k.length; n++) expect(set.has(k.slice(0, n).join('\n'))).toBe(false);
  // Probes: every refused control and fault action at every state, once; the counts add up.
  expect(probes).toBe(cover.probes);
  expect(cover.probesOf.reduce((a, b) => a + b, 0)).toBe(cover.probes);
  const config = configOf(s);
  for (const [key, state] of visited) {
    const refused = probeActions(s.cluster).filter((a) => whyNotEnabled(config.cluster, state.cluster, a) !== undefined);
    const sent = probed.get(key) ?? new Set<string>();
    for (const a of refused) expect(sent.has(JSON.stringify(a)), `${JSON.stringify(a)} at ${key}`).toBe(true);
  }
  // Every invalid record (every pair of J1 failures, C3's unknown key) is probed, and rejected.
  const all = new Set([...probed.values()].flatMap((x) => [...x]));
  for (const record of rejectedRecords(s.cluster)) expect(all.has(JSON.stringify({ type: 'record', record }))).toBe(true);
  return cover;
}
