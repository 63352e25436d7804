// Random cluster traces for fast-check: the one generator behind `streamjoin
// conform`'s random traces, the harness benchmark, and impl/'s lockstep and
// durability tests.
//
// A trace is generated as a workload (a log, in contract, J9) and a list of
// *choices*, interpreted by walking the reference model: each choice appends
// a few workload records and then picks one control action among those
// enabled in the model's current state (rarely, on purpose, one that is not
// enabled, which the system must refuse, §7), or a multi-step scenario (a
// whole migration, an owner declared dead while it runs on), or, when asked
// for, a crash of every node at once (a whole-cluster reopen). A scenario
// may get one action more, any enabled one, at any of its steps, and at
// level faults may be split at its fences (the rest of it between the two
// parts). A trace ends as a stream does: nodes restarted or resumed, the
// handoff in flight finished, every record processed. Because the
// choices are interpreted against the state, shrinking a choice list
// (dropping choices, fewer records, smaller picks) always yields a valid
// trace again.
//
// Some traces use odd names (`__proto__`, `constructor`, ids with `/`, `%`,
// `|R:`): keys, workers and row ids that break naive object maps, path
// splitting or ambiguous (unescaped) match ids; some use keys and ids that
// collide under a naive match-id encoding with a common separator (J3).
//
// Refusals are probed where they matter most: after each step that moves a
// handoff or a failover to another phase, a choice may send every handoff
// action the model refuses there (an abort one phase too late, a second
// commit, a release before the commit, ...), which the system must refuse
// without a change (§7); at level faults, after each step that changes a
// node's liveness, every crash, restart, pause or resume of that node the
// model refuses there (a pause of a paused worker, a restart of a node that
// is up, C10), and, for each worker a pause of which alone would refuse one
// of the key's handoff steps, that worker paused, those steps probed and the
// worker resumed (a failover's commit to a paused destination, C8). Workloads (clusterWorkloads.ts) hit the edges of
// the rules (logs.ts `EdgeStep`: lateness, watermarks, lengths, the time
// range, horizons) and build rich operator state (live rows out of horizon
// order, tombstones, a match with an evicted endpoint, both watermarks set)
// that handoffs then carry; the domains they draw from are in
// clusterDomains.ts.
import fc from 'fast-check';
import { CLUSTER_TRACE_FORMAT, levelOfAction, COORDINATOR } from '../../spec/index.ts';
import type {
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  ClusterTrace,
  ExternalAction,
  LogRecord,
} from '../../spec/index.ts';
import {
  applyExternal,
  initialClusterState,
  observeCluster,
  whyNotEnabled,
  type ClusterSetup,
  type ClusterState,
} from '../../model/index.ts';
import {
  type ClusterDomain,
  collidingClusterDomain,
  longClusterDomain,
  lineBreakClusterDomain,
  looselyEqualClusterDomains,
  oddClusterDomain,
  smallClusterDomain,
  UNDECLARED_KEY,
  wideClusterDomain,
} from './clusterDomains.ts';
import { workloadArbitrary, workloadPrelude } from './clusterWorkloads.ts';
import { watermarksAgain } from './edges.ts';
import { boundsArbitrary } from './logs.ts';

/** One control choice: how many workload records come first, then which action. */
export interface ControlChoice {
  readonly records: number;
  /** Index into the candidates, modulo their number. */
  readonly pick: number;
  /** Pick among the actions that are NOT enabled (the system must refuse it, §7). */
  readonly disabled: boolean;
  /** Crash every node at once instead of an action (only where asked for: `reopen`). */
  readonly reopen: boolean;
  /** Which refused action a lockstep test probes before this step (`ChoiceStep.refused`). */
  readonly probe: number;
  /** After each step of this choice that moves a handoff to another phase, send every handoff action the model refuses there (§7). */
  readonly probeBoundary: boolean;
  /**
   * A scenario picked at level `faults` splits each of its commits and
   * failovers at the fence: the coordinator crashes after the fence, and
   * restarts and a commit completes the step (C7, C8) only when the rest of
   * the scenario needs it, so that the rest falls between the two parts.
   */
  readonly split: boolean;
  /**
   * A scenario picked gets one more action, one of those enabled then
   * (picked by `interjectPick`: an odd pick among the liveness actions of
   * the nodes the scenario names), after its step `interject - 1`
   * (modulo its steps); 0: none. So the scenarios' phases meet every action,
   * not only the next step of their script: a retried install in phase
   * fenced, an abort while the destination holds a zombie's copy, a zombie
   * resumed between a failover's two parts.
   */
  readonly interject: number;
  readonly interjectPick: number;
}

const UNKNOWN_WORKER = 'w-unknown';

