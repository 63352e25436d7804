// The breadth-first engine, level by level: one thread's share of expanding
// a level (`Expander`), and the loop that runs every level on this thread
// (`exploreHere`). Several threads run `Expander`s over one shared store to
// explore a graph together (session.ts); the result is the same as one.
// How a state is keyed and found again is visited.ts.
//
// Breadth-first, level-synchronous: the states of depth d (one level, a list
// of frontier segments) are expanded before any of depth d+1, and a state is
// stored, with its parent and action, when first found. So the first
// violating state found is at minimal depth, and its parent chain is a
// shortest counterexample, whichever thread found it. Indices are claimed in
// discovery order, so every state of depth d+1 has a larger index than every
// state of depth d.
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
//   C3  (cycle proviso for breadth-first search) no ample successor lies at a
//       depth <= d, the depth of the state expanded: each is either new or
//       already found in this level (so at depth d+1). A reduced state's
//       successors then lie one level deeper, so along a cycle of the reduced
//       graph the depth cannot grow all the way round: some state on every
//       cycle is fully expanded, and no action is ignored forever. Whether a
//       successor lies at depth <= d is known before the level starts (its
//       index is below the level's end), so the choice does not depend on
//       which thread found what first;
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
// extra; extras cannot go on forever (C3: a run of reduced states only goes
// deeper). The reduced graph thus reaches `u = s` followed by the extras,
// and the extras are fault-free (C4), so a fault-free path from `u` to
// quiescence would give one from `s`: `u` is stuck too, and is found.
// Conversely every reduced path is a full path. So the verdict is exact;
// only the counterexample is shortest in the reduced graph rather than in the
// full one. A boundary (`withinBoundary`) stops expansion in a way the
// argument does not cover, so the reduction is switched off for such models
// (the report notes it).
import {
  discardSegments,
  FrontierReader,
  FrontierWriter,
  removeSegmentFiles,
  type FrontierSegment,
  type SpillSettings,
} from './frontier.ts';
import { createStoreBuffers, FLAG_GOOD, FLAG_SETTLED, StateStore, type StopReason } from './store.ts';
import type { ByteSuccessors, Model, VisitedMode } from './types.ts';
import { ExactKeys, type Keyer, makeKeyer, SUCCESSOR_BATCH, Visited } from './visited.ts';

export const MAX_ACTIONS = 0xffff;

/**
 * States expanded between two readings of the clock that ends a turn (a power of two dividing 64,
 * the count `shouldStop` keeps). A state of `ci` takes a few microseconds; one of a model whose
 * states take milliseconds makes a turn longer by at most this many states.
 */
const CLOCK_EVERY = 8;

/**
 * Table slots from which `expandBytes` stores successors in batches (8 MB of table). Below it the
 * table stays in the caches, its misses cost little, and writing a batch first costs more than it
 * saves: measured on `ci` (a 4 MB table) about 3 % slower in batches, on `deep` (32 MB) about 9 %
 * faster.
 */
const BATCH_FROM_SLOTS = 1 << 21;

/** How an exploration runs, fixed before it starts (the same on every thread). */
export interface EngineSettings {
  readonly visited: VisitedMode;
  readonly symmetry: boolean;
  readonly partialOrder: boolean;
  readonly stopAtFirstViolation: boolean;
  /** Table slots from which successors on bytes are stored in batches (default BATCH_FROM_SLOTS; tests set 0 or Infinity). */
  readonly batchFromSlots?: number;
}

/** Control words shared by every exploration of one run (one `check` command). */
const TOTAL = 0;
/** Set when the run is interrupted (read by simulations too). */
export const INTERRUPTED = 1;
/**
 * Set when an exploration that stops at its first violation found one: the
 * run's other explorations that stop at the first violation stop too (so
 * `check --stop-at-first` ends the whole command, every part).
 */
const VIOLATION_FOUND = 2;

