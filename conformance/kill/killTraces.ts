// Kill mode's traces (PROTOCOL.md, "Kill mode"): a cluster trace with some
// steps marked `kill` (cluster-trace.schema.json, ClusterKill), and the
// model's side of a kill.
//
// A kill takes the whole process: every node that is not down crashes at
// once (C10), which the model is `crashEverything`. So that the rest of the
// trace still runs the nodes it ran, a kill is followed by a `restart` of
// every node the kill took (the coordinator first, then the workers in
// config order), as ordinary steps: shrinking may drop them like any other.
// Then the last install message of every key the trace has installed so
// far, and the last release message of every key it has released, are
// delivered again (C11): they are durable
// (PROTOCOL.md, "Kill mode"), and the observation does not show them, so a
// system that lost one, or kept one its step did not send, shows it only
// when a duplicate finds it (or finds none).
//
// Where kills go: at every crash point the trace reaches (an enabled
// `crash`, a `commit` or `failover` with `crashAfterFence`), after the
// reply; and, where asked, in flight at other steps: the request sent and
// the process killed before its reply is read. And, where asked, inside
// the first `init` itself (`initKill`), at one of its durable write points:
// the re-attach then finds no session or a half-written one, and must start
// as the model's crash of every node of the initial state (C10).
import { COORDINATOR } from '../../spec/index.ts';
import { DETOUR_CRASH_NOTE } from '../generate/clusterTraces.ts';
import type { ClusterInitKill, ClusterKill, ClusterStep, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { applyExternal, initialClusterState, transition, whyNotEnabled, type ClusterSetup, type ClusterState } from '../../model/index.ts';

/** Whether an action is a crash point at level `faults`: it takes a node down by itself (C7, C8, C10). */
export function isCrashPoint(action: ExternalAction): boolean {
  if (action.type === 'crash') return true;
  return (action.type === 'commit' || action.type === 'failover') && action.crashAfterFence === true;
}

/** Whether an action changes which nodes are up (an in-flight kill there could not say which nodes to restart). */
function changesLiveness(action: ExternalAction): boolean {
  return isCrashPoint(action) || action.type === 'restart' || action.type === 'pause' || action.type === 'resume';
}

/**
 * A kill of the whole process (C10): every node that is not down crashes at
 * once, with no processing between the crashes (unlike a sequence of crash
 * actions, each followed by eager processing, §7: a state left between
 * process steps must stay as it is).
 */
export function crashAll(setup: ClusterSetup, state: ClusterState): ClusterState {
  let next = state;
  for (const node of [COORDINATOR, ...setup.workers]) {
    const a: ExternalAction = { type: 'crash', node };
    if (whyNotEnabled(setup, next, a) === undefined) next = transition(setup, next, a).state;
  }
  return next;
}

/** The nodes a kill in `state` takes down: every node not down, the coordinator first. */
export function nodesTakenBy(setup: ClusterSetup, state: ClusterState): string[] {
  const out: string[] = [];
  if (state.coordinator.up) out.push(COORDINATOR);
  for (const w of setup.workers) if (state.workers[w]?.status !== 'down') out.push(w);
  return out;
}

/** The model's state after a step's action: unchanged where the action is not enabled (§7). */
export function modelAfter(setup: ClusterSetup, state: ClusterState, action: ExternalAction): ClusterState {
  return whyNotEnabled(setup, state, action) === undefined ? applyExternal(setup, state, action).state : state;
}

/**
 * The steps of a trace an in-flight kill can go to, with their action's
 * type: enabled where the trace reaches them without kills, and changing
 * no node's liveness (withKills checks again, after the kills before it).
 */
export function inFlightCandidates(trace: ClusterTrace): { readonly at: number; readonly type: ExternalAction['type'] }[] {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  let state = startState(setup, trace);
  const out: { at: number; type: ExternalAction['type'] }[] = [];
  trace.steps.forEach((s, at) => {
    const action = s.action as ExternalAction;
    if (whyNotEnabled(setup, state, action) === undefined && !changesLiveness(action)) out.push({ at, type: action.type });
    state = modelAfter(setup, state, action);
  });
  return out;
}

/** An in-flight kill a random trace asks for: at which step (modulo the steps), and how it is timed. */
export interface InFlightChoice {
  readonly at: number;
  readonly timing: 'unread' | 'answered' | 'at-write';
  /** With `at-write`: the durable write point of the request to die at (1 = the first). */
  readonly write?: number;
}

/** What a kill step says, for people: the trace's note and the counterexample's "killed here". */
export function killNote(kill: ClusterKill): string {
  if (kill.when === 'after-reply' && kill.observed === true) return FINAL_KILL_NOTE;
  if (kill.when === 'after-reply')
    return 'killed here: after the reply, SIGKILL to the process group; restarted on the same data directory and re-attached';
  const how =
    kill.timing === 'unread'
      ? 'the process group stopped (SIGSTOP), the request written, then SIGKILL: it never read it'
      : kill.timing === 'at-write'
        ? `SIGKILL at durable write point ${kill.write ?? 1} of the request (STREAMJOIN_KILL_AT_WRITE)`
        : 'the reply arrived and was not read, then SIGKILL';
  const resolved =
    kill.resolved === undefined
      ? ''
      : kill.resolved === 'lost'
        ? '; resolved: lost (the state before it)'
        : kill.resolved === 'applied'
          ? '; resolved: applied (the state after it)'
          : '; resolved: partly (a model state in between: its own effect and part of its processing, or a fence without its ownership part)';
  return `killed here, in flight: ${how}; restarted on the same data directory and re-attached${resolved}`;
}

/** The note of the kill withKills adds at a trace's end (`finalKill`: after the reply and the observation, `observed`). */
const FINAL_KILL_NOTE =
  "killed here, at the trace's end: after the reply and the observation, SIGKILL to the process group; restarted on the same data directory and re-attached: what every earlier step and recovery left on disk must come back once more (C2)";

/** The note of a duplicate sent after a kill's restarts (withKills). */
const DUPLICATE_AFTER_KILL_NOTE =
  'the last message delivered again after the kill (C11): it is durable, and a system that lost it, or kept one it never sent, shows it here';

/**
 * The trace with kills: after the reply at every crash point, and in flight
 * where `inFlight` asks (at an enabled step that changes no node's
 * liveness: the nodes to restart are then the same either way it resolves).
 * Each kill is followed by restarts of the nodes it took, then by a
 * duplicate of the last install message of every key the trace installed
 * so far, and of the last release message of every key it released. Steps already marked keep their mark;
 * expectations are dropped (the model's are used).
 *
 * `crashPointKills` bounds the kills at crash points (later crash points go
 * as plain requests). With `finalKill`, the trace's last step, unless it is
 * killed already, is killed after its reply and its observation (`observed`:
 * judged whole, as no later step shows it): what a recovery left behind
 * (a torn line skipped but left in place, a half-applied step) may show only
 * at the next one, after the steps that followed wrote on top of it, and a
 * trace with one kill would end before that.
 */
export function withKills(
  trace: ClusterTrace,
  inFlight: readonly InFlightChoice[] = [],
  options: { readonly crashPointKills?: number; readonly finalKill?: boolean } = {},
): ClusterTrace {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  const n = trace.steps.length;
  let crashPointKills = options.crashPointKills ?? Number.POSITIVE_INFINITY;
  const inFlightAt = new Map<number, InFlightChoice>();
  for (const c of inFlight) if (n > 0) inFlightAt.set(c.at % n, c);
  let state = startState(setup, trace);
  const steps: ClusterStep[] = [];
  // The keys a message went out for (an enabled install or release), by the duplicate that delivers it again after a kill.
  const sent = { duplicateInstall: new Set<string>(), duplicateRelease: new Set<string>() };
  trace.steps.forEach((s, i) => {
    const action = s.action as ExternalAction;
    const enabled = whyNotEnabled(setup, state, action) === undefined;
    const after = modelAfter(setup, state, action);
    if (enabled && action.type === 'install') sent.duplicateInstall.add(action.key);
    if (enabled && action.type === 'release') sent.duplicateRelease.add(action.key);
    let kill: ClusterKill | undefined = s.kill;
    const wanted = inFlightAt.get(i);
    if (kill === undefined && enabled && isCrashPoint(action) && crashPointKills > 0 && s.note !== DETOUR_CRASH_NOTE) {
      kill = { when: 'after-reply' };
      crashPointKills--;
    } else if (kill === undefined && enabled && wanted !== undefined && !changesLiveness(action))
      kill = { when: 'in-flight', timing: wanted.timing, ...(wanted.timing === 'at-write' ? { write: wanted.write ?? 1 } : {}) };
    else if (kill === undefined && options.finalKill === true && i === n - 1) kill = { when: 'after-reply', observed: true };
    if (kill === undefined) {
      steps.push({ action, ...(s.note !== undefined ? { note: s.note } : {}) });
      state = after;
      return;
    }
    steps.push({ action, kill, note: killNote(kill) });
    const taken = nodesTakenBy(setup, after);
    state = crashAll(setup, after);
    for (const node of taken) {
      const restart: ExternalAction = { type: 'restart', node };
      steps.push({ action: restart, note: 'restarted after the kill' });
      state = modelAfter(setup, state, restart);
    }
    for (const { key } of setup.keys) {
      for (const type of ['duplicateInstall', 'duplicateRelease'] as const) {
        if (!sent[type].has(key)) continue;
        const duplicate: ExternalAction = { type, key };
        steps.push({ action: duplicate, note: DUPLICATE_AFTER_KILL_NOTE });
        state = modelAfter(setup, state, duplicate);
      }
    }
  });
  return { ...trace, steps };
}

/** The model's state before a trace's first step in kill mode: after a kill inside `init`, every node down (C10). */
export function startState(setup: ClusterSetup, trace: ClusterTrace): ClusterState {
  const initial = initialClusterState(setup);
  return trace.initKill === undefined ? initial : crashAll(setup, initial);
}

/** What an init kill says, for people: the trace's `initKill.note` and the counterexample's "killed here". */
export function initKillNote(kill: ClusterInitKill): string {
  const answered = kill.answered === true ? '; the system answered init first (it makes fewer write points), then SIGKILL' : '';
  return `killed here, inside init: SIGKILL at durable write point ${kill.write} of init (STREAMJOIN_KILL_AT_WRITE=1:${kill.write})${answered}; restarted on the same data directory and re-attached: every node down, empty durable parts (C10)`;
}

/** The note of the kill a divergence at `step` is at: that step's kill, or at step -1 the trace's kill inside `init`; undefined at no kill. */
export function killNoteAt(trace: ClusterTrace, step: number): string | undefined {
  if (step < 0) return trace.initKill ? initKillNote(trace.initKill) : undefined;
  const kill = trace.steps[step]?.kill;
  return kill ? killNote(kill) : undefined;
}

/**
 * The trace with its `init` killed at durable write point `write` (kill
 * mode): the kill takes every node (the initial state has them all up), so
 * restarts of every node, the coordinator first, then the workers in config
 * order, go before the trace's steps, as ordinary steps shrinking may drop
 * like any other. A trace whose init is killed already is returned as it is.
 */
export function withInitKill(trace: ClusterTrace, write: number): ClusterTrace {
  if (trace.initKill !== undefined) return trace;
  const initKill: ClusterInitKill = { write, note: initKillNote({ write }) };
  const restarts: ClusterStep[] = [COORDINATOR, ...trace.config.workers].map((node) => ({
    action: { type: 'restart', node },
    note: 'restarted after the kill inside init',
  }));
  return { ...trace, initKill, steps: [...restarts, ...trace.steps] };
}

/** The number of kill steps of a trace, by kind. */
export function killsIn(trace: ClusterTrace): { afterReply: number; inFlight: number } {
  let afterReply = 0;
  let inFlight = 0;
  for (const s of trace.steps) {
    if (s.kill?.when === 'after-reply') afterReply++;
    else if (s.kill?.when === 'in-flight') inFlight++;
  }
  return { afterReply, inFlight };
}
