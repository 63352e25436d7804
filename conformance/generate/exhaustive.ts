// Bounded-exhaustive conformance traces (SPEC §7): for each named scenario
// — a workload script and budgets, in the explorer's vocabulary
// (model/cluster/boundedHistories.ts) — the whole bounded state graph of the
// conformance semantics (SPEC §7: every external action followed by eager
// processing) is built, and a set of traces is derived that takes EVERY
// transition of it: for each state, reached by a shortest path, each enabled
// action, then a shortest fault-free path to a settled state (the whole
// script appended, quiescent: SPEC §6). So every crash point of every
// handoff step the budgets allow, for source, destination and coordinator,
// is followed by every restart, failover and recovery that can come after
// it, and the system under test is compared with the model all the way to
// the end. A trace that is a prefix of another is dropped.
//
// At every state of the graph the traces also carry **probes**: every
// control and fault action the model refuses there (§7: the system must
// refuse it with not_enabled and change nothing), and at the first state of
// each handoff phase every invalid record (J1, each check alone and every
// pair at once, and C3's unknown key), which the cluster must reject. A
// probe changes nothing, so it rides in a trace that passes the state
// anyway: no session of its own.
//
// The cluster scenarios are in clusterScenarios.ts, the operator-level ones
// (and their covers) in operatorExhaustive.ts; this file also holds the list
// of both kinds that `conform --exhaustive` runs.
import { CLUSTER_TRACE_FORMAT, levelOfAction, paced as pacedSteps } from '../../spec/index.ts';
import type { ClusterConfig, ClusterTrace, ExternalAction, Level } from '../../spec/index.ts';
import {
  enabledClusterActions,
  encodeExplored,
  expectedClusterKinds,
  initialExplored,
  isFault,
  isQuiescent,
  nextEager,
  whyNotEnabled,
  type ClusterBounds,
  type ClusterModelConfig,
  type ClusterSetup,
  type ClusterState,
  type ExploredState,
} from '../../model/index.ts';
import { probeActions, rejectedRecords, transitionLabels, unknownNameProbes } from './clusterProbes.ts';
import { coverClusterScripts } from './clusterScripts.ts';
import { watermarksAgain } from './edges.ts';
import {
  OPERATOR_SCENARIOS,
  coverOperatorScenario,
  coverOperatorScenarioInSteps,
  operatorCoverageLabels,
  type OperatorCover,
  type OperatorScenario,
} from './operatorExhaustive.ts';
import { CLUSTER_SCENARIOS, type ExhaustiveScenario } from './clusterScenarios.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

export { probeActions, rejectedRecords, unknownNameProbes };

/** Every bounded-exhaustive scenario `conform --exhaustive` runs: the operator-level ones, then the cluster ones. */
export type AnyScenario = ExhaustiveScenario | OperatorScenario;
/** A cover of either kind of scenario. */
export type AnyCover = ScenarioCover | OperatorCover;

/** Every bounded-exhaustive scenario: the operator-level ones, then the cluster ones. */
export const EXHAUSTIVE_SCENARIOS: readonly AnyScenario[] = [...OPERATOR_SCENARIOS, ...CLUSTER_SCENARIOS];

/** The cover of a scenario of either kind. */
export function coverAnyScenario(scenario: AnyScenario, options: CoverOptions = {}): AnyCover {
  return scenario.kind === 'operator' ? coverOperatorScenario(scenario, options) : coverScenario(scenario, options);
}

/**
 * `coverAnyScenario` at the event loop's pace (spec/pacing.ts): a graph of
 * thousands of states is built while signals are heard; rejects with
 * Interrupted once `signal` is aborted.
 */
export async function coverAnyScenarioPaced(
  scenario: AnyScenario,
  signal?: AbortSignalLike,
  options: CoverOptions = {},
): Promise<AnyCover> {
  const steps: Generator<void, AnyCover, undefined> =
    scenario.kind === 'operator' ? coverOperatorScenarioInSteps(scenario, options) : coverScenarioInSteps(scenario, options);
  const paced = pacedSteps(steps, signal);
  for (;;) {
    const next = await paced.next();
    if (next.done) return next.value;
  }
}