/** The budgets of a whole run, shared by its explorations and their threads. */
export interface RunLimits {
  readonly control: SharedArrayBuffer;
  /** Distinct states over the whole run. */
  readonly maxStates: number;
  /** Milliseconds since the epoch (`Date.now()`) past which exploration stops. */
  readonly deadline: number;
  readonly spill: SpillSettings;
}

export function createRunControl(): SharedArrayBuffer {
  return new SharedArrayBuffer(8 * 4);
}

/** Stops every exploration of the run (SIGINT, SIGTERM, an aborted signal). */
export function interruptRun(limits: RunLimits): void {
  Atomics.store(new Int32Array(limits.control), INTERRUPTED, 1);
}

export function runInterrupted(limits: RunLimits): boolean {
  return Atomics.load(new Int32Array(limits.control), INTERRUPTED) !== 0;
}

/** Distinct states found so far over the run (without a state budget, added in batches: see `Expander.countShared`). */
export function runTotal(limits: RunLimits): number {
  return Atomics.load(new Int32Array(limits.control), TOTAL);
}

/** What one thread found while expanding its share; merged over threads at the end. */
export interface Tally {
  generated: number;
  readonly kindCounts: Map<string, number>;
  /** Per invariant: the first violating state this thread found, at its depth. */
  readonly violations: ({ index: number; depth: number; text: string } | undefined)[];
  /** Per goal: the first state this thread found that reaches it. */
  readonly reached: ({ index: number; depth: number } | undefined)[];
  outsideBoundary: number;
  /** The deepest state found. */
  maxDepth: number;
}

/**
 * The codec's successors on bytes, if they stand for this model's own functions (types.ts
 * `ByteSuccessors.standsFor`): a model that replaced `next`, `actions`, an invariant list or
 * its progress property while keeping the codec is searched through its own functions.
 */
function ownSuccessors<S, A>(model: Model<S, A>): ByteSuccessors | undefined {
  const successors = model.codec?.successors;
  if (successors === undefined) return undefined;
  const own = successors.standsFor;
  const same =
    own.actions === model.actions && own.next === model.next && own.invariants === model.invariants && own.progress === model.progress;
  return same ? successors : undefined;
}

export function emptyTally(invariants: number, goals: number): Tally {
  return {
    generated: 0,
    kindCounts: new Map(),
    violations: new Array<undefined>(invariants).fill(undefined),
    reached: new Array<undefined>(goals).fill(undefined),
    outsideBoundary: 0,
    maxDepth: 0,
  };
}

/** Adds `from` into `into`: counts add up, and the shallowest find of each property wins. */
export function mergeTally(into: Tally, from: Tally): void {
  into.generated += from.generated;
  for (const [k, n] of from.kindCounts) into.kindCounts.set(k, (into.kindCounts.get(k) ?? 0) + n);
  from.violations.forEach((v, p) => {
    const have = into.violations[p];
    if (v && (!have || v.depth < have.depth || (v.depth === have.depth && v.index < have.index))) into.violations[p] = v;
  });
  from.reached.forEach((r, g) => {
    const have = into.reached[g];
    if (r && (!have || r.depth < have.depth || (r.depth === have.depth && r.index < have.index))) into.reached[g] = r;
  });
  into.outsideBoundary += from.outsideBoundary;
  into.maxDepth = Math.max(into.maxDepth, from.maxDepth);
}

// ---------------------------------------------------------------------------

