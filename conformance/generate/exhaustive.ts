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
import { CLUSTER_TRACE_FORMAT, rowRecord, watermarkRecord } from '../../spec/index.ts';
import type { ClusterConfig, ClusterEvent, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import {
  type ClusterSetup,
  clusterActionKind,
  enabledClusterActions,
  encodeExplored,
  initialExplored,
  isFault,
  isQuiescent,
  nextEager,
  type ClusterBounds,
  type ClusterModelConfig,
  type ExploredState,
  expectedClusterKinds,
} from '../../model/index.ts';

/** A named bounded scenario: a cluster, a workload script, and budgets per kind of control action and fault. */
export interface ExhaustiveScenario {
  readonly name: string;
  /** One line: what the scenario is about. */
  readonly description: string;
  readonly cluster: ClusterConfig;
  readonly bounds: ClusterBounds;
}

const row = rowRecord;
const watermark = watermarkRecord;

const none = { migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 } as const;
const join = { allowedLateness: 1, maxIntervalLength: 2 } as const;

/**
 * The scenarios. Each keeps one key (keys are independent,
 * SPEC §6) and budgets of one or two, so that every crash point is reached,
 * and a second fault during the recovery from the first, while the state
 * graphs stay small enough to run in full against a process (about 31,000
 * interleavings in all).
 */
export const EXHAUSTIVE_SCENARIOS: readonly ExhaustiveScenario[] = [
  {
    name: 'migration-under-traffic',
    description:
      'a planned migration of k1 from w1 while a match and its retraction arrive; up to two crashes anywhere (source, ' +
      'destination, coordinator, idle worker, also between the parts of commit and of failover and during recovery), with ' +
      'every restart, abort and failover that can follow',
    cluster: { join, workers: ['w1', 'w2', 'w3'], keys: [{ key: 'k1', owner: 'w1' }] },
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'L', 'a', 1, 2)],
      migrations: 1,
      failovers: 1,
      crashes: 2,
    },
  },
  {
    name: 'failover-replay-from-older-checkpoint',
    description:
      'up to two periodic checkpoints at any point, then the owner crashes and the key fails over (the coordinator may crash ' +
      'between the parts): the new owner replays the log from the older checkpoint and the sink absorbs the repeats',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'L', 'a', 1, 2)],
      failovers: 1,
      crashes: 2,
      checkpoints: 2,
    },
  },
  {
    name: 'zombie-after-failover',
    description:
      'the owner pauses, is declared dead and failed over (the coordinator may crash between the fence and the ownership; up ' +
      'to two crashes), then resumes as a zombie with its old epoch and writes: fenced',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'R', 'b', 2, 3)],
      failovers: 1,
      crashes: 2,
      pauses: 1,
    },
  },
  {
    name: 'duplicates-and-retractions-across-a-handoff',
    description:
      'a retraction that overtakes its insert (the insert that follows is a duplicate of the tombstone) and a match with its ' +
      'retraction, ids with / and %, crossing a migration with up to two duplicated install and release messages and one ' +
      'crash anywhere',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    bounds: {
      ...none,
      // Ids with the characters the match-id encoding escapes (J3).
      script: [
        row('retract', 'k1', 'R', 'd%', 1, 1),
        row('insert', 'k1', 'L', 'a/1', 1, 2),
        row('insert', 'k1', 'R', 'd%', 1, 1),
        row('insert', 'k1', 'R', 'b', 2, 3),
        row('retract', 'k1', 'L', 'a/1', 1, 2),
      ],
      migrations: 1,
      duplicates: 2,
      crashes: 1,
    },
  },
  {
    name: 'watermark-passes-horizon-during-handoff',
    description:
      "the watermark passes one row's horizon (J8) while the key is being handed over, and stops at the other's boundary, " +
      'whose retraction must still retract the match: eviction under a migration with up to two crashes anywhere',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    bounds: {
      ...none,
      // Horizons (J8, L + D = 3): a at 5, b at 6. At gw = 6, a is evicted, b is
      // held at its boundary, and so is the match a/b; b's retraction is on time
      // and must retract a/b although a is gone.
      script: [
        row('insert', 'k1', 'L', 'a', 1, 2),
        row('insert', 'k1', 'R', 'b', 2, 3),
        watermark('L', 6),
        watermark('R', 6),
        row('retract', 'k1', 'R', 'b', 2, 3),
      ],
      migrations: 1,
      crashes: 2,
    },
  },
];

