// The explorer's vocabulary: what a model gives the checker, what the checker
// is told to do, and the plain-object report it hands back.
import type { OverallVerdict } from '../../spec/index.ts';
import type { ByteReader, ByteWriter } from './bytes.ts';

/** A state predicate that must hold in every reachable state. */
export interface Invariant<S> {
  /** Property name as reports print it (e.g. `JoinCorrect`). */
  readonly name: string;
  /** `undefined` when the state satisfies it; otherwise why it does not, for people. */
  check(state: S): string | undefined;
}

/** A reachability goal: some reachable state must satisfy it, so a pass is never vacuous. */
export interface Goal<S> {
  /** Goal name as reports print it. */
  readonly name: string;
  /** True when the state satisfies the goal. */
  reached(state: S): boolean;
}

/**
 * Progress: from every reachable state, a `quiescent` state is reachable using
 * only actions that are not faults (once faults stop, the system settles).
 */
export interface ProgressProperty<S, A> {
  /** Property name as reports print it. */
  readonly name: string;
  /** True when the state is settled: what every state must be able to reach. */
  quiescent(state: S): boolean;
  /** True when the action is a fault, which the path to a quiescent state may not use. */
  isFault(action: A): boolean;
}

/**
 * The partial-order reduction hook. The model partitions its actions into
 * components and promises, for any two actions `a`, `b` of DIFFERENT
 * components and every reachable state `s` (the independence contract):
 *
 *   1. taking `a` neither enables nor disables `b` (and vice versa), and
 *   2. where both are enabled, `next(next(s, a), b)` and `next(next(s, b), a)`
 *      have the same encoding.
 *
 * It also says which actions are `visible`: an action is visible if it can
 * change the truth of any invariant, goal or `quiescent` predicate the model
 * declares. (A bound on the log length or a shared counter that one
 * component's action moves and another's enabling reads breaks rule 1: put
 * such actions in one component.) With symmetry on, the symmetry must map
 * components to components and preserve visibility and faultness.
 */
export interface PartialOrderHook<A> {
  /** The component an action belongs to; actions of different components are independent. */
  component(action: A): string;
  /** May this action change the value of an invariant, goal or quiescence predicate? */
  visible(action: A): boolean;
}

/**
 * A finite-branching transition system for the explorer (in the spirit of
 * Stateright's `Model`). Every function must be pure and deterministic.
 */
export interface Model<S, A> {
  /** Printed in reports and written into counterexample files. */
  readonly name: string;
  /** The initial states; a counterexample names its initial state by index here. */
  initialStates(): readonly S[];
  /** The actions enabled in `state`, in a deterministic order. */
  actions(state: S): readonly A[];
  /** The successor of `state` under an enabled `action`. Must not mutate `state`. */
  next(state: S, action: A): S;
  /** A canonical string: two states are equal iff their encodings are equal. */
  encode(state: S): string;
  /**
   * Optional fast path for the fingerprint visited set: write a 64-bit
   * fingerprint of the state's canonical content into `out[0]` and `out[1]`
   * directly (e.g. with `FieldHasher`), instead of hashing `encode`'s string.
   * It must be a function of the encoding (equal encodings, equal
   * fingerprints) and should mix as well as a 64-bit hash, since the collision
   * estimate n²/2^65 assumes it. The exact visited set ignores it.
   */
  fingerprint?(state: S, out: Int32Array): void;
  /** Coverage label of an action, e.g. `crash:src@persisted`; counted per transition. */
  actionKind(action: A): string;
  /** One line for people, e.g. `insert L a [1,2]@1 on k1`. */
  describeAction(action: A): string;
  /** Kinds that must all be taken within the bound; the report lists the ones never taken. */
  readonly expectedActionKinds?: readonly string[];
  /** The invariants checked in every reachable state. */
  readonly invariants: readonly Invariant<S>[];
  /** The reachability goals, each of which some reachable state must satisfy. */
  readonly goals?: readonly Goal<S>[];
  /** The Progress property, when the model has one. */
  readonly progress?: ProgressProperty<S, A>;
  /**
   * Symmetry reduction: the canonical member of `state`'s symmetry class.
   * Must satisfy: `representative(s)` is equivalent to `s` under a symmetry of
   * the model (a bijection on states that maps actions to actions, commutes
   * with `next`, and preserves every invariant, goal, `quiescent`,
   * `withinBoundary`, action kind and faultness), and equivalent states have
   * equal representatives. Invariants are checked on representatives; a
   * counterexample is re-derived as a concrete path from the initial state.
   */
  representative?(state: S): S;
  /**
   * A compact encoding of states (see `StateCodec`): with it the explorer
   * keeps its frontier as bytes, keys its visited set by the codec's bytes,
   * and can explore on several threads. Without it, states stay objects in
   * one thread.
   */
  readonly codec?: StateCodec<S>;
  /** States outside the boundary are counted and checked but not expanded. */
  withinBoundary?(state: S): boolean;
  /** Partial-order reduction (see `PartialOrderHook` for the contract). */
  readonly partialOrder?: PartialOrderHook<A>;
  /**
   * Simulation (random walks): the weight of `action`'s kind in `state`
   * (default 1). A walk gives each kind of action enabled its weight,
   * shared among the enabled actions of that kind, and picks in proportion.
   * A model weights what finds bugs: faults at the moments they matter,
   * and rarely enough that its fault budgets last the walk.
   */
  weight?(state: S, action: A): number;
  /**
   * Minimizing a simulation's counterexample deletes steps and replays the
   * rest: the enabled action that `wanted` (a step of the longer path, in
   * JSON form) stands for in `state` when it is not itself enabled there
   * (the cluster's `record` appends the workload's next record, whichever
   * that now is). Default: none, so the step must be enabled as it is.
   */
  substitute?(state: S, wanted: unknown): A | undefined;
  /** JSON form of an action, for counterexample files. */
  actionToJson?(action: A): unknown;
  /** Inverse of `actionToJson`; throws on a value it does not recognise. */
  actionFromJson?(json: unknown): A;
  /** JSON form of a state, for replay output (a diff per step). */
  stateToJson?(state: S): unknown;
  /**
   * How counterexample views draw this model's steps (the `.md` with its
   * Mermaid diagram, the `.html` viewer, the ITF file's notes). Without it a
   * view draws one lane, each step's action, and the fields of the state
   * (`stateToJson`) the step changed, before and after.
   */
  readonly rendering?: ModelRendering<S, A>;
}