/** Every control action over the config's keys and workers, at a level (the candidates a choice picks from). */
export function controlActions(config: ClusterConfig, level: 'cluster' | 'faults'): ExternalAction[] {
  const out: ExternalAction[] = [];
  const keys = config.keys.map((k) => k.key);
  for (const key of keys) {
    for (const to of config.workers) out.push({ type: 'freeze', key, to });
    out.push({ type: 'persist', key }, { type: 'install', key }, { type: 'commit', key }, { type: 'release', key }, { type: 'abort', key });
    for (const worker of config.workers) out.push({ type: 'checkpoint', worker, key });
  }
  if (level === 'faults') {
    for (const key of keys) {
      out.push({ type: 'commit', key, crashAfterFence: true });
      for (const to of config.workers) out.push({ type: 'failover', key, to }, { type: 'failover', key, to, crashAfterFence: true });
      out.push({ type: 'duplicateInstall', key }, { type: 'duplicateRelease', key });
    }
    for (const node of [...config.workers, COORDINATOR]) out.push({ type: 'crash', node }, { type: 'restart', node });
    for (const worker of config.workers) out.push({ type: 'pause', worker }, { type: 'resume', worker });
  }
  return out.filter((a) => level === 'faults' || levelOfAction(a) === 'cluster');
}

/** Actions no state enables: processing (eager, §7) and names nobody declared; probes for refusals. */
function neverEnabled(config: ClusterConfig): ClusterAction[] {
  const key = config.keys[0].key;
  const worker = config.workers[0];
  return [
    { type: 'process', worker, key },
    { type: 'freeze', key, to: UNKNOWN_WORKER },
    { type: 'freeze', key: UNDECLARED_KEY, to: worker },
    { type: 'crash', node: UNKNOWN_WORKER },
    { type: 'checkpoint', worker: UNKNOWN_WORKER, key },
    { type: 'failover', key: UNDECLARED_KEY, to: worker },
  ];
}

/**
 * How often a choice picks an action, relative to the others: the steps of a
 * handoff in flight, recoveries (restart, resume, failover) high, so that
 * handoffs complete and crashed nodes come back within short traces.
 */
function weightOf(a: ExternalAction): number {
  switch (a.type) {
    case 'persist':
    case 'install':
    case 'release':
      return 6;
    case 'commit':
      // The crash between the parts of commit opens phase `fenced`, whose refusals (no abort past the fence) are probed after it.
      return a.crashAfterFence ? 3 : 6;
    case 'restart':
    case 'resume':
      return 3;
    case 'failover':
      return a.crashAfterFence ? 1 : 3;
    case 'freeze':
      return 2;
    default:
      return 1;
  }
}

/** Crash every node that is not down: what a dying process does to a cluster it runs whole. */
export function crashEverything(setup: ClusterSetup, state: ClusterState): ClusterState {
  let next = state;
  for (const node of [COORDINATOR, ...setup.workers]) {
    const a: ClusterAction = { type: 'crash', node };
    if (whyNotEnabled(setup, next, a) === undefined) next = applyExternal(setup, next, a).state;
  }
  return next;
}

/** One item of an interpreted choice list: an external action (with its refusal probe number), or a whole-cluster crash. */
export type ChoiceItem =
  | { readonly kind: 'action'; readonly action: ExternalAction; readonly probe: number; readonly note?: string }
  | { readonly kind: 'reopen' };

/**
 * The note on the crash of the coordinator's detour (`coordinatorDetour`):
 * kill mode leaves it a plain request, not a crash point to kill at (a kill
 * there would crash every node, and the steps after it were drawn for the
 * state the detour leaves as it was).
 */
export const DETOUR_CRASH_NOTE =
  'the coordinator crashed for the probes its being down refuses, and restarted after them (a no-op pair, C10)';

/**
 * Multi-step scenarios a single choice may pick, so that the deep
 * interleavings the protocol elements exist for (a whole migration; an owner
 * declared dead and failed over while it still runs, a zombie to be) are
 * reached in short random traces, and records can still fall between them.
 */
type ScenarioStep = ExternalAction | { readonly records: number };

/**
 * A scenario, how often it is picked, and whether it runs exactly as written:
 * never split at its fences nor given one more action (ControlChoice
 * `split`, `interject`), for a script whose point needs its steps adjacent.
 */
interface Scenario {
  readonly sequence: readonly ScenarioStep[];
  readonly weight: number;
  readonly exact?: true;
}

