// Simulation: random walks on a model at bounds no exhaustive search can
// cover (as TLC's -simulate, Quint's run). Each walk starts from an initial
// state and takes enabled actions at random: each kind of action enabled
// gets the model's `weight` for it, shared among the actions of that kind
// (so that thirty possible migrations do not crowd out one record, and the
// faults that matter come up at the moments they matter). It checks every
// invariant after every step, and ends when nothing is enabled or at the
// depth bound. A state that enables only faults and is not quiescent breaks
// Progress: no fault-free path leads from it to a quiescent state.
//
// Walk K of seed S draws from its own generator, seeded from (S, K): it is
// the same walk whatever else runs, so `--seed S --walk K` replays it. A
// violation is minimized by deleting steps while the shortened path still
// replays (every action enabled where it is taken) and still breaks the same
// property, then reported as a path like any counterexample.
//
// Simulation never proves a property: after a run without a violation every
// property stays `unknown` (`check --simulate` exits 0 then, "nothing found
// within the budget", and says the run was not exhaustive).
import type { OverallVerdict } from '../../spec/index.ts';
import type { Model, Path, PropertyResult } from './types.ts';

/** A 32-bit generator (mulberry32): fast, and good enough to choose among a few dozen actions. */
export class WalkRandom {
  private state: number;

  constructor(seed: number, walk: number) {
    // splitmix-style mixing of (seed, walk), so neighbouring walks start far apart.
    let z = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(walk | 0, 0x85ebca77) ^ 0x2545f491) | 0;
    z = Math.imul(z ^ (z >>> 16), 0x7feb352d);
    z = Math.imul(z ^ (z >>> 15), 0x846ca68b);
    this.state = (z ^ (z >>> 16)) | 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** What breaks in one walk: the property, and how far in. */
export interface WalkViolation {
  readonly kind: 'invariant' | 'progress';
  readonly property: string;
  readonly explanation: string;
  /** The actions from the initial state to the violating state (for Progress, to the dead end). */
  readonly actions: readonly unknown[];
}

export interface WalkResult {
  readonly steps: number;
  /** Ended with nothing enabled before the depth bound. */
  readonly deadEnd: boolean;
  readonly violation?: WalkViolation;
}

/** Per-thread accumulators of a simulation. */
export interface SimulationTally {
  walks: number;
  steps: number;
  longestWalk: number;
  deadEnds: number;
  readonly kindCounts: Map<string, number>;
  /** The violating walk with the smallest index found, if any. */
  violation: (WalkViolation & { readonly walk: number }) | undefined;
}

export function emptySimulationTally(): SimulationTally {
  return { walks: 0, steps: 0, longestWalk: 0, deadEnds: 0, kindCounts: new Map(), violation: undefined };
}

export function mergeSimulationTally(into: SimulationTally, from: SimulationTally): void {
  into.walks += from.walks;
  into.steps += from.steps;
  into.longestWalk = Math.max(into.longestWalk, from.longestWalk);
  into.deadEnds += from.deadEnds;
  for (const [k, n] of from.kindCounts) into.kindCounts.set(k, (into.kindCounts.get(k) ?? 0) + n);
  if (from.violation && (!into.violation || from.violation.walk < into.violation.walk)) into.violation = from.violation;
}

/** Runs walks with `model`, one at a time; each a function of (seed, walk). */
export class Walker<S, A> {
  private readonly model: Model<S, A>;
  private readonly depth: number;
  private weights = new Float64Array(64);
  private readonly perKind = new Map<string, number>();
  private readonly kinds = new Map<string, { n: number }>();

  constructor(model: Model<S, A>, depth: number) {
    this.model = model;
    this.depth = depth;
  }