/** A model's own drawing of its counterexamples (`Model.rendering`): lanes, and what each step shows on them. */
export interface ModelRendering<S, A> {
  /** The lanes of the sequence diagram, left to right: processes, nodes, a store… */
  readonly lanes: readonly string[];
  /** What step `action` from `before` to `after` shows: rows on the lanes, and lines that say what happened (default: the rows' texts). */
  step(before: S, action: A, after: S): RenderedStep;
  /** The state as the viewer shows it, JSON (default `stateToJson`, else the state itself). */
  observe?(state: S): unknown;
}

/** One step as a model draws it (`ModelRendering.step`). */
export interface RenderedStep {
  /** The rows of the sequence diagram, in order. */
  readonly rows: readonly RenderedRow[];
  /** What happened, one line each (default: the rows' texts). */
  readonly events?: readonly string[];
}

/** One row of a step's diagram: a note on a lane, or a message from one lane to another. */
export interface RenderedRow {
  /** The lane of a note, or the sender of a message (one of `ModelRendering.lanes`). */
  readonly lane: string;
  /** For a message, the receiving lane. */
  readonly to?: string;
  /** What the row says. */
  readonly text: string;
  /** Drawn refused (crossed out, like a write a fence refuses) instead of as a plain note or message. */
  readonly refused?: boolean;
}

/**
 * A state as bytes and back, kept next to a model. `write` writes, into
 * `out`, first the bytes that IDENTIFY the state, then calls `out.endKey()`,
 * then any bytes needed to rebuild the state that identify nothing:
 *
 * - two states have equal identifying bytes iff the model's `encode` is
 *   equal (with `symmetric`, iff they lie in one symmetry class); fields
 *   that no transition, guard, property, goal or action label reads may be
 *   left out of the identity (the rest of the bytes carry them), which the
 *   model must argue is sound: states that differ only there are then one
 *   state for the explorer, whose first member found stands for them all;
 * - with `symmetric` the bytes are those of a canonical member of the
 *   state's class (under the same contract as `representative`);
 * - `read` of what `write(s, out, false)` wrote is a state equal to `s`; of
 *   what `write(s, out, true)` wrote, a member of `s`'s class.
 *
 * The explorer hashes the identifying bytes into its 64-bit fingerprints (or
 * keeps them, with the exact visited set), and keeps all the bytes in its
 * frontier.
 */