function scenarios(config: ClusterConfig, level: 'cluster' | 'faults', owner: Readonly<Record<string, string>>): Scenario[] {
  const out: Scenario[] = [];
  for (const { key } of config.keys) {
    const from = owner[key] as string;
    for (const to of config.workers) {
      if (to === from) continue;
      out.push({
        weight: 3,
        sequence: [
          { type: 'freeze', key, to },
          { type: 'persist', key },
          { type: 'install', key },
          { type: 'commit', key },
          { type: 'release', key },
        ],
      });
      // A migration with records between its phases: the frozen key's records wait in the log (C3).
      out.push({
        weight: 2,
        sequence: [
          { type: 'freeze', key, to },
          { records: 2 },
          { type: 'persist', key },
          { type: 'install', key },
          { records: 1 },
          { type: 'commit', key },
          { type: 'release', key },
        ],
      });
      if (level === 'faults') {
        // Migrated, then the new owner crashes and the key fails back to the worker that owned it before,
        // while the last install and release messages are delivered again (C6, C7, C8, C11). The owner
        // checkpoints before the install's duplicate: the store has moved on since the install was sent, and
        // the duplicate must still carry the checkpoint it was sent with (C11: exactly as sent).
        out.push({
          weight: 2,
          sequence: [
            { type: 'freeze', key, to },
            { type: 'persist', key },
            { type: 'install', key },
            { type: 'commit', key },
            { type: 'release', key },
            { records: 2 },
            { type: 'crash', node: to },
            { type: 'failover', key, to: from },
            { type: 'duplicateRelease', key },
            { records: 1 },
            { type: 'checkpoint', worker: from, key },
            { type: 'restart', node: to },
            { type: 'duplicateInstall', key },
          ],
        });
        // The coordinator crashes between the fence and the ownership (C7): phase `fenced`, where the handoff only goes forward;
        // restarted, it may retry the install first (C6: it cannot know the message arrived), which leaves the phase fenced.
        for (const retry of [false, true]) {
          out.push({
            weight: retry ? 1 : 2,
            sequence: [
              { type: 'freeze', key, to },
              { type: 'persist', key },
              { type: 'install', key },
              { type: 'commit', key, crashAfterFence: true },
              { records: 1 },
              { type: 'restart', node: COORDINATOR },
              ...(retry ? [{ type: 'install', key } as const] : []),
              { type: 'commit', key },
              { type: 'release', key },
            ],
          });
        }
        // The owner is declared dead while it runs on: a zombie when it resumes (C9, C10).
        out.push({
          weight: 2,
          sequence: [{ type: 'pause', worker: from }, { type: 'failover', key, to }, { records: 3 }, { type: 'resume', worker: from }],
        });
        // The zombie checkpoints under its old epoch (C4), and the store is read again: by the owner's restart (C10), by a
        // failover to the zombie's worker (C8), or by an install of a migration back to it (C6). Nothing is appended between the
        // failover and the checkpoint: the zombie's first write would be fenced and drop its copy (C9). So these run exactly.
        const zombie: ScenarioStep[] = [
          { type: 'pause', worker: from },
          { type: 'failover', key, to },
          { type: 'resume', worker: from },
          { type: 'checkpoint', worker: from, key },
        ];
        // A migration back to the zombie's worker, up to its persist.
        const back: ScenarioStep[] = [...zombie.slice(0, 3), { type: 'freeze', key, to: from }, { type: 'persist', key }];
        out.push(
          {
            weight: 2,
            exact: true,
            sequence: [...zombie, { type: 'crash', node: to }, { records: 1 }, { type: 'restart', node: to }, { records: 2 }],
          },
          {
            weight: 2,
            exact: true,
            sequence: [...zombie, { type: 'crash', node: to }, { type: 'failover', key, to: from }, { records: 2 }],
          },
          {
            weight: 2,
            exact: true,
            sequence: [
              ...back,
              { type: 'checkpoint', worker: from, key },
              { type: 'install', key },
              { type: 'commit', key },
              { records: 2 },
              { type: 'release', key },
            ],
          },
          // The same migration back, abandoned (C5): the zombie's own copy at the destination is not the one the
          // handoff installs, and stays.
          {
            weight: 1,
            sequence: [...back, { type: 'abort', key }, { records: 2 }],
          },
        );
        // The owner stalls while records of its keys arrive, then catches up on all of them at once: eager processing
        // orders its copies (SPEC §7), more than ten of them in a wide config.
        if (config.keys.filter((k) => owner[k.key] === from).length >= 2) {
          out.push(
            { weight: 2, sequence: [{ type: 'pause', worker: from }, { records: 4 }, { type: 'resume', worker: from }] },
            { weight: 1, sequence: [{ type: 'crash', node: from }, { records: 4 }, { type: 'restart', node: from }] },
          );
        }
        // The owner crashes: the new owner replays from the latest checkpoint (C8, C9 dedup and terminal retract).
        out.push({
          weight: 3,
          sequence: [{ type: 'crash', node: from }, { type: 'failover', key, to }, { records: 2 }, { type: 'restart', node: from }],
        });
      }
    }
  }
  return out;
}

/** The actions that need the coordinator up (C5–C8): every handoff step. */
const COORDINATOR_STEPS: ReadonlySet<string> = new Set(['freeze', 'persist', 'install', 'commit', 'release', 'abort', 'failover']);

/**
 * A scenario with each commit and failover split at its fence (ControlChoice
 * `split`): the step with `crashAfterFence` and a record; the rest of the
 * scenario goes on with the coordinator down for as long as it can (a
 * zombie resumed, a worker restarted or crashed, a message delivered again,
 * records: all between the two parts), and the coordinator's restart and
 * the commit that completes the step (C7, C8) come before the first step
 * that needs the coordinator or a checkpoint, or at the end.
 */
function splitAtFences(sequence: readonly ScenarioStep[]): ScenarioStep[] {
  const out: ScenarioStep[] = [];
  let pending: string | undefined;
  const complete = (): void => {
    if (pending === undefined) return;
    out.push({ type: 'restart', node: COORDINATOR }, { type: 'commit', key: pending });
    pending = undefined;
  };
  // Keys whose fence the script itself raised with crashAfterFence: its own later commit completes the step, and
  // is no fence to split (the model refuses a commit with crashAfterFence past the fence).
  const fencedByScript = new Set<string>();
  for (const a of sequence) {
    if (!('type' in a) || (a.type !== 'commit' && a.type !== 'failover')) {
      // A checkpoint needs the copy a failover restores only at its commit (C8): the commit comes first too.
      if ('type' in a && (COORDINATOR_STEPS.has(a.type) || a.type === 'checkpoint')) complete();
      out.push(a);
      continue;
    }
    complete();
    if (a.crashAfterFence === true) {
      fencedByScript.add(a.key);
      out.push(a);
    } else if (a.type === 'commit' && fencedByScript.delete(a.key)) out.push(a);
    else {
      out.push({ ...a, crashAfterFence: true }, { records: 1 });
      pending = a.key;
    }
  }
  complete();
  return out;
}