/** One thread's expansion of the levels of one exploration. */
export class Expander<S, A> {
  private readonly found: Tally;
  /** Transitions per action kind, as counters (one map lookup per transition). */
  private readonly kinds = new Map<string, { n: number }>();
  readonly visited: Visited<S>;
  private readonly model: Model<S, A>;
  private readonly settings: EngineSettings;
  private readonly limits: RunLimits;
  private readonly runControl: Int32Array;
  private readonly store: StateStore;
  private readonly keyer: Keyer<S>;
  private readonly reader: FrontierReader;
  private readonly por: Model<S, A>['partialOrder'];
  private readonly progress: Model<S, A>['progress'];
  private readonly withinBoundary: ((s: S) => boolean) | undefined;
  /** The codec's successors on bytes, when it has them and no reduction needs the states (types.ts `ByteSuccessors`). */
  private readonly byteSuccessors: ByteSuccessors | undefined;
  private violationsOpen: number;
  private goalsOpen: number;
  /**
   * The byte successors judge this model's goals too (`ByteSuccessors.reaches`, standing for these
   * very goals): while a goal is open, new states are not read back only for them.
   */
  private readonly goalsOnBytes: boolean;
  /**
   * Progress's record of the state being expanded (`startEdges`, `edgeTo`, `endEdges`): whether it
   * has not settled yet (false when there is no Progress), and its fault-free edges so far.
   */
  private unsettled = false;
  private edgeTargets = new Int32Array(64);
  private edgeCount = 0;
  /** The run has a state budget: the shared total is read before each insert and counted at each new state. */
  private readonly budgeted: boolean;
  /** Without a budget, new states not yet added to the shared total (added every 64 states expanded). */
  private uncounted = 0;
  private succState: (S | undefined)[] = [];
  private readonly groups = new Map<string, number[]>();
  private sinceClock = 0;
  /** The kinds of a batch of successors (`expandBytes`), by number (`Keyer.kindNames`). */
  private readonly batchKinds = new Int32Array(SUCCESSOR_BATCH);
  /** Successors written on bytes, per kind by number (`Keyer.kindNames`); the others are counted by name in `kinds`. */
  private kindsByNumber = new Float64Array(64);
  /** What touching a batch's table slots read, kept so that the reads are not optimised away. */
  private touched = 0;
  private readonly batchFromSlots: number;

  constructor(model: Model<S, A>, settings: EngineSettings, store: StateStore, exact: ExactKeys | undefined, limits: RunLimits) {
    this.model = model;
    this.settings = settings;
    this.batchFromSlots = settings.batchFromSlots ?? BATCH_FROM_SLOTS;
    this.limits = limits;
    this.runControl = new Int32Array(limits.control);
    this.budgeted = Number.isFinite(limits.maxStates);
    this.store = store;
    this.keyer = makeKeyer(model as Model<S, unknown>, settings);
    this.visited = new Visited(store, exact, this.keyer);
    this.reader = new FrontierReader(limits.spill.account);
    this.por = settings.partialOrder ? model.partialOrder : undefined;
    this.progress = model.progress;
    this.withinBoundary = model.withinBoundary?.bind(model);
    this.byteSuccessors = this.por === undefined && this.keyer.keySuccessorAt !== undefined ? ownSuccessors(model) : undefined;
    this.found = emptyTally(model.invariants.length, model.goals?.length ?? 0);
    this.violationsOpen = model.invariants.length;
    this.goalsOpen = model.goals?.length ?? 0;
    const successors = this.byteSuccessors;
    this.goalsOnBytes = successors?.reaches !== undefined && model.goals !== undefined && successors.standsFor.goals === model.goals;
  }

  get generated(): number {
    return this.found.generated;
  }

  /** What this thread found so far. */
  get tally(): Tally {
    const counts = this.found.kindCounts;
    counts.clear();
    for (const [kind, c] of this.kinds) counts.set(kind, c.n);
    const successors = this.byteSuccessors;
    const names = successors && this.keyer.kindNames ? this.keyer.kindNames(successors) : [];
    for (let n = 0; n < this.kindsByNumber.length; n++) {
      const c = this.kindsByNumber[n] as number;
      if (c === 0) continue;
      const name = names[n];
      if (name === undefined) throw new Error(`the byte successors counted a kind numbered ${n}, which kindNames does not name`);
      counts.set(name, (counts.get(name) ?? 0) + c);
    }
    return this.found;
  }

