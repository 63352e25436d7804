// The states a request killed in flight may leave (PROTOCOL.md, "Kill
// mode"): the model's state before it, after it, or in between where the
// model has a state in between: after the action's own effect and some of
// the processing it caused (a crash between process steps: eager processing
// is a convention, §7, each process step is an action of its own), and for
// a commit or a failover, the fence raised without the ownership part (C7,
// C8: the `crashAfterFence` state). Each is taken by the kill of every node
// (C10) before it is compared.
import type { ClusterAction, ClusterObservation, ExternalAction } from '../../spec/index.ts';
import { observeCluster, transition, whyNotEnabled, type ClusterSetup, type ClusterState } from '../../model/index.ts';
import { crashAll } from './killTraces.ts';
import { sameJson } from '../sut/jsonDiff.ts';

export type InFlightResolution = 'lost' | 'applied' | 'partly';

/** One state an in-flight request may have left, after the crash of every node. */
export interface Candidate {
  readonly resolved: InFlightResolution;
  readonly state: ClusterState;
}

/** The process steps eager processing takes from `state`, one state after each (the order of SPEC §7: worker, then key). */
function processingStates(setup: ClusterSetup, state: ClusterState): ClusterState[] {
  const out: ClusterState[] = [];
  let next = state;
  for (let progressed = true; progressed; ) {
    progressed = false;
    for (const worker of setup.workers) {
      for (const { key } of setup.keys) {
        const a: ClusterAction = { type: 'process', worker, key };
        while (whyNotEnabled(setup, next, a) === undefined) {
          next = transition(setup, next, a).state;
          out.push(next);
          progressed = true;
        }
      }
    }
  }
  return out;
}

/**
 * Every state an in-flight `action` may have left from `before`, each after
 * the crash of every node: lost first, then applied (with all its
 * processing), then the states in between.
 */
export function inFlightCandidates(setup: ClusterSetup, before: ClusterState, action: ExternalAction): Candidate[] {
  const crashed = (s: ClusterState): ClusterState => crashAll(setup, s);
  const out: Candidate[] = [{ resolved: 'lost', state: crashed(before) }];
  if (whyNotEnabled(setup, before, action) !== undefined) return out;
  const own = transition(setup, before, action).state;
  const steps = processingStates(setup, own);
  out.push({ resolved: 'applied', state: crashed(steps.at(-1) ?? own) });
  for (const s of [own, ...steps.slice(0, -1)]) out.push({ resolved: 'partly', state: crashed(s) });
  if ((action.type === 'commit' || action.type === 'failover') && action.crashAfterFence !== true) {
    const fenced: ExternalAction = { ...action, crashAfterFence: true };
    if (whyNotEnabled(setup, before, fenced) === undefined)
      out.push({ resolved: 'partly', state: crashed(transition(setup, before, fenced).state) });
  }
  return out;
}

/**
 * What tells two model states apart for kill mode: everything but the ghost
 * state of the properties (§6). Two candidates may show one observation and
 * still differ, in the last install or release message (C11), which the
 * observation does not show; a later step (a duplicate) tells them apart.
 */
function stateIdentity(state: ClusterState): string {
  const { ghost: _ghost, ...rest } = state;
  return JSON.stringify(rest);
}

/**
 * Every candidate whose observation is `observation`, one per distinct model
 * state, in the candidates' order (empty: the system is in none of them).
 */
export function resolveInFlight<C extends Candidate>(setup: ClusterSetup, candidates: readonly C[], observation: ClusterObservation): C[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    if (!sameJson(observeCluster(setup, c.state), observation)) return false;
    const id = stateIdentity(c.state);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