/**
 * Where the handoff of `key` stands: what a refusal probe's answer depends
 * on. The guards of a handoff's steps name the coordinator, the key's owner
 * and the handoff's destination (an install needs it up, C6; a failover's
 * commit waits for it to be unpaused, C8): the liveness of each is part of it.
 */
function phaseOf(state: ClusterState, key: string): string {
  const c = state.coordinator;
  const h = c.handoff && c.handoff.key === key ? c.handoff : undefined;
  const owner = c.owner[key] as string;
  const handoff = h ? `${h.kind}@${h.phase} to ${h.dst}:${state.workers[h.dst]?.status}` : 'steady';
  return `${c.up ? 'up' : 'down'} ${handoff} ${owner}@${c.epoch[key]} ${state.workers[owner]?.status}`;
}

/**
 * The handoff actions for `key` at `level` that a phase boundary is probed
 * with: every step of a migration, a freeze and a failover towards a worker
 * that does not own the key (towards the owner they are refused in every
 * phase alike), and the duplicated messages.
 */
/** The first worker in config order that does not own `key` (the first worker when only the owner is there). */
function otherWorker(state: ClusterState, config: ClusterConfig, key: string): string {
  return config.workers.find((w) => w !== state.coordinator.owner[key]) ?? (config.workers[0] as string);
}

function handoffProbes(state: ClusterState, config: ClusterConfig, level: 'cluster' | 'faults', key: string): ExternalAction[] {
  const other = otherWorker(state, config, key);
  const out: ExternalAction[] = [
    { type: 'persist', key },
    { type: 'install', key },
    { type: 'commit', key },
    { type: 'release', key },
    { type: 'abort', key },
    { type: 'freeze', key, to: other },
  ];
  if (level === 'faults') {
    out.push(
      { type: 'commit', key, crashAfterFence: true },
      { type: 'failover', key, to: other },
      { type: 'duplicateInstall', key },
      { type: 'duplicateRelease', key },
    );
  }
  return out;
}

/** Each node's liveness (the coordinator's and every worker's), in a fixed order. */
function livenessOf(state: ClusterState, config: ClusterConfig): string[] {
  return [state.coordinator.up ? 'up' : 'down', ...config.workers.map((w) => state.workers[w]?.status ?? 'down')];
}

/**
 * The liveness actions of a node (C10: each enabled only from the state it
 * leaves): crash and restart for the coordinator and each worker, pause and
 * resume for a worker. A step that changed the node's liveness is probed
 * with every one the model now refuses.
 */
function livenessProbes(node: string): ExternalAction[] {
  const out: ExternalAction[] = [
    { type: 'crash', node },
    { type: 'restart', node },
  ];
  if (node !== COORDINATOR) out.push({ type: 'pause', worker: node }, { type: 'resume', worker: node });
  return out;
}

/**
 * The nodes a scenario names, as it is picked: the coordinator, the owner
 * then of each key it names, and each worker it names (a destination, a
 * node it crashes, pauses or restarts).
 */
function namedNodes(scenario: readonly ScenarioStep[], owner: Readonly<Record<string, string>>): Set<string> {
  const named = new Set<string>([COORDINATOR]);
  for (const a of scenario) {
    if ('records' in a) continue;
    if ('key' in a && owner[a.key] !== undefined) named.add(owner[a.key] as string);
    if ('to' in a) named.add(a.to);
    if ('node' in a) named.add(a.node);
    if ('worker' in a) named.add(a.worker);
  }
  return named;
}

/**
 * Interprets a workload and choices against the model: the items of a
 * trace, every action enabled except those a `disabled` choice picked on
 * purpose; with `reopen`, a choice marked so crashes every node instead.
 */