/** Drives a computation in steps to its end, at once. */
function toEnd<R>(steps: Generator<void, R, undefined>): R {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** One transition of the bounded eager state graph. */
interface Edge {
  readonly action: number;
  readonly target: number;
  readonly fault: boolean;
  /** Its coverage labels (indexes into the label list). */
  readonly labels: readonly number[];
}

/** Options of covering a scenario. */
export interface CoverOptions {
  /** Send the refusal and rejection probes (default true); off only to show what they add. */
  readonly probes?: boolean;
  /** End every settled trace with the epilogue (default true); off only to show what it adds. */
  readonly epilogue?: boolean;
}

/** A scenario's state graph and the traces that cover it. */
export interface ScenarioCover {
  /** A cluster scenario's cover. */
  readonly kind: 'cluster';
  /** The scenario covered. */
  readonly scenario: ExhaustiveScenario;
  /** Distinct states of the bounded eager graph. */
  readonly states: number;
  /** Its transitions: every one is taken by some trace. */
  readonly transitions: number;
  /** The longest shortest path to a state. */
  readonly depth: number;
  /**
   * The covering traces, each ending in a settled state and then the
   * epilogue (but for the traces cut to carry fault probes, which end with
   * them), none a prefix of another, probes included.
   */
  readonly traces: readonly ClusterTrace[];
  /** The records every settled trace sends last: the latest watermark of each side again (J4; C6, C8, C10 with C2). */
  readonly epilogue: readonly ExternalAction[];
  /** Steps over all traces, probes included. */
  readonly steps: number;
  /** Probe steps over all traces: actions the model refuses and records the cluster rejects, where they change nothing. */
  readonly probes: number;
  /** Probe steps per trace. */
  readonly probesOf: readonly number[];
  /** Per trace, where its probes are: pairs (first step, number of steps), one per probed state. */
  readonly probeBatchesOf: readonly (readonly number[])[];
  /** The level each trace needs: `faults` if any of its steps is a fault. */
  readonly levelOf: readonly ('cluster' | 'faults')[];
  /** Transitions per coverage label (the explorer's `clusterActionKind`, refined by what the action caused). */
  readonly labels: ReadonlyMap<string, number>;
  /** The coverage labels each trace takes. */
  readonly labelsOf: readonly (readonly string[])[];
}

/** Settled: the whole script appended, and quiescent (SPEC §6): where every trace ends. */
function settled(config: ClusterModelConfig, s: ExploredState): boolean {
  return s.cluster.log.length === config.bounds.script.length && isQuiescent(config, s);
}

/**
 * The model config of a scenario; conformance needs no ghost state (SPEC §7).
 * The prelude is the script's first records: the graph starts after them.
 */
function modelConfigOf(scenario: ExhaustiveScenario): ClusterModelConfig {
  const cluster: ClusterSetup = { ...scenario.cluster, checkProperties: false };
  return { cluster, bounds: { ...scenario.bounds, script: [...(scenario.prelude ?? []), ...scenario.bounds.script] } };
}

/** Thrown when a scenario's graph has a state from which no settled state is reachable without faults (SPEC P7), or its prelude is not appended whole. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/** Where a handoff stands (and whether the coordinator is up): rejection probes go to the first state of each. */
function situationOf(st: ClusterState): string {
  const h = st.coordinator.handoff;
  return `${h ? `${h.kind}@${h.phase}` : 'steady'}${st.coordinator.up ? '' : ' coordinator-down'}`;
}

/**
 * Builds the scenario's bounded eager state graph breadth-first and derives
 * its transition cover (see the file comment), with the probes of every
 * state. Deterministic: the same scenario gives the same traces in the same
 * order.
 */
export function coverScenario(scenario: ExhaustiveScenario, options: CoverOptions = {}): ScenarioCover {
  return toEnd(coverScenarioInSteps(scenario, options));
}

/**
 * `coverScenario` in steps: it yields between states and between traces,
 * so a caller can take turns of the event loop while a large graph is
 * built (`coverAnyScenarioPaced`).
 */
function* coverScenarioInSteps(scenario: ExhaustiveScenario, options: CoverOptions): Generator<void, ScenarioCover, undefined> {
  if (scenario.scripts !== undefined) return yield* coverClusterScripts(scenario, options);
  const config = modelConfigOf(scenario);
  const prelude = scenario.prelude ?? [];
  const epilogue: ExternalAction[] =
    options.epilogue === false ? [] : watermarksAgain(config.bounds.script).map((record) => ({ type: 'record', record }));
  // Actions as numbers, so that traces can be compared and sorted cheaply.
  const actionIds = new Map<string, number>();
  const actionsById: ExternalAction[] = [];
  const idOf = (a: ExternalAction): number => {
    const key = JSON.stringify(a);
    let id = actionIds.get(key);
    if (id === undefined) {
      id = actionsById.length;
      actionIds.set(key, id);
      actionsById.push(a);
    }
    return id;
  };
  const labelIds = new Map<string, number>();
  const labelNames: string[] = [];
  const labelId = (l: string): number => {
    let id = labelIds.get(l);
    if (id === undefined) {
      id = labelNames.length;
      labelIds.set(l, id);
      labelNames.push(l);
    }
    return id;
  };
  // The prelude: appended and processed before the graph starts.
  let start = initialExplored(config);
  const preludeIds: number[] = [];
  for (const record of prelude) {
    const a: ExternalAction = { type: 'record', record };
    start = nextEager(config, start, a).state;
    preludeIds.push(idOf(a));
  }
  if (start.cluster.log.length !== prelude.length) {
    throw new ScenarioError(`scenario ${scenario.name}: its prelude must be valid records of declared keys (each appended)`);
  }
  const states: ExploredState[] = [start];
  const index = new Map<string, number>([[encodeExplored(config, start, false), 0]]);
  const parent: number[] = [-1];
  const parentAction: number[] = [-1];
  const depthOf: number[] = [0];
  const edges: Edge[][] = [];
  const labels = new Map<string, number>();
  for (let i = 0; i < states.length; i++) {
    yield;
    const s = states[i] as ExploredState;
    const out: Edge[] = [];
    for (const a of enabledClusterActions(config, s)) {
      if (a.type === 'process') continue; // never enabled after eager processing
      const { state: t, events } = nextEager(config, s, a);
      const names = transitionLabels(s, a, events);
      for (const l of names) labels.set(l, (labels.get(l) ?? 0) + 1);
      const key = encodeExplored(config, t, false);
      const action = idOf(a);
      let j = index.get(key);
      if (j === undefined) {
        j = states.length;
        index.set(key, j);
        states.push(t);
        parent.push(i);
        parentAction.push(action);
        depthOf.push((depthOf[i] as number) + 1);
      }
      out.push({ action, target: j, fault: isFault(a), labels: names.map(labelId) });
    }
    edges.push(out);
  }
  // Shortest fault-free completion: breadth-first backwards from the settled states.
  const n = states.length;
  const toGoal = new Int32Array(n).fill(-1);
  const hop: (Edge | undefined)[] = new Array<Edge | undefined>(n);
  const incoming: { from: number; edge: Edge }[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) for (const e of edges[i] as Edge[]) if (!e.fault) incoming[e.target]?.push({ from: i, edge: e });
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    if (settled(config, states[i] as ExploredState)) {
      toGoal[i] = 0;
      queue.push(i);
    }
  }
  for (let q = 0; q < queue.length; q++) {
    const j = queue[q] as number;
    for (const { from, edge } of incoming[j] as { from: number; edge: Edge }[]) {
      if (toGoal[from] !== -1) continue;
      toGoal[from] = (toGoal[j] as number) + 1;
      hop[from] = edge;
      queue.push(from);
    }
  }
  const stuck = toGoal.indexOf(-1);
  if (stuck >= 0) {
    throw new ScenarioError(
      `scenario ${scenario.name}: no fault-free path to a settled state from state ${stuck} (${encodeExplored(config, states[stuck] as ExploredState, false)})`,
    );
  }
  const pathTo = (i: number): number[] => {
    const out: number[] = [];
    for (let at = i; at > 0; at = parent[at] as number) out.push(parentAction[at] as number);
    return out.reverse();
  };
  const completion = (j: number): number[] => {
    const out: number[] = [];
    for (let at = j; toGoal[at] !== 0; ) {
      const e = hop[at] as Edge;
      out.push(e.action);
      at = e.target;
    }
    return out;
  };
  // Every transition's trace, as action numbers, so prefixes can be found by sorting.
  const sequences: number[][] = [];
  let transitions = 0;
  for (let i = 0; i < n; i++) {
    yield;
    const prefix = pathTo(i);
    for (const e of edges[i] as Edge[]) {
      transitions++;
      sequences.push([...prefix, e.action, ...completion(e.target)]);
    }
  }
  const kept = withoutPrefixes(sequences);
  // Walk each kept trace through the graph: the states it passes, its labels, its level.
  const targetOf = edges.map((out) => new Map(out.map((e) => [e.action, e])));
  const faultLevel = actionsById.map((a) => levelOfAction(a) === 'faults');
  const levelOf: ('cluster' | 'faults')[] = [];
  const labelsOfTrace: string[][] = [];
  // The trace that last took each label, so that a trace lists each of its labels once without a set per trace.
  const stamp = new Int32Array(labelNames.length).fill(-1);
  // First visit of each state by a trace at level cluster, by any trace, by a trace at level faults: [trace, position].
  const firstCluster = new Int32Array(2 * n).fill(-1);
  const firstAny = new Int32Array(2 * n).fill(-1);
  const firstFaults = new Int32Array(2 * n).fill(-1);
  const visit = (first: Int32Array, s: number, k: number, p: number): void => {
    if (first[2 * s] !== -1) return;
    first[2 * s] = k;
    first[2 * s + 1] = p;
  };
  for (const [k, seq] of kept.entries()) {
    yield;
    const level = seq.some((id) => faultLevel[id]) ? 'faults' : 'cluster';
    levelOf.push(level);
    const taken: string[] = [];
    let at = 0;
    for (let p = 0; p <= seq.length; p++) {
      visit(firstAny, at, k, p);
      visit(level === 'cluster' ? firstCluster : firstFaults, at, k, p);
      if (p === seq.length) break;
      const e = targetOf[at]?.get(seq[p] as number) as Edge;
      for (const l of e.labels) {
        if (stamp[l] === k) continue;
        stamp[l] = k;
        taken.push(labelNames[l] as string);
      }
      at = e.target;
    }
    labelsOfTrace.push(taken);
  }
  // The probes of each state, placed in the first trace that passes it at a level that allows them: per trace, per position.
  const inserts = new Map<number, Map<number, number[]>>();
  const extra: { trace: number; at: number; probes: number[] }[] = [];
  if (options.probes !== false) {
    const universe = probeActions(scenario.cluster).map((a) => ({ a, id: idOf(a), faults: levelOfAction(a) === 'faults' }));
    const unknownNames = unknownNameProbes(scenario.cluster).map((a) => ({ a, id: idOf(a), faults: levelOfAction(a) === 'faults' }));
    const rejects = rejectedRecords(scenario.cluster).map((record) => idOf({ type: 'record', record }));
    const situations = new Set<string>();
    // The guards read the cluster state, never the budgets: a state that differs from one probed only in the budgets spent is not probed again.
    const probedStates = new Set<string>();
    const unspent = { migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 };
    const place = (first: Int32Array, s: number, probes: number[]): boolean => {
      const k = first[2 * s] as number;
      if (k === -1 || probes.length === 0) return k !== -1;
      const p = first[2 * s + 1] as number;
      let at = inserts.get(k);
      if (!at) inserts.set(k, (at = new Map()));
      at.set(p, [...(at.get(p) ?? []), ...probes]);
      return true;
    };
    for (let s = 0; s < n; s++) {
      yield;
      const st = (states[s] as ExploredState).cluster;
      const key = encodeExplored(config, { cluster: st, used: unspent }, false);
      if (probedStates.has(key)) continue;
      probedStates.add(key);
      const clusterProbes: number[] = [];
      const faultProbes: number[] = [];
      const situation = situationOf(st);
      if (!situations.has(situation)) {
        situations.add(situation);
        clusterProbes.push(...rejects);
      }
      for (const { a, id, faults } of s === 0 ? [...universe, ...unknownNames] : universe) {
        if (whyNotEnabled(config.cluster, st, a) === undefined) continue;
        (faults ? faultProbes : clusterProbes).push(id);
      }
      if (!place(firstCluster, s, clusterProbes)) place(firstAny, s, clusterProbes);
      if (faultProbes.length > 0 && !place(firstFaults, s, faultProbes)) {
        // Only cluster-level traces pass this state: its fault probes get a trace of their own, cut from one of them.
        extra.push({ trace: firstAny[2 * s] as number, at: firstAny[2 * s + 1] as number, probes: faultProbes });
      }
    }
  }
  const cluster: ClusterConfig = scenario.cluster;
  const total = kept.length + extra.length;
  const traces: ClusterTrace[] = [];
  const probesOf: number[] = [];
  const batchesOf: number[][] = [];
  let steps = 0;
  const epilogueIds = epilogue.map(idOf);
  const emit = (ids: readonly number[], probes: number, batches: number[], last: readonly number[] = []): void => {
    const k = traces.length;
    const all = [...preludeIds, ...ids, ...last];
    traces.push({
      format: CLUSTER_TRACE_FORMAT,
      name: `${scenario.name}-${k + 1}`,
      description: `Bounded-exhaustive scenario ${scenario.name}, interleaving ${k + 1} of ${total}: ${scenario.description}.`,
      config: cluster,
      steps: all.map((id) => ({ action: actionsById[id] as ExternalAction })),
    });
    probesOf.push(probes);
    batchesOf.push(batches.map((x, i) => (i % 2 === 0 ? x + preludeIds.length : x)));
    steps += all.length;
  };
  for (const [k, seq] of kept.entries()) {
    yield;
    const at = inserts.get(k) ?? new Map<number, number[]>();
    const ids: number[] = [];
    const batches: number[] = [];
    let probes = 0;
    for (let p = 0; p <= seq.length; p++) {
      const here = at.get(p);
      if (here) {
        batches.push(ids.length, here.length);
        ids.push(...here);
        probes += here.length;
      }
      if (p < seq.length) ids.push(seq[p] as number);
    }
    emit(ids, probes, batches, epilogueIds);
  }
  for (const x of extra) {
    const prefix = (kept[x.trace] as number[]).slice(0, x.at);
    emit([...prefix, ...x.probes], x.probes.length, [prefix.length, x.probes.length]);
    levelOf.push('faults');
    const taken = new Set<string>();
    let at = 0;
    for (const id of prefix) {
      const e = targetOf[at]?.get(id) as Edge;
      for (const l of e.labels) taken.add(labelNames[l] as string);
      at = e.target;
    }
    labelsOfTrace.push([...taken]);
  }
  return {
    kind: 'cluster',
    scenario,
    states: n,
    transitions,
    depth: Math.max(...depthOf),
    traces,
    epilogue,
    steps,
    probes: probesOf.reduce((a, b) => a + b, 0),
    probesOf,
    probeBatchesOf: batchesOf,
    levelOf,
    labels,
    labelsOf: labelsOfTrace,
  };
}

