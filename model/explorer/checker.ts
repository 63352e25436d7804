// The breadth-first explicit-state checker.
//
// States are numbered densely in discovery order. Because the search is
// breadth-first, that order is also the queue order and is non-decreasing in
// depth, so (1) the queue is just "every index from `head` to the end", held
// as state objects in fixed-size chunks that are dropped once expanded, and
// (2) the first state found violating a property is at minimal depth: its
// parent chain is a shortest counterexample. Per state the checker keeps
// only the visited-set entry, a parent index (Int32) and the index of the
// action that led to it (Uint16); depth is recovered from the parent chain.
//
// Partial-order reduction (when the model has a `partialOrder` hook and it is
// on) expands, instead of every enabled action, the enabled actions of ONE
// component (an "ample set") when these provisos hold:
//
//   C0  the ample set is non-empty (it is one non-empty component group);
//   C1  along every path from the state, no action that depends on an ample
//       action runs before some ample action does. This follows from the
//       model's independence contract: actions of other components never
//       depend on ours, and never enable or disable ours, so the first action
//       of our component on any path must be one enabled now, i.e. in the
//       ample set;
//   C2  every ample action is invisible (cannot change any invariant, goal or
//       quiescence predicate), unless the ample set is every enabled action;
//   C3  (cycle proviso, safe for breadth-first search) every successor through
//       the ample set is NEW, never seen before. A reduced state's successors
//       then have larger discovery indices than the state itself, so along a
//       cycle of the reduced graph the index cannot grow all the way round:
//       some state on every cycle is fully expanded, and no action is ignored
//       forever;
//   C4  (for Progress) no ample action is a fault.
//
// With C0–C3 the reduced graph is stutter-equivalent to the full one for
// every path (Peled; Clarke, Grumberg & Peled, ch. 10), so an invariant is
// violated, or a goal reached, in the reduced graph iff it is in the full
// one. Progress (from every state a quiescent state is reachable without
// faults) is not a path property, so it needs C4 as well. Argument: let `s`
// be reachable in the full graph with no fault-free path to quiescence. The
// path `ρ` from the initial state to `s` is realised in the reduced graph by
// the usual commutation: at each reduced state either an ample action is the
// next action of `ρ` still to run (it commutes to the front, C1), or every
// ample action is independent of what is left of `ρ` and one is taken as an
// extra; extras cannot go on forever (C3: a run of reduced states only climbs
// in discovery order). The reduced graph thus reaches `u = s` followed by the
// extras, and the extras are fault-free (C4), so a fault-free path from `u`
// to quiescence would give one from `s`: `u` is stuck too, and is found.
// Conversely every reduced path is a full path. So the verdict is exact;
// only the counterexample is shortest in the reduced graph rather than in the
// full one. A boundary (`withinBoundary`) stops expansion in a way the
// argument does not cover, so the reduction is switched off for such models
// (the report notes it).
import { collisionProbability } from './fingerprint.ts';
import { createVisitedSet, grownCapacity, type VisitedSet } from './visited.ts';
import type { CheckOptions, CheckReport, Model, Path, PropertyResult, ProgressSample } from './types.ts';

const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const MAX_ACTIONS = 0xffff;
/** Bound on the concrete states searched when explaining a Progress trap. */
const TRAP_SEARCH_LIMIT = 1_000_000;