export function interpretChoiceItems(
  config: ClusterSetup,
  level: 'cluster' | 'faults',
  workload: readonly LogRecord[],
  choices: readonly ControlChoice[],
  options: { readonly reopen?: boolean } = {},
): ChoiceItem[] {
  // Conformance compares observations only: no ghost state for properties.
  const setup: ClusterSetup = { ...config, checkProperties: false };
  const universe = controlActions(config, level);
  let state = initialClusterState(setup);
  const items: ChoiceItem[] = [];
  let next = 0;
  let probe = 0;
  const enabled = (a: ExternalAction): boolean => whyNotEnabled(setup, state, a) === undefined;
  let boundaryProbes = false;
  const take = (a: ExternalAction): void => {
    items.push({ kind: 'action', action: a, probe });
    if (!enabled(a)) return;
    // Pause detours follow every phase boundary at level faults; the other probes, a boundary-probing choice's.
    const before =
      (boundaryProbes || level === 'faults') && a.type !== 'record' ? config.keys.map(({ key }) => phaseOf(state, key)) : undefined;
    const livenessBefore = boundaryProbes && level === 'faults' ? livenessOf(state, config) : undefined;
    const { state: after, events } = applyExternal(setup, state, a);
    state = after;
    // A node whose liveness the step changed (a crash, a restart, a pause, a resume, a commit or a failover that
    // crashed after its fence): every liveness action of that node the model now refuses (C10, §7).
    if (livenessBefore) {
      const now = livenessOf(state, config);
      [COORDINATOR, ...config.workers].forEach((node, i) => {
        if (now[i] === livenessBefore[i]) return;
        for (const p of livenessProbes(node)) if (!enabled(p)) items.push({ kind: 'action', action: p, probe });
      });
    }
    // At a phase boundary of a handoff or a failover (a key's handoff phase, owner, or its owner's, destination's or the coordinator's status changed):
    // every handoff action the model now refuses for that key (§7).
    if (before) {
      for (const [i, { key }] of config.keys.entries()) {
        if (phaseOf(state, key) === before[i]) continue;
        if (boundaryProbes)
          for (const p of handoffProbes(state, config, level, key)) if (!enabled(p)) items.push({ kind: 'action', action: p, probe });
        if (level === 'faults') {
          pauseDetours(key);
          coordinatorDetour(key);
        }
      }
    }
    if (level === 'faults') for (const { key } of config.keys) downProbes(key);
    // A copy restored from a checkpoint (an install, a failover, a restart: C6, C8, C10) is sent the latest watermarks again:
    // stale for a copy that holds them (J4), accepted by one restored without them, which diverges there (C2: they are its state).
    if (events.some((e) => e.type === 'restored')) for (const record of watermarksAgain(state.log)) take({ type: 'record', record });
  };
  const records = (n: number): void => {
    for (let i = 0; i < n && next < workload.length; i++) take({ type: 'record', record: workload[next++] as LogRecord });
  };
  /**
   * At a phase boundary of `key` (level faults): for each worker that is up,
   * the handoff actions of `key` and the worker's checkpoint of it that a
   * pause of that worker alone would refuse (C5-C8: a freeze's target, an install's or a
   * commit's destination, a release's or an abort's source must not be
   * paused). Where there is one, the worker is paused, each is sent as a
   * refusal probe (§7), and the worker is resumed: a pause and a resume
   * change nothing else (C10), so the trace goes on as it was. A system that
   * takes "paused" for "up" in one guard diverges at its probe, in whatever
   * phase the boundary falls.
   */
  const detoured = new Set<string>();
  /**
   * One detour through `off` and back through `on` (a pair that changes
   * nothing else, C10): each of `candidates` that `off` alone makes refused
   * is sent between them as a refusal probe (§7); once per trace for each
   * phase of `key`, node and set of steps (the same detour again would test
   * nothing new). The steps sent, or none.
   */
  const detour = (
    key: string,
    off: ExternalAction,
    on: ExternalAction,
    node: string,
    candidates: readonly ExternalAction[],
  ): ExternalAction[] => {
    const offState = applyExternal(setup, state, off).state;
    const refused = candidates.filter((a) => whyNotEnabled(setup, offState, a) !== undefined);
    const signature = JSON.stringify([phaseOf(state, key), node, refused]);
    if (refused.length === 0 || detoured.has(signature)) return [];
    detoured.add(signature);
    // A crash of the coordinator here is no crash point to kill at (DETOUR_CRASH_NOTE); the state after `on` is the state before `off`.
    items.push({ kind: 'action', action: off, probe, ...(off.type === 'crash' ? { note: DETOUR_CRASH_NOTE } : {}) });
    for (const a of [...refused, on]) items.push({ kind: 'action', action: a, probe });
    return refused;
  };
  const pauseDetours = (key: string): void => {
    for (const worker of config.workers) {
      const pause: ExternalAction = { type: 'pause', worker };
      if (!enabled(pause)) continue;
      const candidates = [
        ...handoffProbes(state, config, level, key),
        { type: 'failover', key, to: otherWorker(state, config, key), crashAfterFence: true } as const,
        // A checkpoint's guard names only its worker, whatever the phase: once per worker and key in a trace.
        ...(detoured.has(`checkpoint ${worker} ${key}`) ? [] : [{ type: 'checkpoint', worker, key } as const]),
      ].filter(enabled);
      // The worker was up, so after the resume it has no backlog to catch up on.
      const sent = detour(key, pause, { type: 'resume', worker }, worker, candidates);
      if (sent.some((a) => a.type === 'checkpoint')) detoured.add(`checkpoint ${worker} ${key}`);
    }
  };
  /**
   * At a phase boundary of `key` (level faults), the same for the
   * coordinator, with a crash for the pause: the key's handoff actions that
   * the coordinator's being down alone refuses (C5-C8: it takes every
   * step) are sent as refusal probes between a crash and a restart of the
   * coordinator. The pair changes nothing else (C10: the coordinator's
   * table, handoff record and last messages are durable; conform.test.ts
   * checks it over every state within reach), so the trace goes on as it
   * was.
   */
  const coordinatorDetour = (key: string): void => {
    const crash: ExternalAction = { type: 'crash', node: COORDINATOR };
    if (!enabled(crash)) return;
    const candidates = [
      ...handoffProbes(state, config, level, key),
      { type: 'failover', key, to: otherWorker(state, config, key), crashAfterFence: true } as const,
    ].filter(enabled);
    detour(key, crash, { type: 'restart', node: COORDINATOR }, COORDINATOR, candidates);
  };
  /**
   * After every step at level faults, for each node that is down: the
   * handoff actions of `key` that its being down alone refuses, each sent as
   * a refusal probe (§7). "Alone": the action is enabled in the same state
   * with that node up and nothing else changed (a worker's copies still
   * gone). For a worker, the guards that need it up and nothing of it else
   * (C5, C6, C8, C11: a freeze's or a failover's target, an install's
   * destination, a duplicated message's destination or source); for the
   * coordinator, every step it takes (C5-C8). Unlike a pause, a crash is no
   * no-op to detour through (it empties the worker's copies), so these are
   * probed where the trace already has a node down: once per trace for each
   * phase, node and set of steps. A system that leaves out one such check
   * diverges at its probe.
   */
  const downProbes = (key: string): void => {
    const other = otherWorker(state, config, key);
    for (const node of [COORDINATOR, ...config.workers]) {
      let asUp: ClusterState;
      if (node === COORDINATOR) {
        if (state.coordinator.up) continue;
        asUp = { ...state, coordinator: { ...state.coordinator, up: true } };
      } else {
        const ws = state.workers[node];
        if (ws?.status !== 'down') continue;
        asUp = { ...state, workers: { ...state.workers, [node]: { ...ws, status: 'up' } } };
      }
      const target = node === COORDINATOR ? other : node;
      // handoffProbes has a freeze and a failover towards `other` already.
      const towards: ExternalAction[] =
        target === other
          ? []
          : [
              { type: 'freeze', key, to: target },
              { type: 'failover', key, to: target },
            ];
      const refused = [
        ...handoffProbes(state, config, level, key),
        ...towards,
        { type: 'failover', key, to: target, crashAfterFence: true } as const,
      ].filter((a) => !enabled(a) && whyNotEnabled(setup, asUp, a) === undefined);
      const signature = JSON.stringify(['down', phaseOf(state, key), node, refused]);
      if (refused.length === 0 || detoured.has(signature)) continue;
      detoured.add(signature);
      for (const a of refused) items.push({ kind: 'action', action: a, probe });
    }
  };
  /**
   * One more action inside a scenario (ControlChoice `interject`): with an
   * even pick any enabled one, each alike: the rare ones (an abort, a retry)
   * are the point; with an odd pick a crash, restart, pause or resume of a
   * node the scenario names (the coordinator, the key's owner, the
   * destination), each alike: the guards of a handoff's next step name
   * those nodes (a failover's commit waits for its destination to be
   * unpaused, C8), and among every enabled action one of them is rare.
   */
  const interjectOne = (pick: number, named: ReadonlySet<string>): void => {
    const enabledNow = universe.filter(enabled);
    const near = enabledNow.filter((a) =>
      a.type === 'crash' || a.type === 'restart' ? named.has(a.node) : (a.type === 'pause' || a.type === 'resume') && named.has(a.worker),
    );
    const candidates = pick % 2 === 1 && near.length > 0 ? near : enabledNow;
    const a = candidates[Math.floor(pick / 2) % Math.max(1, candidates.length)];
    if (a) take(a);
  };
  /**
   * The end of a trace, as a stream's: every node down is restarted (the
   * coordinator first) and every paused one resumed, and a handoff in flight
   * is finished (or, where it cannot go forward, abandoned), so that every
   * record reaches some copy and its changes the
   * sink (a trace that ended with a key's owner paused never showed what the
   * sink makes of that key's last records).
   */
  const drain = (): void => {
    const nodes = [COORDINATOR, ...config.workers];
    for (let guard = 0; guard < 2 * nodes.length + 8; guard++) {
      const h = state.coordinator.handoff;
      const next: ExternalAction | undefined =
        nodes.map((node): ExternalAction => ({ type: 'restart', node })).find(enabled) ??
        config.workers.map((worker): ExternalAction => ({ type: 'resume', worker })).find(enabled) ??
        // Commit before install: install is enabled again in phases installed and fenced (a retry, C6), and
        // taken first it would be retried for good; it is the step only where commit is not enabled yet.
        (h === null
          ? undefined
          : (
              [
                { type: 'persist', key: h.key },
                { type: 'commit', key: h.key },
                { type: 'release', key: h.key },
                { type: 'install', key: h.key },
                // A migration that cannot go forward (its frozen copy lost with its source) is abandoned (C5).
                { type: 'abort', key: h.key },
              ] as const
            ).find(enabled));
      if (next === undefined) return;
      take(next);
    }
  };
  // The workload's prelude (state in every key) comes before any control action: every handoff moves it (C6).
  records(workloadPrelude({ ...smallClusterDomain, keys: config.keys.map((k) => k.key) }).length);
  for (const choice of choices) {
    probe = choice.probe;
    boundaryProbes = choice.probeBoundary;
    records(choice.records);
    if (options.reopen && choice.reopen) {
      items.push({ kind: 'reopen' });
      state = crashEverything(setup, state);
      continue;
    }
    const candidates: Scenario[] = [];
    for (const a of universe) {
      if (enabled(a) === choice.disabled) continue;
      // Disabled actions are picked uniformly; enabled ones by weight.
      for (let w = choice.disabled ? 1 : weightOf(a); w > 0; w--) candidates.push({ sequence: [a], weight: 1, exact: true });
    }
    if (!choice.disabled) {
      for (const s of scenarios(config, level, state.coordinator.owner)) {
        if (!enabled(s.sequence[0] as ExternalAction)) continue;
        for (let w = s.weight; w > 0; w--) candidates.push(s);
      }
    }
    const pick = candidates[choice.pick % Math.max(1, candidates.length)];
    if (!pick) continue;
    const open = pick.exact !== true;
    const scenario = open && level === 'faults' && choice.split ? splitAtFences(pick.sequence) : pick.sequence;
    const interjectAfter = open && choice.interject > 0 ? (choice.interject - 1) % scenario.length : -1;
    // A scenario goes on while its next action is enabled (its first one is). Where an interjected action came
    // before, the step it stops at is sent all the same, as a refusal probe (§7): what disabled it (a pause of
    // the destination before a failover's commit, a crash of the source before a persist) is the guard it tests.
    const named = namedNodes(scenario, state.coordinator.owner);
    let interjected = false;
    for (const [i, a] of scenario.entries()) {
      if ('records' in a) records(a.records);
      else if (i > 0 && !enabled(a)) {
        if (interjected) take(a);
        break;
      } else take(a);
      if (interjectAfter === i) {
        interjectOne(choice.interjectPick, named);
        interjected = true;
      }
    }
  }
  records(workload.length);
  drain();
  return items;
}