/**
 * Which steps of a cover's trace are observed: all but the probes of one
 * state before its last (a refused action changes nothing, so one
 * observation after the state's probes shows any change they made, and each
 * probe's reply is still judged on its own).
 */
export function observedSteps(cover: ScenarioCover, k: number): ((index: number) => boolean) | undefined {
  const batches = cover.probeBatchesOf[k] ?? [];
  if (batches.length === 0) return undefined;
  const skip = new Set<number>();
  for (let i = 0; i < batches.length; i += 2) {
    const first = batches[i] as number;
    const n = batches[i + 1] as number;
    for (let j = first; j < first + n - 1; j++) skip.add(j);
  }
  return (index) => !skip.has(index);
}

/** The sequences that are not a prefix of another (nor a repeat of one), in lexicographic order. */
export function withoutPrefixes(sequences: readonly (readonly number[])[]): number[][] {
  const sorted = [...sequences].sort((a, b) => {
    for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
    return a.length - b.length;
  });
  // In this order, a sequence that is a prefix of any later one is a prefix of the next one.
  const isPrefix = (p: readonly number[], q: readonly number[]): boolean => p.length <= q.length && p.every((x, i) => x === q[i]);
  return sorted.filter((s, i) => i + 1 >= sorted.length || !isPrefix(s, sorted[i + 1] as readonly number[])).map((s) => [...s]);
}

