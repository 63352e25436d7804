// The cover of a cluster scenario given as scripts (`ExhaustiveScenario.scripts`):
// exhaustive over a class the scripts' builder enumerates (every member of
// it, in some script), not over a state graph. Each script is one trace
// after the prelude, run as it is; the first carries the probes of the
// initial state (§7). Used where the class is too large for a graph of
// interleavings, such as the separators of a naive sink id (J3, C9).
import { CLUSTER_TRACE_FORMAT, levelOfAction } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { initialExplored, nextEager, whyNotEnabled, type ClusterModelConfig, type ExploredState } from '../../model/index.ts';
import type { ExhaustiveScenario } from './clusterScenarios.ts';
import { probeActions, rejectedRecords, transitionLabels, unknownNameProbes } from './clusterProbes.ts';
import type { CoverOptions, ScenarioCover } from './exhaustive.ts';

/**
 * Each script of the scenario as one trace: the prelude, then (in the first
 * only) every record the cluster rejects and every cluster-level action the
 * model refuses in the initial state, then the script. Every action of a
 * script must be enabled where it comes (the model's guards, §7); its
 * states and transitions are counted along the scripts.
 */
export function* coverClusterScripts(scenario: ExhaustiveScenario, options: CoverOptions): Generator<void, ScenarioCover, undefined> {
  const prelude: ExternalAction[] = (scenario.prelude ?? []).map((record) => ({ type: 'record', record }));
  const scripts = scenario.scripts ?? [];
  const labels = new Map<string, number>();
  const traces: ClusterTrace[] = [];
  const probesOf: number[] = [];
  const batchesOf: number[][] = [];
  const levelOf: ('cluster' | 'faults')[] = [];
  const labelsOfTrace: string[][] = [];
  let transitions = 0;
  let steps = 0;
  let depth = 0;
  for (const [k, script] of scripts.entries()) {
    yield;
    // The model config of this script: its records are the workload appended.
    const records = [...prelude, ...script].flatMap((a) => (a.type === 'record' ? [a.record] : []));
    const config: ClusterModelConfig = {
      cluster: { ...scenario.cluster, checkProperties: false },
      bounds: { ...scenario.bounds, script: records },
    };
    let s: ExploredState = initialExplored(config);
    for (const a of prelude) s = nextEager(config, s, a).state;
    const probes: ExternalAction[] = [];
    if (k === 0 && options.probes !== false) {
      probes.push(...rejectedRecords(scenario.cluster).map((record): ExternalAction => ({ type: 'record', record })));
      for (const a of [...probeActions(scenario.cluster), ...unknownNameProbes(scenario.cluster)]) {
        if (levelOfAction(a) === 'cluster' && whyNotEnabled(config.cluster, s.cluster, a) !== undefined) probes.push(a);
      }
    }
    const taken = new Set<string>();
    for (const [i, a] of script.entries()) {
      const why = whyNotEnabled(config.cluster, s.cluster, a);
      if (why !== undefined)
        throw new Error(`scenario ${scenario.name}, script ${k + 1}, step ${i + 1}: ${JSON.stringify(a)} is not enabled (${why})`);
      const { state, events } = nextEager(config, s, a);
      for (const l of transitionLabels(s, a, events)) {
        taken.add(l);
        labels.set(l, (labels.get(l) ?? 0) + 1);
      }
      transitions++;
      s = state;
    }
    depth = Math.max(depth, script.length);
    const actions = [...prelude, ...probes, ...script];
    traces.push({
      format: CLUSTER_TRACE_FORMAT,
      name: `${scenario.name}-${k + 1}`,
      description: `Bounded-exhaustive scenario ${scenario.name}, script ${k + 1} of ${scripts.length}: ${scenario.description}.`,
      config: scenario.cluster,
      steps: actions.map((action) => ({ action })),
    });
    probesOf.push(probes.length);
    batchesOf.push(probes.length > 0 ? [prelude.length, probes.length] : []);
    levelOf.push(script.some((a) => levelOfAction(a) === 'faults') ? 'faults' : 'cluster');
    labelsOfTrace.push([...taken]);
    steps += actions.length;
  }
  return {
    kind: 'cluster',
    scenario,
    states: transitions + scripts.length,
    transitions,
    depth,
    traces,
    // A script's copies hold no watermarks at its handoff (they come last); its rows show a lost state (C6).
    epilogue: [],
    steps,
    probes: probesOf.reduce((a, b) => a + b, 0),
    probesOf,
    probeBatchesOf: batchesOf,
    levelOf,
    labels,
    labelsOf: labelsOfTrace,
  };
}