/** The external actions of a trace (no whole-cluster crashes: a protocol has no such request). */
export function interpretChoices(
  config: ClusterConfig,
  level: 'cluster' | 'faults',
  workload: readonly LogRecord[],
  choices: readonly ControlChoice[],
): ExternalAction[] {
  return interpretChoiceItems(config, level, workload, choices).flatMap((item) => (item.kind === 'action' ? [item.action] : []));
}

/**
 * One step with the model's answer, for lockstep tests that drive a cluster
 * directly: an action, what it must cause (events, or the reason it is
 * refused) and the observation after it, and an action that is NOT enabled
 * just before it (to check that the cluster refuses it and changes
 * nothing); or a whole-cluster crash and the observation after it.
 */
export type ChoiceStep =
  | {
      readonly kind: 'action';
      readonly action: ExternalAction;
      readonly expected: { readonly events: ClusterEvent[] } | { readonly error: string };
      readonly observation: ClusterObservation;
      readonly refused: ClusterAction;
    }
  | { readonly kind: 'reopen'; readonly observation: ClusterObservation };

/** Runs interpreted items through the model (SPEC §7), recording what each must cause and show. */
export function modelChoiceSteps(config: ClusterSetup, level: 'cluster' | 'faults', items: readonly ChoiceItem[]): ChoiceStep[] {
  const setup: ClusterSetup = { ...config, checkProperties: false };
  const universe = controlActions(config, level);
  const never = neverEnabled(config);
  let state = initialClusterState(setup);
  return items.map((item): ChoiceStep => {
    if (item.kind === 'reopen') {
      state = crashEverything(setup, state);
      return { kind: 'reopen', observation: observeCluster(setup, state) };
    }
    const disabled: ClusterAction[] = [...never, ...universe.filter((a) => whyNotEnabled(setup, state, a) !== undefined)];
    const refused = disabled[item.probe % disabled.length] as ClusterAction;
    const why = whyNotEnabled(setup, state, item.action);
    if (why !== undefined)
      return { kind: 'action', action: item.action, expected: { error: why }, observation: observeCluster(setup, state), refused };
    const t = applyExternal(setup, state, item.action);
    state = t.state;
    return { kind: 'action', action: item.action, expected: { events: t.events }, observation: observeCluster(setup, state), refused };
  });
}