/**
 * The labels the cluster scenarios together must take at the levels
 * checked. At level `faults`: every kind of external step and every crash
 * point the explorer's coverage (model/cluster/explorerModel.ts) expects
 * under budgets of one of each (a crash of the source, the destination and
 * the coordinator after each migration step, the coordinator between the
 * parts of commit and of failover, an owner, the coordinator and an idle
 * worker in steady state), each recovery, and the crash points inside the
 * window a coordinator crash between the parts of commit or failover opens
 * (phase `fenced`), which take a second crash. At level `cluster` alone:
 * the steps of a migration, records and checkpoints. At level `operator`:
 * the operator scenarios' labels (operatorExhaustive.ts).
 */
export function requiredCoverage(levels: readonly Level[] = ['operator', 'cluster', 'faults']): string[] {
  const first = CLUSTER_SCENARIOS[0] as ExhaustiveScenario;
  const out: string[] = levels.includes('operator') ? operatorCoverageLabels() : [];
  if (levels.includes('faults')) {
    const ones: ClusterBounds = { script: [], migrations: 1, failovers: 1, crashes: 1, pauses: 1, duplicates: 1, checkpoints: 1 };
    const windows = ['migrate', 'failover'].flatMap((kind) => ['src', 'dst', 'coordinator'].map((role) => `crash:${role}@${kind}@fenced`));
    out.push(...expectedClusterKinds({ cluster: first.cluster, bounds: ones }), ...windows);
  } else if (levels.includes('cluster')) {
    const ones: ClusterBounds = { script: [], migrations: 1, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 1 };
    out.push(...expectedClusterKinds({ cluster: first.cluster, bounds: ones }));
  }
  return out;
}