export interface StateCodec<S> {
  /** Whether `write(s, out, true)` reduces by a symmetry of the model. */
  readonly symmetric: boolean;
  /** Writes `state` (a canonical member of its class, with `symmetric`) into `out`, calling `out.endKey()` after the identifying bytes. */
  write(state: S, out: ByteWriter, symmetric: boolean): void;
  /** The state whose bytes `input` reads. */
  read(input: ByteReader): S;
  /**
   * Optional: the successors of a state computed on its bytes, without building states. It must
   * give what the model gives: for the state `s` its bytes encode, the same actions in the same
   * order as `actions(s)`, and for each action `a` exactly the bytes `write(next(s, a), out, symmetric)`.
   */
  readonly successors?: ByteSuccessors | undefined;
}

/** Successors on a codec's bytes (`StateCodec.successors`). */
export interface ByteSuccessors {
  /**
   * Reads the state whose bytes `input` holds (without moving it); returns the number of its enabled
   * actions, or -1 when this state is left to the object path (`read`, `actions`, `next`).
   */
  load(input: ByteReader): number;
  /**
   * The model's own functions these successors stand for. The engine uses them only for a model
   * whose `actions`, `next`, `invariants` and `progress` are these very ones: a model made from
   * another by replacing one of them (a variant spreading a preset's model and changing `next`)
   * keeps the codec but is searched through its own functions.
   */
  readonly standsFor: {
    readonly actions: unknown;
    readonly next: unknown;
    readonly invariants: unknown;
    readonly progress: unknown;
    /** The goals `reaches` judges (the model's own `goals` array); without it, none are judged on bytes. */
    readonly goals?: unknown;
  };
  /** Writes the successor of the loaded state by its `k`-th action into `out` (calling `endKey`); returns the action's kind. */
  write(k: number, out: ByteWriter, symmetric: boolean): string;
  /**
   * Every kind `write` returns, each once (optional, with `writeNumbered`): the engine then counts
   * kinds by their number in this list instead of looking each successor's kind up by name.
   */
  readonly kindNames?: readonly string[];
  /** `write`, returning the number of the action's kind in `kindNames` instead of the kind. */
  writeNumbered?(k: number, out: ByteWriter, symmetric: boolean): number;
  /** Whether the loaded state's `k`-th action is a fault (`Model.progress.isFault`). */
  isFault(k: number): boolean;
  /**
   * Whether every invariant of the model holds on the loaded state's `k`-th successor (then
   * `quiescent` answers for it); false when it cannot tell, and the state is read back and judged.
   * The engine writes a batch of successors before it stores them, so `k` need not be the
   * successor last written.
   */
  judged(k: number): boolean;
  /** `Model.progress.quiescent` of the successor last judged, once `judged` said true. */
  quiescent(): boolean;
  /**
   * Whether the successor last judged (once `judged` said true) reaches the model's `goal`-th goal
   * (`Model.goals`). Without it, every new state is read back and judged as a state while a goal is
   * still unreached.
   */
  reaches?(goal: number): boolean;
}

/** How the visited set stores states. */
export type VisitedMode = 'exact' | 'fingerprint';

/** A live-progress sample (for a status line). */
export interface ProgressSample {
  /** Successor states computed so far (transitions). */
  readonly generated: number;
  /** Distinct states stored so far. */
  readonly distinct: number;
  /** Depth of the states being expanded. */
  readonly depth: number;
  /** States discovered but not yet expanded. */
  readonly queue: number;
  /** Distinct states per second since the start. */
  readonly statesPerSecond: number;
  /** Milliseconds since the start. */
  readonly elapsedMs: number;
}

/** Options of `check`: the visited-set mode, reductions, budgets, progress and spilling. */
export interface CheckOptions {
  /** `fingerprint` (default): 64-bit fingerprints in typed arrays; `exact`: the encodings themselves. */
  readonly visited?: VisitedMode;
  /** Reduce by the model's symmetry (default: on when the model has one). */
  readonly symmetry?: boolean;
  /** Use `model.partialOrder` (default: on when the model has one). */
  readonly partialOrder?: boolean;
  /** Stop after this many distinct states (the report then says the bound was not exhausted). */
  readonly maxStates?: number;
  /** Stop after this many seconds (likewise). */
  readonly maxSeconds?: number;
  /** Stop at the first invariant violation instead of exploring on for the other properties. */
  readonly stopAtFirstViolation?: boolean;
  /** Called about every `progressIntervalMs` (default 500) while exploring. */
  readonly onProgress?: (sample: ProgressSample) => void;
  /** Milliseconds between two `onProgress` calls (default 500). */
  readonly progressIntervalMs?: number;
  /**
   * Bytes of frontier kept in memory; past it, frontier segments are spilled
   * to files (default: never). Needs a model with a codec.
   */
  readonly frontierMemory?: number;
  /** Where spilled segments go (default: the system's temporary directory). */
  readonly spillDirectory?: string;
}