  /** Whether frontier bytes can leave this thread (spill to disk, go to other threads). */
  get portable(): boolean {
    return this.keyer.portable;
  }

  /** Checks the budgets and the interrupt flag (every 64 states); true once the exploration must stop. */
  private shouldStop(): boolean {
    if (++this.sinceClock < 64) return false;
    this.sinceClock = 0;
    this.countShared();
    return this.mustStop();
  }

  /** Adds the new states found since the last call to the run's shared total. */
  private countShared(): void {
    if (this.uncounted === 0) return;
    Atomics.add(this.runControl, TOTAL, this.uncounted);
    this.uncounted = 0;
  }

  /** The budgets and the interrupt flag, now; true once the exploration must stop. */
  private mustStop(): boolean {
    if (this.store.stopReason() !== undefined) return true;
    if (Atomics.load(this.runControl, INTERRUPTED) !== 0) {
      this.store.stop('interrupted');
      return true;
    }
    if (this.settings.stopAtFirstViolation && Atomics.load(this.runControl, VIOLATION_FOUND) !== 0) {
      this.store.stop('violation');
      return true;
    }
    if (Date.now() >= this.limits.deadline) {
      this.store.stop('max-seconds');
      return true;
    }
    return false;
  }

  // Without a budget the shared total is only a figure (`runTotal`), so it is not read for every
  // successor nor written at every new state: with several threads each access is to a cache line
  // the others write (a miss), for every one of millions of transitions.
  private budgetLeft(): boolean {
    return !this.budgeted || Atomics.load(this.runControl, TOTAL) < this.limits.maxStates;
  }

  /** Stores the initial states (level 0) and writes them to `out`. */
  discoverInitial(out: FrontierWriter): void {
    const initial = this.model.initialStates();
    for (let i = 0; i < initial.length && this.store.stopReason() === undefined; i++) {
      const s = this.keyer.key(initial[i] as S);
      this.found.generated++;
      if (!this.budgetLeft() && this.visited.find() === -1) {
        this.store.stop('max-states');
        return;
      }
      const r = this.visited.insert(-(i + 1), 0);
      if (r < 0) this.discovered(s, -r - 1, 0, out);
    }
    // Level 0 ends here: the first level's indices must all lie above it.
    this.store.releaseIndices();
    this.countShared();
  }

  /** Counts a new state of depth `depth`. */
  private count(depth: number): void {
    if (this.budgeted) Atomics.add(this.runControl, TOTAL, 1);
    else this.uncounted++;
    if (depth > this.found.maxDepth) this.found.maxDepth = depth;
  }

  /** A new state: count it, check the properties, and queue it unless it lies outside the boundary. */
  private discovered(state: S, index: number, depth: number, out: FrontierWriter): void {
    this.count(depth);
    const model = this.model;
    if (this.violationsOpen > 0) {
      const invariants = model.invariants;
      for (let p = 0; p < invariants.length; p++) {
        if (this.found.violations[p] !== undefined) continue;
        const why = (invariants[p] as (typeof invariants)[number]).check(state);
        if (why !== undefined) {
          this.found.violations[p] = { index, depth, text: why };
          this.violationsOpen--;
          if (this.settings.stopAtFirstViolation) {
            this.store.stop('violation');
            Atomics.store(this.runControl, VIOLATION_FOUND, 1);
          }
        }
      }
    }
    if (this.goalsOpen > 0) {
      const goals = model.goals ?? [];
      for (let g = 0; g < goals.length; g++) {
        if (this.found.reached[g] === undefined && (goals[g] as (typeof goals)[number]).reached(state)) {
          this.found.reached[g] = { index, depth };
          this.goalsOpen--;
        }
      }
    }
    const inside = this.withinBoundary === undefined || this.withinBoundary(state);
    // A state outside the boundary is assumed to be able to settle: Progress
    // cannot see past the boundary, and must not blame it.
    if (this.progress && (!inside || this.progress.quiescent(state))) this.store.setFlags(index, FLAG_GOOD);
    if (!inside) {
      this.found.outsideBoundary++;
      return;
    }
    this.keyer.append(out, index);
  }