  /** Transitions per action kind over every walk so far. */
  kindCounts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, c] of this.kinds) out.set(k, c.n);
    return out;
  }

  /**
   * Walk `walk` of `seed` (its actions kept only if `keepPath`). `stop` is
   * asked every 1024 steps; when it says so the walk is cut there.
   */
  run(seed: number, walk: number, keepPath = false, stop?: () => boolean): WalkResult & { readonly path?: readonly A[] } {
    const model = this.model;
    const random = new WalkRandom(seed, walk);
    const initial = model.initialStates();
    let state = initial[Math.floor(random.next() * initial.length)] as S;
    const taken: A[] = [];
    const invariants = model.invariants;
    const progress = model.progress;
    const weight = model.weight?.bind(model);
    const kinds = this.kinds;
    // Every step's action is remembered as an index into the enabled list, so a violation can be replayed cheaply.
    const choices: number[] = [];
    let steps = 0;
    for (; steps < this.depth; steps++) {
      if ((steps & 1023) === 1023 && stop?.()) break;
      const acts = model.actions(state);
      const n = acts.length;
      if (n === 0) {
        const stuck = this.deadEnd(state);
        if (stuck !== undefined)
          return { steps, deadEnd: true, violation: this.violationOf(seed, walk, choices, stuck), ...(keepPath ? { path: taken } : {}) };
        return { steps, deadEnd: true, ...(keepPath ? { path: taken } : {}) };
      }
      // Each kind of action present gets its weight, shared among the enabled actions of that kind.
      let k = 0;
      let faultFree = progress === undefined;
      if (this.weights.length < n) this.weights = new Float64Array(Math.max(n, this.weights.length * 2));
      const perKind = this.perKind;
      perKind.clear();
      for (let i = 0; i < n; i++) {
        const a = acts[i] as A;
        if (!faultFree && !(progress as NonNullable<typeof progress>).isFault(a)) faultFree = true;
        const kind = model.actionKind(a);
        perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
      }
      if (!faultFree && !(progress as NonNullable<typeof progress>).quiescent(state)) {
        // Only faults are left, and the state is not quiescent: no fault-free path leads anywhere (Progress).
        const stuck = this.deadEnd(state);
        if (stuck !== undefined)
          return { steps, deadEnd: false, violation: this.violationOf(seed, walk, choices, stuck), ...(keepPath ? { path: taken } : {}) };
      }
      if (n > 1) {
        let total = 0;
        for (let i = 0; i < n; i++) {
          const a = acts[i] as A;
          total += (weight ? weight(state, a) : 1) / (perKind.get(model.actionKind(a)) as number);
          this.weights[i] = total;
        }
        const r = random.next() * total;
        while (k < n - 1 && (this.weights[k] as number) <= r) k++;
      }
      const action = acts[k] as A;
      choices.push(k);
      if (keepPath) taken.push(action);
      const kind = model.actionKind(action);
      const c = kinds.get(kind);
      if (c === undefined) kinds.set(kind, { n: 1 });
      else c.n++;
      state = model.next(state, action);
      for (let p = 0; p < invariants.length; p++) {
        const why = (invariants[p] as (typeof invariants)[number]).check(state);
        if (why !== undefined) {
          const name = (invariants[p] as (typeof invariants)[number]).name;
          return {
            steps: steps + 1,
            deadEnd: false,
            violation: this.violationOf(seed, walk, choices, { kind: 'invariant', property: name, explanation: why }),
            ...(keepPath ? { path: taken } : {}),
          };
        }
      }
    }
    return { steps, deadEnd: false, ...(keepPath ? { path: taken } : {}) };
  }

  /** Progress where nothing but faults is enabled: broken unless the state is quiescent. */
  private deadEnd(state: S): Omit<WalkViolation, 'actions'> | undefined {
    const progress = this.model.progress;
    if (!progress || progress.quiescent(state)) return undefined;
    return {
      kind: 'progress',
      property: progress.name,
      explanation: 'the walk ended in a state that enables no action and is not quiescent',
    };
  }

  /** The actions of a walk, in JSON form, from the choices it made (replayed from the start). */
  private violationOf(seed: number, walk: number, choices: readonly number[], v: Omit<WalkViolation, 'actions'>): WalkViolation {
    const model = this.model;
    const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
    const initial = model.initialStates();
    const random = new WalkRandom(seed, walk);
    let state = initial[Math.floor(random.next() * initial.length)] as S;
    const actions: unknown[] = [];
    for (const k of choices) {
      const a = model.actions(state)[k] as A;
      actions.push(toJson(a));
      state = model.next(state, a);
    }
    return { ...v, actions };
  }
}

