// The cluster model (model/cluster/stateMachine.ts, model/cluster/boundedHistories.ts) as a `Model`
// for the explorer: properties of SPEC §6, coverage of every crash point,
// and a compact codec (codec.ts) that also gives symmetry over worker ids.
import { schemaError } from '../../spec/index.ts';
import type { ClusterAction } from '../../spec/index.ts';
import type { Goal, Invariant, Model } from '../explorer/index.ts';
import { byteSuccessorsFor } from './byteSuccessors.ts';
import { ClusterCodec } from './codec.ts';
import { observeCluster } from './stateMachine.ts';
import {
  clusterActionKind,
  describeExploredAction,
  enabledClusterActions,
  encodeExplored,
  ghostViolation,
  initialExplored,
  isFault,
  isQuiescent,
  nextExplored,
  quiescentResultWrong,
  unboundedCopy,
  type ClusterModelConfig,
  type ExploredState,
} from './boundedHistories.ts';

/** An enabled action with its coverage label, computed where it is enabled. */
export interface LabelledAction {
  /** The action. */
  readonly action: ClusterAction;
  /** Its coverage label: the kind of step, such as `commit@fenced` or `crash:owner@steady`. */
  readonly kind: string;
}

/**
 * The coverage the bounds of a preset must reach: every kind of step, and
 * every crash point of a migration (source, destination, coordinator, after
 * each step) and of steady processing. Crash points inside the window between
 * the parts of commit or failover need a second crash (the first one opened
 * the window) and are listed only when the crash budget allows two.
 */
export function expectedClusterKinds(config: ClusterModelConfig): string[] {
  const b = config.bounds;
  const kinds = ['record', 'process'];
  if (b.crashes > 0) kinds.push('restart:worker', 'restart:coordinator');
  if (b.checkpoints > 0) kinds.push('checkpoint');
  if (b.pauses > 0) kinds.push('pause', 'resume');
  if (b.migrations > 0) {
    kinds.push('freeze', 'persist', 'install', 'install(retry)', 'commit@installed', 'release', 'abort');
    if (b.crashes > 0) {
      kinds.push('commit+crash-after-fence', 'commit@fenced');
      for (const role of ['src', 'dst', 'coordinator']) {
        for (const phase of ['frozen', 'persisted', 'installed', 'committed']) kinds.push(`crash:${role}@migrate@${phase}`);
        // Inside the window between the parts of commit: the first crash opened it.
        if (b.crashes > 1) kinds.push(`crash:${role}@migrate@fenced`);
      }
    }
    if (b.duplicates > 0) kinds.push('duplicateInstall', 'duplicateInstall:refused', 'duplicateRelease');
  }
  if (b.failovers > 0) {
    kinds.push('failover');
    // Failover needs a dead owner: a paused one, or a crash the fault budget must also pay for.
    if (b.crashes > 0 && (b.pauses > 0 || b.crashes > 1)) kinds.push('failover+crash-after-fence');
    // The failover's destination crashing inside its window takes one more crash.
    if (b.crashes > 1 && (b.pauses > 0 || b.crashes > 2)) kinds.push('crash:dst@failover@fenced');
  }
  if (b.crashes > 0) kinds.push('crash:owner@steady', 'crash:coordinator@steady', 'crash:idle@steady');
  if (b.failovers > 0 && b.pauses > 0) kinds.push('process:fenced');
  return kinds;
}

/** Refines the coverage label with what the action is about to do. */
function labelOf(s: ExploredState, a: ClusterAction): string {
  const kind = clusterActionKind(s, a);
  const st = s.cluster;
  if (a.type === 'process') {
    const copy = st.workers[a.worker]?.keys[a.key];
    if (copy && copy.epoch < (st.sink.fence[a.key] ?? 0)) return 'process:fenced';
  }
  if (a.type === 'duplicateInstall') {
    const m = st.lastInstall[a.key];
    const held = m ? st.workers[m.dst]?.keys[a.key] : undefined;
    if (m && held && held.epoch >= m.epoch) return 'duplicateInstall:refused';
  }
  return kind;
}

// ---------------------------------------------------------------------------

/**
 * Simulation: the weight of each kind of action (simulate.ts shares it among
 * the enabled actions of the kind). The workload and the handoffs move
 * along (records, processing, each step of a handoff in flight); faults are
 * rare in steady state, so that the budgets last a walk, and common inside a
 * handoff, at its phase boundaries, where the protocol's elements earn their
 * keep (every necessity counterexample has a fault there); duplicated
 * messages and restarts come up often enough to replay work.
 */
export function simulationWeight(kind: string): number {
  const known = WEIGHTS.get(kind);
  if (known !== undefined) return known;
  if (kind.startsWith('crash:')) return kind.endsWith('@steady') ? 0.05 : 1.5;
  if (kind.startsWith('commit@')) return 5;
  return 1;
}

const WEIGHTS = new Map<string, number>([
  ['record', 10],
  ['process', 20],
  ['process:fenced', 20],
  ['checkpoint', 0.3],
  ['freeze', 0.3],
  ['failover', 2],
  ['persist', 5],
  ['install', 5],
  ['install(retry)', 1],
  ['release', 5],
  ['abort', 0.5],
  ['commit+crash-after-fence', 1.5],
  ['failover+crash-after-fence', 1.5],
  ['duplicateInstall', 0.5],
  ['duplicateInstall:refused', 0.5],
  ['duplicateRelease', 0.5],
  ['pause', 0.1],
  ['resume', 1],
  ['restart:worker', 1],
  ['restart:coordinator', 2],
]);

