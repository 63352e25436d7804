// The cluster model (model/cluster/stateMachine.ts, model/cluster/boundedHistories.ts) as a `Model`
// for the explorer: properties of SPEC §6, coverage of every crash point,
// symmetry over worker ids, and a fingerprint hashed from the fields.
import { schemaError } from '../../spec/index.ts';
import type { ClusterAction } from '../../spec/index.ts';
import { FieldHasher, type Goal, type Invariant, type Model } from '../explorer/index.ts';
import { worker, type ClusterState, type KeyCopy, type WorkerState } from './clusterState.ts';
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
  readonly action: ClusterAction;
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
// Symmetry over worker ids (SPEC §6). The signature of a worker is every
// fact the state holds about it, without its name; sorting workers by it and
// renaming them in that order maps every state to one member of its class.

const hasher = new FieldHasher();
const lanes = new Int32Array(2);

function hashCopy(h: FieldHasher, c: KeyCopy | undefined): void {
  if (!c) {
    h.small(-1);
    return;
  }
  h.small(c.cursor * 2 + (c.frozen ? 1 : 0)).small(c.epoch);
}

function workerSignature(config: ClusterModelConfig, st: ClusterState, w: string): number {
  const ws = worker(st, w);
  const h = hasher.reset();
  h.small(STATUS[ws.status]);
  for (const { key } of config.cluster.keys) {
    hashCopy(h, ws.keys[key]);
    h.small(
      (st.coordinator.owner[key] === w ? 1 : 0) | (st.lastInstall[key]?.dst === w ? 2 : 0) | (st.lastRelease[key]?.src === w ? 4 : 0),
    );
  }
  const handoff = st.coordinator.handoff;
  h.small((handoff?.src === w ? 1 : 0) | (handoff?.dst === w ? 2 : 0));
  h.finish(lanes);
  // Both lanes, so that unequal signatures almost never tie.
  return (lanes[0] as number) * 4294967296 + ((lanes[1] as number) >>> 0);
}

const PHASES = ['frozen', 'persisted', 'installed', 'fenced', 'committed'] as const;
const STATUS = { up: 0, paused: 1, down: 2 } as const;

/** Small numbers for match ids, so a fingerprint hashes one word per match (any fixed numbering will do). */
const matchNumbers = new Map<string, number>();
function matchNumber(id: string): number {
  let n = matchNumbers.get(id);
  if (n === undefined) matchNumbers.set(id, (n = matchNumbers.size + 1));
  return n;
}

const byNumber = (a: number, b: number): number => a - b;

/**
 * The 64-bit fingerprint of what `encodeExplored` encodes, hashed field by
 * field (no string built). With `symmetric`, of the state's class under
 * renaming workers: each worker is named by its rank in signature order
 * instead of by its position in the config, and the workers are taken in
 * that order.
 */