// ---------------------------------------------------------------------------
// Minimizing a violating path

/** Structural equality of plain JSON values (actions in their JSON form). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!sameJson(x[k], y[k])) return false;
  return true;
}

export interface Reproduction<S, A> {
  /** The path, cut at the violation (for Progress, extended fault-free to the dead end). */
  readonly path: Path<S, A>;
  readonly explanation: string;
  readonly trap?: NonNullable<PropertyResult<S, A>['trap']>;
}

/** Bound on the fault-free steps taken to reach a dead end when reproducing a Progress violation. */
const COMPLETION_LIMIT = 100_000;

/**
 * Replays `actions` (JSON form) from initial state 0, each matched to an
 * enabled action; returns the path if it breaks `property` on the way (an
 * invariant: cut at the first violating state; Progress: the path then
 * continues with the first fault-free action while there is one, and must
 * end in a state that is not quiescent). Undefined if it does not.
 */
export function reproduce<S, A>(
  model: Model<S, A>,
  kind: 'invariant' | 'progress',
  property: string,
  actions: readonly unknown[],
): Reproduction<S, A> | undefined {
  const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
  let state = model.initialStates()[0] as S;
  const states: S[] = [state];
  const taken: A[] = [];
  const invariant = kind === 'invariant' ? model.invariants.find((i) => i.name === property) : undefined;
  if (kind === 'invariant' && !invariant) return undefined;
  const progress = model.progress;
  if (kind === 'progress' && progress?.name !== property) return undefined;
  for (const wanted of actions) {
    const enabled = model.actions(state).find((a) => sameJson(toJson(a), wanted)) ?? model.substitute?.(state, wanted);
    if (enabled === undefined) return undefined;
    state = model.next(state, enabled);
    taken.push(enabled);
    states.push(state);
    const why = invariant?.check(state);
    if (why !== undefined) return { path: { initialIndex: 0, actions: taken, states }, explanation: why };
  }
  if (!progress || kind !== 'progress') return undefined;
  // Progress: continue without faults to a dead end; it must not be quiescent.
  const trapActions: A[] = [];
  const trapStates: S[] = [state];
  let end = state;
  for (let i = 0; i < COMPLETION_LIMIT; i++) {
    const next = model.actions(end).find((a) => !progress.isFault(a));
    if (next === undefined) break;
    if (i === COMPLETION_LIMIT - 1) return undefined;
    end = model.next(end, next);
    trapActions.push(next);
    trapStates.push(end);
  }
  if (progress.quiescent(end)) return undefined;
  return {
    path: { initialIndex: 0, actions: taken, states },
    explanation: `${trapActions.length} fault-free step(s) further, a state enables no fault-free action and is not quiescent`,
    trap: { kind: 'deadlock', actions: trapActions, states: trapStates, reachable: trapStates.length },
  };
}

/**
 * Deletes steps from `actions` while the rest still reproduces the
 * violation: chunks of half the path, then a quarter, and so on down to
 * single steps (as delta debugging does), until `seconds` have passed.
 */
export function minimize<S, A>(
  model: Model<S, A>,
  kind: 'invariant' | 'progress',
  property: string,
  actions: readonly unknown[],
  seconds: number,
): { readonly reproduction: Reproduction<S, A>; readonly minimal: boolean } | undefined {
  const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
  const first = reproduce(model, kind, property, actions);
  if (!first) return undefined;
  let best = first;
  let current: unknown[] = best.path.actions.map(toJson);
  const deadline = performance.now() + seconds * 1000;
  if (kind === 'progress') {
    // A key that got stuck usually stays stuck: look for the shortest prefix from which the
    // fault-free continuation still gets stuck (by bisection; a prefix is kept only if it reproduces).
    let lo = 0;
    let hi = current.length;
    while (lo < hi && performance.now() < deadline) {
      const mid = (lo + hi) >> 1;
      const r = reproduce(model, kind, property, current.slice(0, mid));
      if (r) {
        best = r;
        hi = mid;
      } else lo = mid + 1;
    }
    current = best.path.actions.map(toJson);
  }
  let chunk = Math.max(1, current.length >> 1);
  for (;;) {
    let removedAny = false;
    for (let at = 0; at < current.length && performance.now() < deadline; ) {
      const candidate = [...current.slice(0, at), ...current.slice(at + chunk)];
      const r = reproduce(model, kind, property, candidate);
      if (r) {
        best = r;
        current = r.path.actions.map(toJson);
        removedAny = true;
      } else at += chunk;
    }
    if (performance.now() >= deadline) return { reproduction: best, minimal: false };
    if (chunk === 1 && !removedAny) return { reproduction: best, minimal: true };
    if (!removedAny) chunk = Math.max(1, chunk >> 1);
  }
}