/** Explores `model` breadth-first and checks its properties. Pure apart from calling `onProgress`. */
export function check<S, A>(model: Model<S, A>, options: CheckOptions = {}): CheckReport<S, A> {
  const notes: string[] = [];
  const visitedMode = options.visited ?? 'fingerprint';
  const hasSymmetry = model.representative !== undefined || model.canonical !== undefined;
  const symmetry = (options.symmetry ?? true) && hasSymmetry;
  if (options.symmetry === true && !hasSymmetry) notes.push('symmetry requested, but the model defines no representative');
  let partialOrder = (options.partialOrder ?? true) && model.partialOrder !== undefined;
  if (options.partialOrder === true && model.partialOrder === undefined)
    notes.push('partial-order reduction requested, but the model defines no independence hook');
  if (partialOrder && model.withinBoundary !== undefined) {
    partialOrder = false;
    notes.push('partial-order reduction off: the model has a boundary (withinBoundary), which its soundness argument does not cover');
  }
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const maxMs = options.maxSeconds === undefined ? Number.POSITIVE_INFINITY : options.maxSeconds * 1000;
  const progressEvery = options.progressIntervalMs ?? 500;
  const onProgress = options.onProgress;

  // With `canonical`, symmetry lives in the visited set's keys; states stay concrete.
  const canonical = symmetry ? model.canonical : undefined;
  const representative = symmetry && !canonical ? model.representative?.bind(model) : undefined;
  const withinBoundary = model.withinBoundary?.bind(model);
  const por = partialOrder ? model.partialOrder : undefined;
  const progress = model.progress;
  const invariants = model.invariants;
  const goals = model.goals ?? [];

  const visited: VisitedSet<S> = createVisitedSet(visitedMode, canonical ?? model);
  let parent = new Int32Array(1024);
  let via = new Uint16Array(1024);
  const frontier: (S | undefined)[][] = [];
  let outsideBoundary = 0;

  // Progress needs the fault-free edges (CSR: edges of state i are
  // edgeTargets[edgeStart[i] .. edgeStart[i+1])) and which states are quiescent.
  let edgeStart = new Int32Array(progress ? 1024 : 0);
  let edgeTargets = new Int32Array(progress ? 4096 : 0);
  let edgeCount = 0;
  let good = new Uint8Array(progress ? 1024 : 0);

  const violationAt: number[] = invariants.map(() => -1);
  const violationText: string[] = invariants.map(() => '');
  let violationsOpen = invariants.length;
  const reachedAt: number[] = goals.map(() => -1);
  let goalsOpen = goals.length;
  const kindCounts = new Map<string, number>();

  let generated = 0;
  let stoppedBy: CheckReport<S, A>['stoppedBy'];
  const started = performance.now();
  let lastReport = started;

  function ensureCapacity(index: number): void {
    if (index < parent.length) return;
    const capacity = grownCapacity(parent.length, index + 1);
    const p = new Int32Array(capacity);
    p.set(parent);
    parent = p;
    const v = new Uint16Array(capacity);
    v.set(via);
    via = v;
    if (progress) {
      const g = new Uint8Array(capacity);
      g.set(good);
      good = g;
    }
  }

  /** Records a newly discovered state: parent link, queue, properties. */
  function discovered(state: S, index: number, parentIndex: number, actionIndex: number): void {
    ensureCapacity(index);
    parent[index] = parentIndex;
    via[index] = actionIndex;
    const inside = withinBoundary === undefined || withinBoundary(state);
    if (!inside) outsideBoundary++;
    const chunk = index >>> CHUNK_BITS;
    if (chunk === frontier.length) frontier.push([]);
    (frontier[chunk] as (S | undefined)[]).push(inside ? state : undefined);
    // A state outside the boundary is assumed to be able to settle: Progress
    // cannot see past the boundary, and must not blame it.
    if (progress && (!inside || progress.quiescent(state))) good[index] = 1;
    if (violationsOpen > 0) {
      for (let p = 0; p < invariants.length; p++) {
        if (violationAt[p] !== -1) continue;
        const why = (invariants[p] as Model<S, A>['invariants'][number]).check(state);
        if (why !== undefined) {
          violationAt[p] = index;
          violationText[p] = why;
          violationsOpen--;
          if (options.stopAtFirstViolation) stoppedBy = 'violation';
        }
      }
    }
    if (goalsOpen > 0) {
      for (let g = 0; g < goals.length; g++) {
        if (reachedAt[g] === -1 && (goals[g] as NonNullable<Model<S, A>['goals']>[number]).reached(state)) {
          reachedAt[g] = index;
          goalsOpen--;
        }
      }
    }
  }

  const initial = model.initialStates();
  for (let i = 0; i < initial.length && stoppedBy === undefined; i++) {
    const state = representative ? representative(initial[i] as S) : (initial[i] as S);
    generated++;
    const r = visited.findOrAdd(state);
    if (r < 0) discovered(state, -r - 1, -(i + 1), 0);
  }

  // Successors computed while choosing an ample set, reused if it is taken.
  let succState: (S | undefined)[] = [];
  const groups = new Map<string, number[]>();

  function successor(state: S, action: A, k: number): S {
    const cached = succState[k];
    if (cached !== undefined) return cached;
    let t = model.next(state, action);
    if (representative) t = representative(t);
    succState[k] = t;
    return t;
  }

  /** The ample set (indices into `acts`) per C0–C4, or undefined to expand everything. */
  function ampleSet(state: S, acts: readonly A[]): number[] | undefined {
    if (!por || acts.length < 2) return undefined;
    groups.clear();
    for (let k = 0; k < acts.length; k++) {
      const c = por.component(acts[k] as A);
      const g = groups.get(c);
      if (g) g.push(k);
      else groups.set(c, [k]);
    }
    if (groups.size < 2) return undefined;
    const candidates = [...groups.values()].sort((a, b) => a.length - b.length);
    for (const group of candidates) {
      let ok = true;
      for (const k of group) {
        const a = acts[k] as A;
        if (por.visible(a) || progress?.isFault(a)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      for (const k of group) {
        if (visited.find(successor(state, acts[k] as A, k)) !== -1) {
          ok = false;
          break;
        }
      }
      if (ok) return group;
    }
    return undefined;
  }

  let head = 0;
  let depth = 0;
  let levelEnd = visited.size;
  let sinceClock = 0;

  explore: while (head < visited.size && stoppedBy === undefined) {
    if (head === levelEnd) {
      depth++;
      levelEnd = visited.size;
    }
    if (++sinceClock >= 64) {
      sinceClock = 0;
      const now = performance.now();
      if (now - started >= maxMs) {
        stoppedBy = 'max-seconds';
        break;
      }
      if (onProgress && now - lastReport >= progressEvery) {
        lastReport = now;
        onProgress(sample(now));
      }
    }
    const index = head++;
    const chunk = frontier[index >>> CHUNK_BITS] as (S | undefined)[];
    const state = chunk[index & (CHUNK - 1)];
    if ((index & (CHUNK - 1)) === CHUNK - 1) frontier[index >>> CHUNK_BITS] = [];
    if (progress) {
      if (index + 1 >= edgeStart.length) {
        const e = new Int32Array(grownCapacity(edgeStart.length, index + 2));
        e.set(edgeStart);
        edgeStart = e;
      }
      edgeStart[index] = edgeCount;
    }
    if (state === undefined) continue;
    const acts = model.actions(state);
    if (acts.length > MAX_ACTIONS)
      throw new Error(`${model.name}: a state has ${acts.length} enabled actions; the explorer supports at most ${MAX_ACTIONS}`);
    if (por) {
      if (succState.length < acts.length) succState = new Array<S | undefined>(acts.length);
      else succState.fill(undefined, 0, acts.length);
    }
    const ample = ampleSet(state, acts);
    const count = ample ? ample.length : acts.length;
    for (let n = 0; n < count; n++) {
      const k = ample ? (ample[n] as number) : n;
      const action = acts[k] as A;
      let succ: S;
      if (por) {
        succ = successor(state, action, k);
      } else {
        succ = model.next(state, action);
        if (representative) succ = representative(succ);
      }
      generated++;
      const kind = model.actionKind(action);
      kindCounts.set(kind, (kindCounts.get(kind) ?? 0) + 1);
      // At the state budget, a state already stored is fine; a new one stops the search.
      let r: number;
      if (visited.size < maxStates) {
        r = visited.findOrAdd(succ);
      } else {
        r = visited.find(succ);
        if (r === -1) {
          stoppedBy = 'max-states';
          break explore;
        }
      }
      let target = r;
      if (r < 0) {
        target = -r - 1;
        discovered(succ, target, index, k);
      }
      if (progress && !progress.isFault(action)) {
        if (edgeCount === edgeTargets.length) {
          const e = new Int32Array(grownCapacity(edgeTargets.length, edgeCount + 1));
          e.set(edgeTargets);
          edgeTargets = e;
        }
        edgeTargets[edgeCount++] = target;
      }
      if (stoppedBy !== undefined) break explore;
    }
  }
  const distinct = visited.size;
  if (progress) {
    if (distinct + 1 > edgeStart.length) {
      const e = new Int32Array(distinct + 1);
      e.set(edgeStart);
      edgeStart = e;
    }
    for (let i = head; i <= distinct; i++) edgeStart[i] = edgeCount;
  }
  const exhausted = stoppedBy === undefined && head >= distinct;
  const durationMs = performance.now() - started;

  function sample(now: number): ProgressSample {
    const elapsedMs = now - started;
    return {
      generated,
      distinct: visited.size,
      depth,
      queue: visited.size - head,
      statesPerSecond: elapsedMs > 0 ? (visited.size * 1000) / elapsedMs : 0,
      elapsedMs,
    };
  }
  if (onProgress) onProgress(sample(performance.now()));

  const depthOf = (index: number): number => {
    let d = 0;
    for (let i = index; (parent[i] as number) >= 0; i = parent[i] as number) d++;
    return d;
  };

  /** Re-derives a concrete path to stored state `index` by replaying from its initial state. */
  function concretePath(index: number): Path<S, A> {
    const chain: number[] = [];
    let i = index;
    for (; (parent[i] as number) >= 0; i = parent[i] as number) chain.push(i);
    const initialIndex = -(parent[i] as number) - 1;
    let state = initial[initialIndex] as S;
    const states: S[] = [state];
    const actions: A[] = [];
    for (let c = chain.length - 1; c >= 0; c--) {
      const target = chain[c] as number;
      const acts = model.actions(state);
      const hint = via[target] as number;
      let found = -1;
      let next: S | undefined;
      for (let t = -1; t < acts.length && found === -1; t++) {
        const k = t === -1 ? hint : t;
        if ((t !== -1 && k === hint) || k >= acts.length) continue;
        const succ = model.next(state, acts[k] as A);
        if (visited.matches(target, representative ? representative(succ) : succ)) {
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

  const invariantResults: PropertyResult<S, A>[] = invariants.map((inv, p) => {
    const at = violationAt[p] as number;
    if (at === -1) {
      return exhausted
        ? { name: inv.name, kind: 'invariant' as const, verdict: 'holds' as const }
        : {
            name: inv.name,
            kind: 'invariant' as const,
            verdict: 'unknown' as const,
            explanation: 'not violated in the part explored; the bound was not exhausted',
          };
    }
    const path = concretePath(at);
    const explanation = inv.check(path.states[path.states.length - 1] as S) ?? violationText[p];
    return {
      name: inv.name,
      kind: 'invariant' as const,
      verdict: 'violated' as const,
      ...(explanation === undefined ? {} : { explanation }),
      path,
    };
  });

  const goalResults: PropertyResult<S, A>[] = goals.map((goal, g) => {
    const at = reachedAt[g] as number;
    if (at !== -1) return { name: goal.name, kind: 'goal' as const, verdict: 'holds' as const, path: concretePath(at) };
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
        explanation: 'needs the whole state graph; the bound was not exhausted',
      };
    } else {
      const stuck = firstStuckState(distinct, edgeStart, edgeTargets, good);
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
            `from this state no quiescent state is reachable without faults: ${trap.reachable}${trap.reachable >= TRAP_SEARCH_LIMIT ? '+' : ''} ` +
            `state(s) are reachable fault-free and none is quiescent; ${how}`,
          path,
          trap,
        };
      }
    }
  }

  const expected = model.expectedActionKinds ?? [];
  const unreachedActionKinds = expected.filter((k) => !kindCounts.has(k));
  const bytes = visited.bytes() + parent.byteLength + via.byteLength;
  const edgeBytes = progress ? edgeStart.byteLength + edgeTargets.byteLength + good.byteLength : 0;
  const passed =
    exhausted &&
    invariantResults.every((r) => r.verdict === 'holds') &&
    goalResults.every((r) => r.verdict === 'holds') &&
    (progressResult === undefined || progressResult.verdict === 'holds') &&
    unreachedActionKinds.length === 0;
  let maxDepth = 0;
  if (distinct > 0) maxDepth = depthOf(distinct - 1);

  return {
    model: model.name,
    options: { visited: visitedMode, symmetry, partialOrder, notes },
    generated,
    distinct,
    maxDepth,
    durationMs,
    statesPerSecond: durationMs > 0 ? (distinct * 1000) / durationMs : 0,
    bytesPerState: distinct > 0 ? bytes / distinct : 0,
    edgeBytesPerState: distinct > 0 ? edgeBytes / distinct : 0,
    collisionProbability: visitedMode === 'fingerprint' ? collisionProbability(distinct) : 0,
    outsideBoundary,
    exhausted,
    ...(stoppedBy !== undefined ? { stoppedBy } : {}),
    invariants: invariantResults,
    goals: goalResults,
    ...(progressResult ? { progress: progressResult } : {}),
    unreachedActionKinds,
    actionKindCounts: Object.fromEntries([...kindCounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    passed,
  };
}

/**
 * The smallest-index (so shallowest) state from which no `good` state is
 * reachable along the stored edges, or -1. Backward search from every good
 * state over the reversed edges.
 */
function firstStuckState(n: number, edgeStart: Int32Array, edgeTargets: Int32Array, good: Uint8Array): number {
  const edges = edgeStart[n] as number;
  const revStart = new Int32Array(n + 1);
  for (let e = 0; e < edges; e++) {
    const t = (edgeTargets[e] as number) + 1;
    revStart[t] = (revStart[t] as number) + 1;
  }
  for (let i = 0; i < n; i++) revStart[i + 1] = (revStart[i + 1] as number) + (revStart[i] as number);
  const fill = revStart.slice(0, n);
  const revSources = new Int32Array(edges);
  for (let i = 0; i < n; i++) {
    const end = edgeStart[i + 1] as number;
    for (let e = edgeStart[i] as number; e < end; e++) {
      const t = edgeTargets[e] as number;
      revSources[fill[t] as number] = i;
      fill[t] = (fill[t] as number) + 1;
    }
  }
  const canSettle = new Uint8Array(n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < n; i++) {
    if (good[i] === 1) {
      canSettle[i] = 1;
      queue[tail++] = i;
    }
  }
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
  for (let i = 0; i < n; i++) if (canSettle[i] === 0) return i;
  return -1;
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