  /**
   * Expands the level `segments` (states of depth `depth`; indices below
   * `levelEnd` are at depth <= `depth`) with the other threads: claims
   * segments until none is left or the exploration stops, writing new states
   * to `out`.
   */
  expandLevel(segments: readonly FrontierSegment[], depth: number, levelEnd: number, out: FrontierWriter, late = false): void {
    if (late) this.store.joinWork();
    else this.store.refresh();
    try {
      for (let unit = this.store.claimWork(); unit < segments.length; unit = this.store.claimWork()) {
        if (!this.expandSegment(segments[unit] as FrontierSegment, depth, levelEnd, out)) return;
      }
    } finally {
      this.store.leave();
    }
  }

  /**
   * Expands one segment; false when the exploration must stop. With
   * `turnMs`, it returns `'turn'` once that long has passed, and a call with
   * `resume` goes on where it left off: so a caller on the main thread can
   * yield to the event loop (and hear a signal) within a segment, however
   * long the segment takes. Then the budgets and the interrupt are checked
   * at the start of every turn as well as every 64 states (a state of a
   * large model can take milliseconds): an interrupt on this thread is only
   * heard between turns anyway, and the deadline is passed by a turn at most.
   */
  expandSegment(
    segment: FrontierSegment,
    depth: number,
    levelEnd: number,
    out: FrontierWriter,
    turn?: { readonly turnMs: number; readonly resume: boolean },
  ): boolean | 'turn' {
    const reader = this.reader;
    if (!turn?.resume) reader.open(segment);
    const turnEnds = turn === undefined ? undefined : performance.now() + turn.turnMs;
    const store = this.store;
    let stop = turn !== undefined && this.mustStop();
    try {
      while (reader.next()) {
        if (store.pauseRequested()) store.pauseHere();
        if (stop || this.shouldStop()) {
          while (reader.next()) {
            // drain, so the segment's memory is released
          }
          return false;
        }
        const index = reader.index;
        const count = this.byteSuccessors?.load(reader.reader) ?? -1;
        const expanded =
          count >= 0
            ? this.expandBytes(this.byteSuccessors as ByteSuccessors, count, index, depth, out)
            : this.expandState(this.keyer.read(reader), index, depth, levelEnd, out);
        if (!expanded) {
          while (reader.next()) {
            // likewise
          }
          return false;
        }
        // The clock every CLOCK_EVERY states (shouldStop counts them, to 64, a multiple): read at every
        // state it took 1.6 % of `ci`'s search.
        if (turnEnds !== undefined && (this.sinceClock & (CLOCK_EVERY - 1)) === 0 && performance.now() >= turnEnds) return 'turn';
        stop = false;
      }
      return true;
    } finally {
      // However the segment ends, the new states it found are in the run's total before anyone reads it.
      this.countShared();
    }
  }

  private successor(state: S, action: A, k: number): S {
    const cached = this.succState[k];
    if (cached !== undefined) return cached;
    const t = this.model.next(state, action);
    this.succState[k] = t;
    return t;
  }

  /** The ample set (indices into `acts`) per C0–C4, or undefined to expand everything. */
  private ampleSet(state: S, acts: readonly A[], levelEnd: number): number[] | undefined {
    const por = this.por;
    if (!por || acts.length < 2) return undefined;
    const groups = this.groups;
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
        if (por.visible(a) || this.progress?.isFault(a)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      for (const k of group) {
        this.keyer.key(this.successor(state, acts[k] as A, k));
        const found = this.visited.find();
        if (found !== -1 && found < levelEnd) {
          ok = false;
          break;
        }
      }
      if (ok) return group;
    }
    return undefined;
  }