// ---------------------------------------------------------------------------
// The report

/** A share of a seed's walks (`--shard K/N`): walk w belongs to shard (w mod N) + 1. */
export interface WalkShard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/**
 * The walk a shard runs as its `local`-th (0-based): walk `(K-1) + N·local`
 * of the seed. The shards of a seed thus run disjoint sets of walks, whose
 * union is walks 0, 1, 2, ... of the unsharded run; shard K of seed S runs
 * the same walks on every run and any number of threads.
 */
export function shardWalk(local: number, shard: WalkShard | undefined): number {
  return shard === undefined ? local : shard.index - 1 + shard.count * local;
}

export interface SimulationOptions {
  readonly seed: number;
  /** Stop after this many walks (walks 0 .. walks-1; with `shard`, the shard's first `walks`). */
  readonly walks?: number;
  /** Run only the shard's walks (see `shardWalk`). */
  readonly shard?: WalkShard;
  /** Run only this walk (a replay of one walk of the seed). */
  readonly walk?: number;
  /** Steps per walk at most. */
  readonly depth: number;
  /** Seconds to spend minimizing a violation (default 30). */
  readonly minimizeSeconds?: number;
  readonly onProgress?: (sample: SimulationProgress) => void;
  readonly progressIntervalMs?: number;
}

export interface SimulationProgress {
  readonly walks: number;
  readonly steps: number;
  readonly walksPerSecond: number;
  readonly stepsPerSecond: number;
  readonly elapsedMs: number;
}

export interface SimulationReport<S, A> {
  readonly model: string;
  readonly seed: number;
  readonly depth: number;
  /** Walks run (the last ones may have been cut short by the budget). */
  readonly walks: number;
  readonly steps: number;
  readonly durationMs: number;
  readonly walksPerSecond: number;
  readonly stepsPerSecond: number;
  readonly longestWalk: number;
  /** Walks that ended because nothing was enabled (the others reached the depth bound). */
  readonly deadEnds: number;
  readonly workers: number;
  readonly stoppedBy: 'walks' | 'max-seconds' | 'max-states' | 'violation' | 'interrupted';
  /** Violated (a minimized path), or unknown: sampling proves nothing. */
  readonly invariants: readonly PropertyResult<S, A>[];
  readonly progress?: PropertyResult<S, A>;
  /** The walk that broke a property: its index, its length, and whether the minimized path is 1-minimal. */
  readonly violation?: { readonly walk: number; readonly steps: number; readonly minimal: boolean };
  readonly actionKindCounts: Readonly<Record<string, number>>;
  /**
   * The verdict (SPEC §8), the word `check --simulate` prints and reports:
   * `fail` for a violation; `unknown` when interrupted; else `pass`, no
   * violation within the budget (as TLC's and Quint's simulators say; the
   * properties stay `unknown`: sampling proves nothing).
   */
  readonly verdict: OverallVerdict;
}