/** A property's verdict; `unknown` is never a pass. */
export type Verdict = 'holds' | 'violated' | 'unknown';

/** A concrete path: the initial state (by index in `initialStates()`), then the actions. */
export interface Path<S, A> {
  /** Index of the initial state in `initialStates()`. */
  readonly initialIndex: number;
  /** The actions taken, in order. */
  readonly actions: readonly A[];
  /** The concrete states along the path: `states[0]` initial, `states[i+1]` after `actions[i]`. */
  readonly states: readonly S[];
}

/** One property's result in a check report. */
export interface PropertyResult<S, A> {
  /** Property name. */
  readonly name: string;
  /** What kind of property it is. */
  readonly kind: 'invariant' | 'goal' | 'progress' | 'coverage';
  /** Holds, violated, or unknown. */
  readonly verdict: Verdict;
  /** Why it failed, or why the verdict is unknown. */
  readonly explanation?: string;
  /**
   * For a violated invariant or progress: a shortest path to a violating state
   * (shortest among the explored graph, which with partial-order reduction on
   * is the reduced graph). For a reached goal: a shortest witness.
   */
  readonly path?: Path<S, A>;
  /**
   * For violated progress: from the end of `path`, the actions (no faults) that
   * lead into the trap: to a state with no non-fault action, or around a cycle.
   */
  readonly trap?: {
    readonly kind: 'deadlock' | 'cycle';
    readonly actions: readonly A[];
    readonly states: readonly S[];
    readonly reachable: number;
  };
}

/** What `check` reports: the model, the options in effect, the figures of the exploration and each property's result. */
export interface CheckReport<S, A> {
  /** Name of the model checked. */
  readonly model: string;
  /** The options in effect. */
  readonly options: {
    readonly visited: VisitedMode;
    readonly symmetry: boolean;
    readonly partialOrder: boolean;
    /** Why a requested reduction is not in effect, if so. */
    readonly notes: readonly string[];
  };
  /** Successor states computed (transitions explored), initial states included. */
  readonly generated: number;
  /** Distinct states stored (representatives, with symmetry on). */
  readonly distinct: number;
  /** Depth of the deepest state discovered. */
  readonly maxDepth: number;
  /** Wall time of the exploration, in milliseconds. */
  readonly durationMs: number;
  /** Distinct states per second. */
  readonly statesPerSecond: number;
  /** Bytes of the visited set (and parent links, action indices, flags) per distinct state, as allocated. */
  readonly bytesPerState: number;
  /** Bytes of the stored edge structure for Progress, per distinct state (0 when not needed). */
  readonly edgeBytesPerState: number;
  /** With fingerprints: estimate that two distinct states collided (n²/2^65); 0 with exact. */
  readonly collisionProbability: number;
  /** States counted but not expanded because they lie outside the model's boundary. */
  readonly outsideBoundary: number;
  /** True iff every state within the bound was expanded. Never a pass otherwise. */
  readonly exhausted: boolean;
  /** Why exploration stopped early, when it did. */
  readonly stoppedBy?: 'max-states' | 'max-seconds' | 'violation' | 'interrupted';
  /** Threads that expanded states (1: this one). */
  readonly workers: number;
  /** The breadth-first frontier: its peak in memory, and what was spilled to disk (over the whole run). */
  readonly frontier: {
    readonly peakMemoryBytes: number;
    readonly spilledSegments: number;
    readonly spilledBytes: number;
  };
  /** Each invariant's result. */
  readonly invariants: readonly PropertyResult<S, A>[];
  /** Each goal's result. */
  readonly goals: readonly PropertyResult<S, A>[];
  /** The Progress property's result, when the model has one. */
  readonly progress?: PropertyResult<S, A>;
  /** Expected action kinds never taken. */
  readonly unreachedActionKinds: readonly string[];
  /** Transitions taken per action kind. */
  readonly actionKindCounts: Readonly<Record<string, number>>;
  /** True iff exhausted and every invariant, goal, progress and coverage check holds. */
  readonly passed: boolean;
  /**
   * The verdict (SPEC §8), the word `check` prints and reports: `fail` for a
   * violated property (or, exhausted, an expected action kind never taken);
   * `pass` when `passed`; else `unknown` (a budget or an interrupt came first).
   */
  readonly verdict: OverallVerdict;
}