  /**
   * Expands the state `successors` loaded, on its bytes: as `expandState` without partial-order
   * reduction, but a successor is only read back into a state when it is new (for the properties).
   * On a large table, successors are written and fingerprinted a batch at a time, then the table
   * slots of the whole batch are touched in one tight loop, then they are stored in order: the
   * slots' cache misses (most of the visited set's cost on a large state space) overlap instead of
   * coming one at a time, and the states stored, their indices and the verdicts are the same.
   */
  private expandBytes(successors: ByteSuccessors, count: number, index: number, depth: number, out: FrontierWriter): boolean {
    const keyer = this.keyer as Required<Keyer<S>>;
    if (count > MAX_ACTIONS)
      throw new Error(`${this.model.name}: a state has ${count} enabled actions; the explorer supports at most ${MAX_ACTIONS}`);
    this.startEdges(index, count);
    if (this.store.tableSlots >= this.batchFromSlots) return this.expandBytesInBatches(successors, count, index, depth, out);
    for (let k = 0; k < count; k++) {
      this.countedByNumber(keyer.keySuccessor(successors, k));
      const target = this.storeKeyed(successors, index, k, depth, out);
      if (target === undefined) return false;
      if (this.unsettled && !successors.isFault(k)) this.edgeTo(target);
    }
    this.endEdges(index);
    return this.store.stopReason() === undefined;
  }

  /**
   * `expandBytes` on a large table: the successors are written and fingerprinted a batch at a
   * time, then the table slots of the whole batch are touched in one tight loop, then they are
   * stored in order. A loop of its own: `expandBytes` as one loop with batches of one on a small
   * table was 3–5 % slower on `ci` (five interleaved pairs), so the small table keeps the plain
   * loop and the two share their per-successor lines (`storeKeyed` does most of them).
   */
  private expandBytesInBatches(successors: ByteSuccessors, count: number, index: number, depth: number, out: FrontierWriter): boolean {
    const keyer = this.keyer as Required<Keyer<S>>;
    const batchKinds = this.batchKinds;
    const lanes = keyer.batchLanes;
    for (let from = 0; from < count; from += SUCCESSOR_BATCH) {
      const to = Math.min(count, from + SUCCESSOR_BATCH);
      for (let k = from; k < to; k++) batchKinds[k - from] = keyer.keySuccessorAt(successors, k, k - from);
      let touched = this.touched;
      for (let at = 1; at < 2 * (to - from); at += 2) touched ^= this.store.peek(lanes[at] as number);
      this.touched = touched;
      for (let k = from; k < to; k++) {
        this.countedByNumber(batchKinds[k - from] as number);
        keyer.select(k - from);
        const target = this.storeKeyed(successors, index, k, depth, out);
        if (target === undefined) return false;
        if (this.unsettled && !successors.isFault(k)) this.edgeTo(target);
      }
    }
    this.endEdges(index);
    return this.store.stopReason() === undefined;
  }

  /**
   * Stores the successor last keyed or selected, the loaded state's `k`-th: its index, or undefined
   * when the search stops. A new one is judged on its bytes when the byte successors can judge it
   * (its invariants, and the goals still open: once every goal is reached, or by `reaches`), else
   * read back and judged as a state.
   */
  private storeKeyed(successors: ByteSuccessors, index: number, k: number, depth: number, out: FrontierWriter): number | undefined {
    const r = this.stored(index, k);
    if (r === undefined || r >= 0) return r;
    const target = -r - 1;
    const keyer = this.keyer as Required<Keyer<S>>;
    if ((this.goalsOpen === 0 || this.goalsOnBytes) && this.withinBoundary === undefined && successors.judged(k)) {
      this.count(depth + 1);
      if (this.goalsOpen > 0) this.reachedOnBytes(successors, target, depth + 1);
      if (this.progress && successors.quiescent()) this.store.setFlags(target, FLAG_GOOD);
      keyer.append(out, target);
    } else this.discovered(keyer.readKeyed(), target, depth + 1, out);
    return target;
  }