/** A reachability goal of the explored cluster (byteSuccessors.ts judges each on bytes too). */
export type ClusterGoalKind = 'consumed' | 'handed-over' | 'failover' | 'crash';

/**
 * The goals the bounds allow, in the model's order: only those, so that a pass is never vacuous
 * and a small bound is not failed for a goal it cannot reach.
 */
function clusterGoalKinds(config: ClusterModelConfig): ClusterGoalKind[] {
  const b = config.bounds;
  const kinds: ClusterGoalKind[] = ['consumed'];
  if (b.migrations > 0) kinds.push('handed-over');
  if (b.failovers > 0) kinds.push('failover');
  if (b.crashes > 0) kinds.push('crash');
  return kinds;
}

function clusterGoal(config: ClusterModelConfig, kind: ClusterGoalKind): Goal<ExploredState> {
  switch (kind) {
    case 'consumed':
      return {
        name: 'the whole workload consumed',
        reached: (s) => s.cluster.log.length === config.bounds.script.length && isQuiescent(config, s),
      };
    case 'handed-over':
      return {
        name: 'a key handed over and settled',
        reached: (s) => s.used.migrations > 0 && isQuiescent(config, s) && Object.values(s.cluster.coordinator.epoch).some((e) => e > 1),
      };
    case 'failover':
      return { name: 'quiescent after a failover', reached: (s) => s.used.failovers > 0 && isQuiescent(config, s) };
    case 'crash':
      return { name: 'quiescent after a crash', reached: (s) => s.used.crashes > 0 && isQuiescent(config, s) };
  }
}

/** Options of `clusterExplorerModel`. */
export interface ClusterExplorerOptions {
  /** Shown in reports. */
  readonly name?: string;
}

/** The cluster model for the explorer (SPEC §6). */
export function clusterExplorerModel(
  config: ClusterModelConfig,
  options: ClusterExplorerOptions = {},
): Model<ExploredState, LabelledAction> {
  const invariants: Invariant<ExploredState>[] = [
    {
      name: 'ExactlyOnce',
      check: (s) => {
        const v = ghostViolation(s);
        return v?.startsWith('ExactlyOnce') ? v : quiescentResultWrong(config, s);
      },
    },
    { name: 'Fenced', check: (s) => (ghostViolation(s)?.startsWith('Fenced') ? ghostViolation(s) : undefined) },
    { name: 'BoundedState', check: (s) => unboundedCopy(config, s) },
  ];
  const b = config.bounds;
  // One initial state object, so that every explored log extends the same one (the logs are interned).
  const initial = initialExplored(config);
  let codec: ClusterCodec | undefined;
  const goalKinds = clusterGoalKinds(config);
  const goals = goalKinds.map((kind) => clusterGoal(config, kind));
  const actions = (s: ExploredState): LabelledAction[] => {
    const enabled = enabledClusterActions(config, s);
    const labelled: LabelledAction[] = new Array<LabelledAction>(enabled.length);
    for (let i = 0; i < enabled.length; i++)
      labelled[i] = { action: enabled[i] as ClusterAction, kind: labelOf(s, enabled[i] as ClusterAction) };
    return labelled;
  };
  const next = (s: ExploredState, a: LabelledAction): ExploredState => nextExplored(config, s, a.action);
  const progress: NonNullable<Model<ExploredState, LabelledAction>['progress']> = {
    name: 'Progress',
    quiescent: (s) => isQuiescent(config, s),
    isFault: (a) => isFault(a.action),
  };
  return {
    name:
      options.name ??
      `cluster ${config.cluster.keys.map((k) => k.key).join('+')} on ` +
        `${config.cluster.workers.length} workers${config.cluster.ablate?.length ? ` without ${config.cluster.ablate.join(', ')}` : ''}`,
    initialStates: () => [initial],
    actions,
    next,
    encode: (s) => encodeExplored(config, s, false),
    // Compact bytes for the frontier and fingerprints, symmetric over worker ids (codec.ts). Built on
    // first use: its tables of the script's prefixes take a quarter of a second for sim-large's 1,000
    // records, which a simulation (that never encodes a state) would pay on each of its threads.
    get codec(): ClusterCodec {
      if (codec === undefined) {
        codec = new ClusterCodec(config, initial);
        codec.successors = byteSuccessorsFor(config, codec, { actions, next, invariants, progress, goals }, goalKinds);
      }
      return codec;
    },
    actionKind: (a) => a.kind,
    describeAction: (a) => describeExploredAction(a.action),
    expectedActionKinds: expectedClusterKinds(config),
    invariants,
    goals,
    progress,
    weight: (_s, a) => simulationWeight(a.kind),
    // A record step stands for appending the workload's next record (the log is the script, in order).
    substitute: (s, wanted) => {
      if ((wanted as { type?: unknown } | null)?.type !== 'record') return undefined;
      const record = b.script[s.cluster.log.length];
      return record ? { action: { type: 'record', record }, kind: 'record' } : undefined;
    },
    actionToJson: (a) => a.action,
    actionFromJson: (json) => {
      const err = schemaError('cluster-action', json);
      if (err) throw new Error(err.text);
      // The label is recomputed by replay, which matches enabled actions by their JSON.
      return { action: json as ClusterAction, kind: 'replayed' };
    },
    stateToJson: (s) => ({
      observation: observeCluster(config.cluster, s.cluster),
      budgetsUsed: s.used,
      ...(s.cluster.ghost.violation ? { violation: s.cluster.ghost.violation } : {}),
    }),
  };
}