export function exhaustiveScenario(name: string): ExhaustiveScenario | undefined {
  return EXHAUSTIVE_SCENARIOS.find((s) => s.name === name);
}

/** One transition of the bounded eager state graph. */
interface Edge {
  readonly action: ExternalAction;
  readonly target: number;
  readonly fault: boolean;
}

/** A scenario's state graph and the traces that cover it. */
export interface ScenarioCover {
  readonly scenario: ExhaustiveScenario;
  /** Distinct states of the bounded eager graph. */
  readonly states: number;
  /** Its transitions: every one is taken by some trace. */
  readonly transitions: number;
  /** The longest shortest path to a state. */
  readonly depth: number;
  /** The covering traces, each ending in a settled state, none a prefix of another. */
  readonly traces: readonly ClusterTrace[];
  /** Steps over all traces. */
  readonly steps: number;
  /** Transitions per coverage label (the explorer's `clusterActionKind`, refined by what the action caused). */
  readonly labels: ReadonlyMap<string, number>;
}

/**
 * The coverage label of a transition: the explorer's label for the action
 * where it is taken (every crash point is its own label), and what eager
 * processing did after it (`process`, `process:fenced`), and a duplicate
 * install the destination refused (`duplicateInstall:refused`).
 */
function labelsOf(s: ExploredState, a: ExternalAction, events: readonly ClusterEvent[]): string[] {
  const labels = [clusterActionKind(s, a)];
  if (events.some((e) => e.type === 'processed')) labels.push('process');
  if (events.some((e) => e.type === 'processed' && e.fenced)) labels.push('process:fenced');
  if (a.type === 'duplicateInstall' && events.some((e) => e.type === 'refused')) labels.push('duplicateInstall:refused');
  return labels;
}

/** Settled: the whole script appended, and quiescent (SPEC §6): where every trace ends. */
function settled(config: ClusterModelConfig, s: ExploredState): boolean {
  return s.cluster.log.length === config.bounds.script.length && isQuiescent(config, s);
}

/** The model config of a scenario; conformance needs no ghost state (SPEC §7). */
function modelConfigOf(scenario: ExhaustiveScenario): ClusterModelConfig {
  const cluster: ClusterSetup = { ...scenario.cluster, checkProperties: false };
  return { cluster, bounds: scenario.bounds };
}

/** Thrown when a scenario's graph has a state from which no settled state is reachable without faults (SPEC P7). */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/**
 * Builds the scenario's bounded eager state graph breadth-first and derives
 * its transition cover (see the file comment). Deterministic: the same
 * scenario gives the same traces in the same order.
 */
