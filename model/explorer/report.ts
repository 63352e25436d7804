// From an exploration to the report: verdicts per property, counterexamples
// re-derived as concrete paths, Progress over the stored edges, figures.
import { collisionProbability } from './fingerprint.ts';
import type { Exploration } from './engine.ts';
import type { FrontierFigures } from './frontier.ts';
import { FLAG_GOOD, FLAG_HOLE, FLAG_SETTLED } from './store.ts';
import type { CheckReport, Model, Path, PropertyResult, VisitedMode } from './types.ts';

/** Bound on the concrete states searched when explaining a Progress trap. */
const TRAP_SEARCH_LIMIT = 1_000_000;

export interface ReportContext {
  readonly visited: VisitedMode;
  readonly symmetry: boolean;
  readonly partialOrder: boolean;
  readonly notes: readonly string[];
  readonly workers: number;
  readonly frontier: FrontierFigures;
}

/** Builds the report of `exploration` of `model` (whose `Visited` it reads through). */
export function buildReport<S, A>(model: Model<S, A>, exploration: Exploration, context: ReportContext): CheckReport<S, A> {
  const { visited, tally, exhausted, stoppedBy, durationMs } = exploration;
  const store = visited.store;
  const keyer = visited.keyer;
  const claimed = store.claimed;
  const distinct = store.size;
  const interrupted = stoppedBy === 'interrupted';
  const progress = model.progress;
  const initial = model.initialStates();

  /** Re-derives a concrete path to stored state `index` by replaying from its initial state. */
  function concretePath(index: number): Path<S, A> {
    const chain: number[] = [];
    let i = index;
    for (; store.parent(i) >= 0; i = store.parent(i)) chain.push(i);
    const initialIndex = -store.parent(i) - 1;
    let state = initial[initialIndex] as S;
    const states: S[] = [state];
    const actions: A[] = [];
    for (let c = chain.length - 1; c >= 0; c--) {
      const target = chain[c] as number;
      const acts = model.actions(state);
      const hint = store.via(target);
      let found = -1;
      let next: S | undefined;
      for (let t = -1; t < acts.length && found === -1; t++) {
        const k = t === -1 ? hint : t;
        if ((t !== -1 && k === hint) || k >= acts.length) continue;
        const succ = model.next(state, acts[k] as A);
        keyer.key(succ as unknown);
        if (visited.matches(target)) {
          found = k;
          next = succ;
        }
      }
      if (found === -1 || next === undefined) {
        throw new Error(
          `${model.name}: cannot replay the path to state ${index}; the model is not deterministic, or two states share a fingerprint (retry with visited: 'exact')`,
        );
      }
      actions.push(acts[found] as A);
      states.push(next);
      state = next;
    }
    return { initialIndex, actions, states };
  }

  const unknownBecause = interrupted
    ? 'interrupted before the bound was exhausted'
    : 'not violated in the part explored; the bound was not exhausted';
  const invariantResults: PropertyResult<S, A>[] = model.invariants.map((inv, p) => {
    const found = tally.violations[p];
    if (found === undefined || interrupted) {
      return exhausted
        ? { name: inv.name, kind: 'invariant' as const, verdict: 'holds' as const }
        : { name: inv.name, kind: 'invariant' as const, verdict: 'unknown' as const, explanation: unknownBecause };
    }
    const path = concretePath(found.index);
    const concrete = inv.check(path.states[path.states.length - 1] as S);
    return { name: inv.name, kind: 'invariant' as const, verdict: 'violated' as const, explanation: concrete ?? found.text, path };
  });

  const goalResults: PropertyResult<S, A>[] = (model.goals ?? []).map((goal, g) => {
    const at = tally.reached[g];
    if (interrupted) return { name: goal.name, kind: 'goal' as const, verdict: 'unknown' as const, explanation: unknownBecause };
    if (at !== undefined) return { name: goal.name, kind: 'goal' as const, verdict: 'holds' as const, path: concretePath(at.index) };
    return exhausted
      ? {
          name: goal.name,
          kind: 'goal' as const,
          verdict: 'violated' as const,
          explanation: 'no reachable state within the bound satisfies it',
        }
      : {
          name: goal.name,
          kind: 'goal' as const,
          verdict: 'unknown' as const,
          explanation: 'not reached in the part explored; the bound was not exhausted',
        };
  });

  let progressResult: PropertyResult<S, A> | undefined;
  if (progress) {
    if (!exhausted) {
      progressResult = {
        name: progress.name,
        kind: 'progress',
        verdict: 'unknown',
        explanation: interrupted ? unknownBecause : 'needs the whole state graph; the bound was not exhausted',
      };
    } else {
      const stuck = firstStuckState(claimed, store);
      if (stuck === -1) {
        progressResult = { name: progress.name, kind: 'progress', verdict: 'holds' };
      } else {
        const path = concretePath(stuck);
        const trap = explainTrap(model, path.states[path.states.length - 1] as S);
        const how =
          trap.kind === 'deadlock'
            ? `${trap.actions.length} fault-free step(s) further, a state enables no fault-free action`
            : `the fault-free steps from here only go round a cycle (shown: ${trap.actions.length} steps, ending where an earlier step began)`;
        progressResult = {
          name: progress.name,
          kind: 'progress',
          verdict: 'violated',
          explanation:
            `from this state no quiescent state is reachable without faults: ` +
            `${trap.reachable}${trap.reachable >= TRAP_SEARCH_LIMIT ? '+' : ''} state(s) are reachable ` +
            `fault-free and none is quiescent; ${how}`,
          path,
          trap,
        };
      }
    }
  }

  const kindCounts = tally.kindCounts;
  const expected = model.expectedActionKinds ?? [];
  const unreachedActionKinds = interrupted ? [] : expected.filter((k) => !kindCounts.has(k));
  const storeBytes = store.bytes();
  const visitedBytes = visited.exact ? visited.exact.bytes() + storeBytes.visited - store.buffers.table.byteLength : storeBytes.visited;
  const passed =
    exhausted &&
    invariantResults.every((r) => r.verdict === 'holds') &&
    goalResults.every((r) => r.verdict === 'holds') &&
    (progressResult === undefined || progressResult.verdict === 'holds') &&
    unreachedActionKinds.length === 0;
  const violated =
    [...invariantResults, ...goalResults, ...(progressResult ? [progressResult] : [])].some((r) => r.verdict === 'violated') ||
    (exhausted && unreachedActionKinds.length > 0);
  const verdict = violated || (exhausted && !passed) ? 'fail' : passed ? 'pass' : 'unknown';

  return {
    model: model.name,
    options: { visited: context.visited, symmetry: context.symmetry, partialOrder: context.partialOrder, notes: context.notes },
    generated: tally.generated,
    distinct,
    maxDepth: tally.maxDepth,
    durationMs,
    statesPerSecond: durationMs > 0 ? (distinct * 1000) / durationMs : 0,
    bytesPerState: distinct > 0 ? visitedBytes / distinct : 0,
    edgeBytesPerState: distinct > 0 && progress ? storeBytes.edges / distinct : 0,
    collisionProbability: context.visited === 'fingerprint' ? collisionProbability(distinct) : 0,
    outsideBoundary: tally.outsideBoundary,
    exhausted,
    ...(stoppedBy !== undefined ? { stoppedBy } : {}),
    workers: context.workers,
    frontier: context.frontier,
    invariants: invariantResults,
    goals: goalResults,
    ...(progressResult ? { progress: progressResult } : {}),
    unreachedActionKinds,
    actionKindCounts: Object.fromEntries([...kindCounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    passed,
    verdict,
  };
}

/**
 * Sweeps over the forward edges before `firstStuckState` builds the reversed
 * edges: a sweep in decreasing index order settles every state whose way to
 * a good state runs through higher indices (breadth-first numbering: the
 * next levels), so a few sweeps usually reach the fixpoint (`ci`'s parts:
 * 7 and 5, the last finding nothing new). A sweep reads one byte per state
 * and the edges of the states not yet settled only, which after the first
 * are few.
 */
const SETTLING_SWEEPS = 64;

/**
 * The smallest-index (so shallowest) state from which no good state is
 * reachable along the stored edges, or -1. Holes (indices claimed in a race
 * and never published) have no edges and are skipped; states flagged
 * settled (good, or one fault-free step from a good state) have none stored.
 *
 * The states that can settle are the least fixpoint of "good, or an edge to
 * one that can settle". Sweeps over the forward edges (in place: one byte a
 * state) reach it in a few rounds on the protocol's graphs; only if
 * `SETTLING_SWEEPS` do not (a long way back down the levels), a backward
 * search over the reversed edges (4 bytes an edge and 12 a state more: on
 * `ci` about 16 MB, which was the peak of the whole run) finishes from what
 * the sweeps settled.
 */
export function firstStuckState(n: number, store: Exploration['visited']['store']): number {
  const { start, count, targets } = store.edgeLists();
  const flags = store.allFlags();
  const canSettle = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (((flags[i] as number) & (FLAG_HOLE | FLAG_GOOD | FLAG_SETTLED)) !== 0) canSettle[i] = 1;
  for (let sweep = 0; sweep < SETTLING_SWEEPS; sweep++) {
    let changed = false;
    for (let i = n - 1; i >= 0; i--) {
      if (canSettle[i] !== 0) continue;
      const end = (start[i] as number) + (count[i] as number);
      for (let e = start[i] as number; e < end; e++) {
        if (canSettle[targets[e] as number] !== 0) {
          canSettle[i] = 1;
          changed = true;
          break;
        }
      }
    }
    if (!changed) return canSettle.indexOf(0);
  }
  settleBackwards(n, store, canSettle);
  return canSettle.indexOf(0);
}

/** Completes `canSettle` by a backward search from the states it holds settled, over the reversed edges. */
function settleBackwards(n: number, store: Exploration['visited']['store'], canSettle: Uint8Array): void {
  const { start, count, targets } = store.edgeLists();
  const flags = store.allFlags();
  const revStart = new Int32Array(n + 1);
  let edges = 0;
  for (let i = 0; i < n; i++) {
    if (((flags[i] as number) & FLAG_HOLE) !== 0) continue;
    const end = (start[i] as number) + (count[i] as number);
    for (let e = start[i] as number; e < end; e++) {
      const t = (targets[e] as number) + 1;
      revStart[t] = (revStart[t] as number) + 1;
      edges++;
    }
  }
  for (let i = 0; i < n; i++) revStart[i + 1] = (revStart[i + 1] as number) + (revStart[i] as number);
  // The fill positions, then (once the reversed edges are written) the search's queue.
  const fill = revStart.slice(0, n);
  const revSources = new Int32Array(edges);
  for (let i = 0; i < n; i++) {
    if (((flags[i] as number) & FLAG_HOLE) !== 0) continue;
    const end = (start[i] as number) + (count[i] as number);
    for (let e = start[i] as number; e < end; e++) {
      const t = targets[e] as number;
      revSources[fill[t] as number] = i;
      fill[t] = (fill[t] as number) + 1;
    }
  }
  const queue = fill;
  let tail = 0;
  for (let i = 0; i < n; i++) if (canSettle[i] !== 0 && ((flags[i] as number) & FLAG_HOLE) === 0) queue[tail++] = i;
  for (let h = 0; h < tail; h++) {
    const t = queue[h] as number;
    const end = revStart[t + 1] as number;
    for (let e = revStart[t] as number; e < end; e++) {
      const s = revSources[e] as number;
      if (canSettle[s] === 0) {
        canSettle[s] = 1;
        queue[tail++] = s;
      }
    }
  }
}

/**
 * Why a stuck state is stuck, on concrete states: a shortest fault-free path
 * to a state with no fault-free action, or else a walk that closes a cycle.
 */
function explainTrap<S, A>(model: Model<S, A>, stuck: S): NonNullable<PropertyResult<S, A>['trap']> {
  const progress = model.progress as NonNullable<Model<S, A>['progress']>;
  const faultFree = (s: S): A[] => model.actions(s).filter((a) => !progress.isFault(a));
  const seen = new Map<string, number>([[model.encode(stuck), 0]]);
  const states: S[] = [stuck];
  const from: number[] = [-1];
  const by: (A | undefined)[] = [undefined];
  for (let h = 0; h < states.length && states.length < TRAP_SEARCH_LIMIT; h++) {
    const s = states[h] as S;
    const acts = faultFree(s);
    if (acts.length === 0) {
      const actions: A[] = [];
      const path: S[] = [];
      for (let i = h; i > 0; i = from[i] as number) {
        actions.push(by[i] as A);
        path.push(states[i] as S);
      }
      return { kind: 'deadlock', actions: actions.reverse(), states: [stuck, ...path.reverse()], reachable: states.length };
    }
    for (const a of acts) {
      const t = model.next(s, a);
      const e = model.encode(t);
      if (!seen.has(e)) {
        seen.set(e, states.length);
        states.push(t);
        from.push(h);
        by.push(a);
      }
    }
  }
  // No deadlock: walk the first fault-free action until a state repeats.
  const walkSeen = new Set<string>([model.encode(stuck)]);
  const actions: A[] = [];
  const walk: S[] = [stuck];
  let s = stuck;
  for (;;) {
    const a = faultFree(s)[0] as A;
    s = model.next(s, a);
    actions.push(a);
    walk.push(s);
    const e = model.encode(s);
    if (walkSeen.has(e) || walk.length > TRAP_SEARCH_LIMIT) break;
    walkSeen.add(e);
  }
  return { kind: 'cycle', actions, states: walk, reachable: states.length };
}