function clusterConfigArbitrary(domain: ClusterDomain): fc.Arbitrary<ClusterConfig> {
  return fc
    .record({
      join: boundsArbitrary(),
      // Most configs of a wide domain use three workers or more, so that copies are numbered past ten.
      workers: fc.integer({ min: 2, max: domain.workers.length }).map((n) => (domain.workers.length >= 5 && n === 2 ? 3 : n)),
      owners: fc.array(fc.nat(), { minLength: domain.keys.length, maxLength: domain.keys.length }),
    })
    .map(({ join, workers, owners }): ClusterConfig => {
      const ids = domain.workers.slice(0, workers);
      const keys = domain.keys.map((key, i) => ({ key, owner: ids[(owners[i] ?? 0) % workers] as string }));
      // SPEC §7: eager processing goes through workers and keys in config order, which no order of their names
      // decides. The declared order is any permutation of each list, so a system that sorts them (by name, by
      // length, numerically) differs; it is drawn from the owners already drawn, so every other part of a
      // seed's traces stays as it was, and it shrinks with them toward the domain's own order. From what the
      // owners' numbers hold beyond the owner each names (o / workers, not o): the order is then independent of
      // who owns what (a sum of the numbers themselves would tie the order of two keys to whether one worker
      // owns both).
      const spread = owners.reduce((n, o) => n + Math.floor(o / workers), 0);
      const declared = permutationAt(keys, spread);
      const order = permutationAt(ids, Math.floor(spread / factorial(keys.length)));
      // Both lists are non-empty: at least two workers, and the domain's keys.
      return { join, workers: order as ClusterConfig['workers'], keys: declared as ClusterConfig['keys'] };
    });
}