export function coverScenario(scenario: ExhaustiveScenario): ScenarioCover {
  const config = modelConfigOf(scenario);
  const states: ExploredState[] = [initialExplored(config)];
  const index = new Map<string, number>([[encodeExplored(config, states[0] as ExploredState, false), 0]]);
  const parent: number[] = [-1];
  const parentAction: (ExternalAction | null)[] = [null];
  const depthOf: number[] = [0];
  const edges: Edge[][] = [];
  const labels = new Map<string, number>();
  for (let i = 0; i < states.length; i++) {
    const s = states[i] as ExploredState;
    const out: Edge[] = [];
    for (const a of enabledClusterActions(config, s)) {
      if (a.type === 'process') continue; // never enabled after eager processing
      const { state: t, events } = nextEager(config, s, a);
      for (const l of labelsOf(s, a, events)) labels.set(l, (labels.get(l) ?? 0) + 1);
      const key = encodeExplored(config, t, false);
      let j = index.get(key);
      if (j === undefined) {
        j = states.length;
        index.set(key, j);
        states.push(t);
        parent.push(i);
        parentAction.push(a);
        depthOf.push((depthOf[i] as number) + 1);
      }
      out.push({ action: a, target: j, fault: isFault(a) });
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
  const pathTo = (i: number): ExternalAction[] => {
    const out: ExternalAction[] = [];
    for (let at = i; at > 0; at = parent[at] as number) out.push(parentAction[at] as ExternalAction);
    return out.reverse();
  };
  const completion = (j: number): ExternalAction[] => {
    const out: ExternalAction[] = [];
    for (let at = j; toGoal[at] !== 0; ) {
      const e = hop[at] as Edge;
      out.push(e.action);
      at = e.target;
    }
    return out;
  };
  // Every transition's trace, as action numbers, so prefixes can be found by sorting.
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
  const sequences: number[][] = [];
  let transitions = 0;
  for (let i = 0; i < n; i++) {
    const prefix = pathTo(i).map(idOf);
    for (const e of edges[i] as Edge[]) {
      transitions++;
      sequences.push([...prefix, idOf(e.action), ...completion(e.target).map(idOf)]);
    }
  }
  const kept = withoutPrefixes(sequences);
  const cluster: ClusterConfig = scenario.cluster;
  const traces = kept.map(
    (seq, k): ClusterTrace => ({
      format: CLUSTER_TRACE_FORMAT,
      name: `${scenario.name}-${k + 1}`,
      description: `Bounded-exhaustive scenario ${scenario.name}, interleaving ${k + 1} of ${kept.length}: ${scenario.description}.`,
      config: cluster,
      steps: seq.map((id) => ({ action: actionsById[id] as ExternalAction })),
    }),
  );
  return {
    scenario,
    states: n,
    transitions,
    depth: Math.max(...depthOf),
    traces,
    steps: kept.reduce((sum, seq) => sum + seq.length, 0),
    labels,
  };
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
 * The labels the scenarios together must take: every kind of external step
 * and every crash point the explorer's coverage (model/cluster/explorerModel.ts)
 * expects under budgets of one of each (a crash of the source, the
 * destination and the coordinator after each migration step, the
 * coordinator between the parts of commit and of failover, an owner, the
 * coordinator and an idle worker in steady state), each recovery, and the
 * crash points inside the window a coordinator crash between the parts of
 * commit or failover opens (phase `fenced`), which take a second crash.
 */
export function requiredCoverage(): string[] {
  const ones: ClusterBounds = { script: [], migrations: 1, failovers: 1, crashes: 1, pauses: 1, duplicates: 1, checkpoints: 1 };
  const first = EXHAUSTIVE_SCENARIOS[0] as ExhaustiveScenario;
  const windows = ['migrate', 'failover'].flatMap((kind) => ['src', 'dst', 'coordinator'].map((role) => `crash:${role}@${kind}@fenced`));
  return [...expectedClusterKinds({ cluster: first.cluster, bounds: ones }), ...windows];
}

/** Whether a label is a crash point (a crash, or a coordinator crash between the parts of commit or failover). */
export function isCrashPoint(label: string): boolean {
  return label.startsWith('crash:') || label.endsWith('+crash-after-fence');
}

/** The required labels no scenario took. */
export function missingCoverage(covers: readonly ScenarioCover[]): string[] {
  const taken = new Set<string>();
  for (const c of covers) for (const l of c.labels.keys()) taken.add(l);
  return requiredCoverage().filter((l) => !taken.has(l));
}

/** Every label taken, crash points first; with the scenarios that took it. */
export function coverageTable(covers: readonly ScenarioCover[]): { label: string; crashPoint: boolean; scenarios: string[] }[] {
  const by = new Map<string, string[]>();
  for (const c of covers) for (const l of c.labels.keys()) by.set(l, [...(by.get(l) ?? []), c.scenario.name]);
  return [...by.entries()]
    .map(([label, scenarios]) => ({ label, crashPoint: isCrashPoint(label), scenarios }))
    .sort((a, b) => Number(b.crashPoint) - Number(a.crashPoint) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