export function fingerprintExplored(config: ClusterModelConfig, s: ExploredState, out: Int32Array, symmetric: boolean): void {
  const st = s.cluster;
  const workers = config.cluster.workers;
  const n = workers.length;
  // order[r]: the worker of rank r; order.indexOf(w) its inverse (n is tiny).
  const order: string[] = new Array<string>(n);
  if (symmetric) {
    const sigs = new Array<number>(n);
    const idx = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      sigs[i] = workerSignature(config, st, workers[i] as string);
      idx[i] = i;
    }
    // Insertion sort: n is tiny, and no comparator closure is allocated.
    for (let i = 1; i < n; i++) {
      const v = idx[i] as number;
      let j = i - 1;
      while (j >= 0 && (sigs[idx[j] as number] as number) > (sigs[v] as number)) {
        idx[j + 1] = idx[j] as number;
        j--;
      }
      idx[j + 1] = v;
    }
    for (let r = 0; r < n; r++) order[r] = workers[idx[r] as number] as string;
  } else {
    for (let r = 0; r < n; r++) order[r] = workers[r] as string;
  }
  const h = hasher.reset();
  const u = s.used;
  h.small(st.log.length).small(u.migrations).small(u.failovers).small(u.crashes).small(u.pauses).small(u.duplicates).small(u.checkpoints);
  const c = st.coordinator;
  h.bool(c.up);
  const hd = c.handoff;
  if (hd) {
    h.small(hd.kind === 'migrate' ? 1 : 2)
      .str(hd.key)
      .small(order.indexOf(hd.src))
      .small(order.indexOf(hd.dst));
    h.small(hd.from).small(PHASES.indexOf(hd.phase));
  } else h.small(0);
  for (const { key } of config.cluster.keys) {
    h.small(order.indexOf(c.owner[key] as string))
      .small(c.epoch[key] ?? 0)
      .small(st.sink.fence[key] ?? 0)
      .small(st.ghost.prefix[key] ?? 0);
    const cp = st.store[key];
    if (cp) h.small(cp.cursor + 1).small(cp.epoch);
    else h.small(0);
    const m = st.lastInstall[key];
    if (m)
      h.small(order.indexOf(m.dst))
        .small(m.epoch)
        .small(m.checkpoint ? m.checkpoint.cursor : -1);
    else h.small(-2);
    const r = st.lastRelease[key];
    if (r) h.small(order.indexOf(r.src)).small(r.epoch);
    else h.small(-2);
    const matches = st.sink.matches[key] ?? {};
    const nums: number[] = [];
    for (const id in matches) nums.push(matchNumber(id) * 2 + (matches[id] === 'inserted' ? 1 : 0));
    if (nums.length > 1) nums.sort(byNumber);
    h.small(nums.length);
    for (const x of nums) h.small(x);
  }
  for (let r = 0; r < n; r++) {
    const ws = st.workers[order[r] as string] as WorkerState;
    h.small(STATUS[ws.status]);
    for (const { key } of config.cluster.keys) hashCopy(h, ws.keys[key]);
  }
  h.bool(st.ghost.violation !== null);
  h.finish(out);
}

// ---------------------------------------------------------------------------

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
  // Goals only for what the bounds allow, so that a pass is never vacuous and
  // a small bound is not failed for a goal it cannot reach.
  const b = config.bounds;
  const goals: Goal<ExploredState>[] = [
    { name: 'the whole workload consumed', reached: (s) => s.cluster.log.length === b.script.length && isQuiescent(config, s) },
  ];
  if (b.migrations > 0) {
    goals.push({
      name: 'a key handed over and settled',
      reached: (s) => s.used.migrations > 0 && isQuiescent(config, s) && Object.values(s.cluster.coordinator.epoch).some((e) => e > 1),
    });
  }
  if (b.failovers > 0) goals.push({ name: 'quiescent after a failover', reached: (s) => s.used.failovers > 0 && isQuiescent(config, s) });
  if (b.crashes > 0) goals.push({ name: 'quiescent after a crash', reached: (s) => s.used.crashes > 0 && isQuiescent(config, s) });
  return {
    name:
      options.name ??
      `cluster ${config.cluster.keys.map((k) => k.key).join('+')} on ${config.cluster.workers.length} workers` +
        (config.cluster.ablate?.length ? ` without ${config.cluster.ablate.join(', ')}` : ''),
    initialStates: () => [initialExplored(config)],
    actions: (s) => {
      const enabled = enabledClusterActions(config, s);
      const labelled: LabelledAction[] = new Array<LabelledAction>(enabled.length);
      for (let i = 0; i < enabled.length; i++)
        labelled[i] = { action: enabled[i] as ClusterAction, kind: labelOf(s, enabled[i] as ClusterAction) };
      return labelled;
    },
    next: (s, a) => nextExplored(config, s, a.action),
    encode: (s) => encodeExplored(config, s, false),
    fingerprint: (s, out) => fingerprintExplored(config, s, out, false),
    canonical: {
      encode: (s) => encodeExplored(config, s, true),
      fingerprint: (s, out) => fingerprintExplored(config, s, out, true),
    },
    actionKind: (a) => a.kind,
    describeAction: (a) => describeExploredAction(a.action),
    expectedActionKinds: expectedClusterKinds(config),
    invariants,
    goals,
    progress: { name: 'Progress', quiescent: (s) => isQuiescent(config, s), isFault: (a) => isFault(a.action) },
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