  /** `discovered`'s goals, judged on the bytes of the successor last judged: state `index` at `depth`. */
  private reachedOnBytes(successors: ByteSuccessors, index: number, depth: number): void {
    const reached = this.found.reached;
    const reaches = successors.reaches as (goal: number) => boolean;
    for (let g = 0; g < reached.length; g++) {
      if (reached[g] === undefined && reaches.call(successors, g)) {
        reached[g] = { index, depth };
        this.goalsOpen--;
      }
    }
  }

  /** Whether state `index` is flagged good (quiescent, or outside the boundary) already. */
  private isGood(index: number): boolean {
    return (this.store.flags(index) & FLAG_GOOD) !== 0;
  }

  /** Starts Progress's record of state `index`, which has `count` successors to expand. */
  private startEdges(index: number, count: number): void {
    this.edgeCount = 0;
    this.unsettled = this.progress !== undefined && !this.isGood(index);
    if (this.unsettled && this.edgeTargets.length < count) this.edgeTargets = new Int32Array(Math.max(count, this.edgeTargets.length * 2));
  }

  /** A fault-free successor `target` of the state being expanded, while it is unsettled: a good one settles it, else it is an edge. */
  private edgeTo(target: number): void {
    if (this.isGood(target)) this.unsettled = false;
    else this.edgeTargets[this.edgeCount++] = target;
  }

  /**
   * Progress's record of the expanded state `index`: its fault-free edges, or only a
   * flag when it is good or one of them leads to a good state (it can settle
   * whatever the others reach, so Progress never reads its edges: fewer bytes
   * per state). A target flagged good by another thread a moment later is
   * just an edge more.
   */
  private endEdges(index: number): void {
    if (this.progress === undefined) return;
    if (this.unsettled) this.store.setEdges(index, this.edgeTargets, this.edgeCount);
    else this.store.setFlags(index, FLAG_SETTLED);
  }

  /** Counts one successor and its action's kind. */
  private counted(kind: string, kinds: Map<string, { n: number }>): void {
    this.found.generated++;
    const counter = kinds.get(kind);
    if (counter === undefined) kinds.set(kind, { n: 1 });
    else counter.n++;
  }

  /** `counted` for a successor written on bytes: its kind by number (`Keyer.kindNames`), counted in an array. */
  private countedByNumber(kind: number): void {
    this.found.generated++;
    if (kind >= this.kindsByNumber.length) {
      const grown = new Float64Array(Math.max(kind + 1, 2 * this.kindsByNumber.length));
      grown.set(this.kindsByNumber);
      this.kindsByNumber = grown;
    }
    (this.kindsByNumber[kind] as number)++;
  }

  /**
   * Stores the successor just keyed, reached from `index` by its `k`-th action: the visited set's
   * answer (`Visited.insert`), or undefined when the search stops. At the state budget a state
   * already stored is fine; a new one stops the search.
   */
  private stored(index: number, k: number): number | undefined {
    if (this.budgetLeft()) return this.visited.insert(index, k);
    const r = this.visited.find();
    if (r !== -1) return r;
    this.store.stop('max-states');
    return undefined;
  }

  /** Expands one state; false when the exploration must stop. */
  private expandState(state: S, index: number, depth: number, levelEnd: number, out: FrontierWriter): boolean {
    const model = this.model;
    const acts = model.actions(state);
    if (acts.length > MAX_ACTIONS)
      throw new Error(`${model.name}: a state has ${acts.length} enabled actions; the explorer supports at most ${MAX_ACTIONS}`);
    const por = this.por;
    if (por) {
      if (this.succState.length < acts.length) this.succState = new Array<S | undefined>(acts.length);
      else this.succState.fill(undefined, 0, acts.length);
    }
    const ample = por ? this.ampleSet(state, acts, levelEnd) : undefined;
    const count = ample ? ample.length : acts.length;
    this.startEdges(index, count);
    const kinds = this.kinds;
    for (let n = 0; n < count; n++) {
      const k = ample ? (ample[n] as number) : n;
      const action = acts[k] as A;
      const succ = this.keyer.key(por ? this.successor(state, action, k) : model.next(state, action));
      this.counted(model.actionKind(action), kinds);
      const r = this.stored(index, k);
      if (r === undefined) return false;
      let target = r;
      if (r < 0) {
        target = -r - 1;
        this.discovered(succ, target, depth + 1, out);
      }
      if (this.unsettled && !this.progress?.isFault(action)) this.edgeTo(target);
    }
    this.endEdges(index);
    return this.store.stopReason() === undefined;
  }
}