/** Whether a label is a crash point (a crash, or a coordinator crash between the parts of commit or failover). */
export function isCrashPoint(label: string): boolean {
  return label.startsWith('crash:') || label.endsWith('+crash-after-fence');
}

/** Every label the covers' traces take, by scenario; with `ran`, only the traces that ran (per cover, the indexes). */
function takenBy(covers: readonly AnyCover[], ran?: readonly ReadonlySet<number>[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const [c, cover] of covers.entries()) {
    const labels = new Set<string>();
    for (const [k, ls] of cover.labelsOf.entries()) if (!ran || ran[c]?.has(k)) for (const l of ls) labels.add(l);
    for (const l of labels) by.set(l, [...(by.get(l) ?? []), cover.scenario.name]);
  }
  return by;
}

/** The required labels (at `levels`) no trace of the covers took; with `ran`, counting only the traces that ran. */
export function missingCoverage(covers: readonly AnyCover[], levels?: readonly Level[], ran?: readonly ReadonlySet<number>[]): string[] {
  const taken = takenBy(covers, ran);
  return requiredCoverage(levels).filter((l) => !taken.has(l));
}

/** Every label taken, crash points first; with the scenarios that took it (with `ran`, by the traces that ran). */
export function coverageTable(
  covers: readonly AnyCover[],
  ran?: readonly ReadonlySet<number>[],
): { label: string; crashPoint: boolean; scenarios: string[] }[] {
  return [...takenBy(covers, ran).entries()]
    .map(([label, scenarios]) => ({ label, crashPoint: isCrashPoint(label), scenarios }))
    .sort((a, b) => Number(b.crashPoint) - Number(a.crashPoint) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