function factorial(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return f;
}

/**
 * The permutation of `list` numbered `index` (mod n!) in the factorial number
 * system: 0 is `list` itself, and the n! numbers below n! are its n!
 * orders, each once.
 */
export function permutationAt<T>(list: readonly T[], index: number): T[] {
  const rest = [...list];
  const out: T[] = [];
  let i = Math.floor(index) % factorial(list.length);
  for (let n = list.length; n > 0; n--) {
    const f = factorial(n - 1);
    const digit = Math.floor(i / f);
    i %= f;
    out.push(rest.splice(digit, 1)[0] as T);
  }
  return out;
}

function choiceArbitrary(reopen: boolean): fc.Arbitrary<ControlChoice> {
  return fc.record({
    records: fc.integer({ min: 0, max: 3 }),
    pick: fc.nat({ max: 63 }),
    // One choice in eight tries an action that is not enabled; shrinks toward enabled ones.
    disabled: fc.integer({ min: 0, max: 7 }).map((n) => n === 7),
    // One in sixteen crashes the whole cluster, where asked for.
    reopen: reopen ? fc.integer({ min: 0, max: 15 }).map((n) => n === 15) : fc.constant(false),
    probe: fc.nat({ max: 255 }),
    // One choice in six probes the phase boundaries it crosses; shrinks toward not probing.
    probeBoundary: fc.integer({ min: 0, max: 5 }).map((n) => n === 5),
    // One scenario in three is split at its fences; two in three get one action more; both shrink toward the plain script.
    split: fc.integer({ min: 0, max: 2 }).map((n) => n === 2),
    interject: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 16 }) }),
    interjectPick: fc.nat({ max: 255 }),
  });
}

/** The domain of a random trace: the small one three times in nine, the wide one twice, the odd names, the colliding ones, the line breaks or the loosely equal names otherwise. */
function domainArbitrary(): fc.Arbitrary<ClusterDomain> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(smallClusterDomain) },
    { weight: 2, arbitrary: fc.constant(wideClusterDomain) },
    { weight: 1, arbitrary: fc.constant(oddClusterDomain) },
    { weight: 1, arbitrary: fc.constant(collidingClusterDomain) },
    { weight: 1, arbitrary: fc.constant(lineBreakClusterDomain) },
    { weight: 1, arbitrary: fc.constantFrom(...looselyEqualClusterDomains) },
  );
}

/**
 * Random cluster traces at `level` (no expectations: the model supplies
 * them), over `domain`, or over the small and the odd domain mixed.
 */
export function clusterTraceArbitrary(level: 'cluster' | 'faults', domain?: ClusterDomain): fc.Arbitrary<ClusterTrace> {
  const domains = domain === undefined ? domainArbitrary() : fc.constant(domain);
  return domains.chain((d) =>
    clusterConfigArbitrary(d).chain((config) =>
      fc
        .tuple(workloadArbitrary(d, config.join), fc.array(choiceArbitrary(false), { maxLength: d.maxChoices }))
        .map(([workload, choices]) => ({
          format: CLUSTER_TRACE_FORMAT,
          name: `random-${level}`,
          config,
          steps: interpretChoiceItems(config, level, workload, choices).flatMap((item) =>
            item.kind === 'action' ? [{ action: item.action, ...(item.note === undefined ? {} : { note: item.note }) }] : [],
          ),
        })),
    ),
  );
}

export interface ChoiceStepsOptions {
  /** Sizes and names (its keys are replaced by the config's); default `longClusterDomain`. */
  readonly domain?: ClusterDomain;
  /** Some choices crash every node at once (`reopen` steps). */
  readonly reopen?: boolean;
}

/** Random steps with the model's answers for a fixed config, at level `faults` unless told (impl/'s lockstep tests). */
export function clusterStepsArbitrary(
  config: ClusterSetup,
  options: ChoiceStepsOptions & { readonly level?: 'cluster' | 'faults' } = {},
): fc.Arbitrary<ChoiceStep[]> {
  const level = options.level ?? 'faults';
  const domain: ClusterDomain = { ...(options.domain ?? longClusterDomain), keys: config.keys.map((k) => k.key) };
  // Lengths up to the maximum (size 'max'), not fast-check's small default.
  return fc
    .tuple(
      workloadArbitrary(domain, config.join),
      fc.array(choiceArbitrary(options.reopen === true), { maxLength: domain.maxChoices, size: 'max' }),
    )
    .map(([workload, choices]) => modelChoiceSteps(config, level, interpretChoiceItems(config, level, workload, choices, options)));
}