// ---------------------------------------------------------------------------

/** A finished (or stopped) exploration: the store, what was found, and how it ended. */
export interface Exploration {
  readonly visited: Visited<unknown>;
  readonly tally: Tally;
  readonly exhausted: boolean;
  readonly stoppedBy: StopReason | undefined;
  readonly durationMs: number;
}

/** Told between segments how far the loop on this thread has got. */
export type LevelObserver = (sample: {
  readonly depth: number;
  readonly queued: number;
  readonly generated: number;
  readonly distinct: number;
}) => void;

let explorationCounter = 0;

/** How long the loop on this thread works before it yields (to its caller, and so to the event loop). */
const TURN_MS = 20;

/**
 * Explores every level on this thread, yielding between segments (so an
 * asynchronous caller can handle signals and print progress; `check` runs it
 * to the end without yielding to anyone).
 */
export function* exploreHere<S, A>(
  model: Model<S, A>,
  settings: EngineSettings,
  limits: RunLimits,
  observe?: LevelObserver,
): Generator<void, Exploration, void> {
  const started = performance.now();
  const store = new StateStore(createStoreBuffers(model.progress !== undefined), false);
  const exact = settings.visited === 'exact' ? new ExactKeys() : undefined;
  const expander = new Expander(model, settings, store, exact, limits);
  // States kept as objects (a model without a codec) cannot be spilled.
  const spill = expander.portable ? limits.spill : { ...limits.spill, directory: undefined };
  const name = `x${process.pid}-${explorationCounter++}`;
  let writer = new FrontierWriter(false, spill, `${name}-level-0.seg`);
  expander.discoverInitial(writer);
  let segments = writer.finish();
  let depth = 0;
  while (segments.length > 0 && store.stopReason() === undefined) {
    const levelEnd = store.claimed;
    writer = new FrontierWriter(false, spill, `${name}-level-${depth + 1}.seg`);
    store.resetWork(1);
    let left = segments.reduce((n, s) => n + s.states, 0);
    for (let unit = store.claimWork(); unit < segments.length; unit = store.claimWork()) {
      const segment = segments[unit] as FrontierSegment;
      // In turns of TURN_MS, yielding between them: a segment can take seconds.
      let ok = expander.expandSegment(segment, depth, levelEnd, writer, { turnMs: TURN_MS, resume: false });
      while (ok === 'turn') {
        yield;
        ok = expander.expandSegment(segment, depth, levelEnd, writer, { turnMs: TURN_MS, resume: true });
      }
      left -= segment.states;
      observe?.({ depth, queued: left + writer.written, generated: expander.generated, distinct: store.size });
      yield;
      if (!ok) break;
    }
    store.leave();
    const next = writer.finish();
    if (store.stopReason() !== undefined) {
      discardSegments(limits.spill.account, segments);
      discardSegments(limits.spill.account, next);
      break;
    }
    removeSegmentFiles(segments);
    segments = next;
    depth++;
  }
  const stoppedBy = store.stopReason();
  return {
    visited: expander.visited as Visited<unknown>,
    tally: expander.tally,
    exhausted: stoppedBy === undefined,
    stoppedBy,
    durationMs: performance.now() - started,
  };
}