/** The report of a simulation from its merged tally; minimizes the violation, if any, on `model`. */
export function simulationReport<S, A>(
  model: Model<S, A>,
  tally: SimulationTally,
  context: {
    readonly seed: number;
    readonly depth: number;
    readonly durationMs: number;
    readonly workers: number;
    readonly stoppedBy: SimulationReport<S, A>['stoppedBy'];
    readonly minimizeSeconds: number;
  },
): SimulationReport<S, A> {
  const v = tally.violation;
  const minimized = v ? minimize(model, v.kind, v.property, v.actions, context.minimizeSeconds) : undefined;
  if (v && !minimized)
    throw new Error(`${model.name}: walk ${v.walk} of seed ${context.seed} broke ${v.property}, but its path does not replay`);
  const unknown = 'no violation in the walks run; simulation samples the state space and proves nothing';
  const invariants = model.invariants.map((inv): PropertyResult<S, A> => {
    if (minimized && v?.kind === 'invariant' && v.property === inv.name) {
      return {
        name: inv.name,
        kind: 'invariant',
        verdict: 'violated',
        explanation: minimized.reproduction.explanation,
        path: minimized.reproduction.path,
      };
    }
    return { name: inv.name, kind: 'invariant', verdict: 'unknown', explanation: unknown };
  });
  const p = model.progress;
  let progress: PropertyResult<S, A> | undefined;
  if (p) {
    progress =
      minimized && v?.kind === 'progress'
        ? {
            name: p.name,
            kind: 'progress',
            verdict: 'violated',
            explanation: minimized.reproduction.explanation,
            path: minimized.reproduction.path,
            ...(minimized.reproduction.trap ? { trap: minimized.reproduction.trap } : {}),
          }
        : { name: p.name, kind: 'progress', verdict: 'unknown', explanation: unknown };
  }
  const seconds = context.durationMs / 1000;
  return {
    model: model.name,
    seed: context.seed,
    depth: context.depth,
    walks: tally.walks,
    steps: tally.steps,
    durationMs: context.durationMs,
    walksPerSecond: seconds > 0 ? tally.walks / seconds : 0,
    stepsPerSecond: seconds > 0 ? tally.steps / seconds : 0,
    longestWalk: tally.longestWalk,
    deadEnds: tally.deadEnds,
    workers: context.workers,
    stoppedBy: context.stoppedBy,
    invariants,
    ...(progress ? { progress } : {}),
    ...(v && minimized ? { violation: { walk: v.walk, steps: v.actions.length, minimal: minimized.minimal } } : {}),
    actionKindCounts: Object.fromEntries([...tally.kindCounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    verdict: minimized ? 'fail' : context.stoppedBy === 'interrupted' ? 'unknown' : 'pass',
  };
}

/**
 * Runs walks on this thread: the shard's walks `first`, `first + stride`,
 * ... (its local numbering, see `shardWalk`), or only `options.walk`;
 * `more()` says whether to go on (budgets, signals); `onWalk` hears each
 * walk with its number in the seed.
 */
export function* walkHere<S, A>(
  model: Model<S, A>,
  options: Pick<SimulationOptions, 'seed' | 'walks' | 'walk' | 'depth' | 'shard'>,
  first: number,
  stride: number,
  more: () => boolean,
  onWalk?: (walk: WalkResult, index: number) => void,
  claim?: () => number,
): Generator<void, SimulationTally, void> {
  const walker = new Walker(model, options.depth);
  const tally = emptySimulationTally();
  const only = options.walk;
  // With `claim`, the walkers of a simulation take the next walk from a shared counter, so a walker
  // that starts late (a thread still loading its model) or walks slowly takes fewer; else first, first + stride, ...
  for (
    let local = only !== undefined ? 0 : claim ? claim() : first;
    only === undefined ? options.walks === undefined || local < options.walks : local === 0;
    local = claim && only === undefined ? claim() : local + stride
  ) {
    if (!more()) break;
    const w = only ?? shardWalk(local, options.shard);
    const r = walker.run(options.seed, w, false, () => !more());
    tally.walks++;
    tally.steps += r.steps;
    if (r.steps > tally.longestWalk) tally.longestWalk = r.steps;
    if (r.deadEnd) tally.deadEnds++;
    onWalk?.(r, w);
    if (r.violation) {
      tally.violation = { ...r.violation, walk: w };
      break;
    }
    yield;
  }
  for (const [k, n] of walker.kindCounts()) tally.kindCounts.set(k, n);
  return tally;
}
