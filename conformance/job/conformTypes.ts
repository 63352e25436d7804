// What the conformance job (conform.ts) takes and what it reports: its
// options, the traces it runs, and the report of each part (the trace
// files, the bounded-exhaustive scenarios, random traces).
import type { AnyTrace, ClusterTrace, ImplementationInfo, Level, OperatorTrace, OverallVerdict } from '../../spec/index.ts';
import type { AnyCover, AnyScenario } from '../generate/exhaustive.ts';
import type { InProcessSut, SystemUnderTest } from '../sut/sut.ts';
import type { Failure } from '../report/failure.ts';
import type { CauseGroup } from '../report/causes.ts';
import type { Shard } from './shard.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** A trace file given to the job (examples, or a user's). */
export interface TraceSource {
  /** Where the trace came from (its file), as reports name it. */
  readonly path: string;
  /** The trace. */
  readonly trace: AnyTrace;
}

/** A trace as the job takes it: a TraceSource, or a trace as loaded (`loadAnyTrace`, `loadOperatorTrace`, `loadClusterTrace`), named by its name. */
export type TraceInput = TraceSource | AnyTrace | OperatorTrace | ClusterTrace;

/** The system as the job takes it: a SystemUnderTest (`spawnSystem`, `inProcessSystem`), or in-process factories (`implSut`, `modelSut`) it runs in this process. */
export type ConformSystem = SystemUnderTest | InProcessSut;

/** A verdict of the job or a part of it; `unknown` is never a pass. */
export type ConformVerdict = OverallVerdict;

/** The system under test could not be judged. */
export interface Unknown {
  /** Why the system could not be judged. */
  readonly reason: string;
  /** Its last stderr lines. */
  readonly stderrTail: readonly string[];
  /** What the job was doing. */
  readonly during: string;
}

/** One example (or regression) trace file as run. */
export interface ExampleResult {
  /** The level it ran at. */
  readonly level: Level;
  /** The trace's file. */
  readonly path: string;
  /** The trace's name. */
  readonly name: string;
  /** Its number of steps. */
  readonly steps: number;
  /** `unknown`: the system could not be judged on this file (the job stops there, and says why in `unknown`). */
  readonly verdict: OverallVerdict;
}

/** One bounded-exhaustive scenario as run. */
export interface ExhaustiveResult {
  /** The scenario's name. */
  readonly scenario: string;
  /** `operator`: operator traces (operatorExhaustive.ts); `cluster`: cluster traces, at level cluster or faults (exhaustive.ts). */
  readonly kind: 'operator' | 'cluster';
  /** Distinct states and transitions of its bounded graph: every transition is taken by some trace. */
  readonly states: number;
  /** Transitions of its bounded graph. */
  readonly transitions: number;
  /** Interleavings: the covering traces, and their steps (probes included). */
  readonly traces: number;
  /** Steps of the covering traces in all, probes included. */
  readonly steps: number;
  /** Probes the traces carry in all: actions the model refuses and records it rejects, sent where they must change nothing (§7, J1). */
  readonly probes: number;
  /** Traces run (up to the first divergence), and traces skipped because they need a level not checked. */
  readonly run: number;
  /** Traces skipped because they need a level not checked. */
  readonly skipped: number;
  /** Probes sent: those of the traces run. */
  readonly probesSent: number;
  /** Traces per level run. */
  readonly levels: Partial<Record<Level, number>>;
  /**
   * `skipped`: no trace of the scenario runs at the levels checked (never a
   * pass); `not run`: an earlier part failed and the job stopped.
   */
  readonly verdict: ConformVerdict | 'not run' | 'skipped';
  /** Wall time of the scenario, in milliseconds. */
  readonly ms: number;
}

/** The random traces of one level as run. */
export interface RandomResult {
  /** The level. */
  readonly level: Level;
  /** The seed they were generated from. */
  readonly seed: number;
  /** Runs asked for (this shard's share). */
  readonly requested: number;
  /** Runs before the first failure, or all of them. */
  readonly runs: number;
  /** Shrinking steps taken after a failure. */
  readonly shrinks: number;
  /** Probes sent by the traces run (shrinking excluded): actions the model refuses (cluster, faults) or invalid records (operator). */
  readonly probes: number;
  /** Pass, fail, or unknown. */
  readonly verdict: ConformVerdict;
  /** Why it is `unknown` when the budget ran out. */
  readonly note?: string;
}

/** What `runConform` reports: the verdict, the system, and the result of every part. */
export interface ConformReport {
  /** Pass only if every part passed; unknown when the system could not be judged or a budget ran out. */
  readonly verdict: ConformVerdict;
  /** The system under test, as messages name it. */
  readonly sut: string;
  /** Its name and version, from the handshake. */
  readonly implementation?: ImplementationInfo;
  /** Levels the system supports (from the handshake). */
  readonly supported: readonly Level[];
  /** Levels checked. */
  readonly levels: readonly Level[];
  /** The seed of the random part. */
  readonly seed: number;
  /** Each example and regression trace as run. */
  readonly examples: readonly ExampleResult[];
  /** Each bounded-exhaustive scenario as run. */
  readonly exhaustive: readonly ExhaustiveResult[];
  /**
   * With exhaustive scenarios: the coverage labels (crash points among them)
   * they must take together at the levels checked, those the traces that
   * ran took, and those they missed. Only traces that ran count.
   */
  readonly coverage?: { readonly required: readonly string[]; readonly missing: readonly string[]; readonly taken: readonly string[] };
  /** The random traces of each level as run. */
  readonly random: readonly RandomResult[];
  /** Every divergence found. */
  readonly failures: readonly Failure[];
  /** The failures grouped by cause (report/causes.ts), each group with the one to attach to a bug report. */
  readonly causes: readonly CauseGroup[];
  /** Why the system could not be judged, when it could not. */
  readonly unknown?: Unknown;
  /** Example traces not run, and why. */
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
  /** The shard this run was (shard.ts); absent: the whole job. */
  readonly shard?: Shard;
  /** Wall time of the job, in milliseconds. */
  readonly ms: number;
}

/** Options of `runConform`: the system, the levels, the parts to run and their budgets. */
export interface ConformOptions {
  /** The system under test; in-process factories (`implSut`) are run in this process. */
  readonly system: ConformSystem;
  /** Levels to check; default every level the system supports. */
  readonly levels?: readonly Level[];
  /** Seed of the random traces; the same seed runs the same traces. */
  readonly seed: number;
  /** Random traces per level. */
  readonly runs: number;
  /** fast-check path to replay one random counterexample (with its seed). */
  readonly path?: string;
  /** Example traces to run first (`builtInTraces()` has the spec's); default none. */
  readonly examples?: readonly TraceInput[];
  /** Regression traces (counterexamples kept, such as the mutant catalogue's): run after the examples, reported with them. */
  readonly regressions?: readonly TraceInput[];
  /**
   * Bounded-exhaustive scenarios to run after the examples: covers built
   * already (exhaustive.ts `coverAnyScenario`), or scenarios to cover when
   * the job gets to them, only if they can run at a level checked.
   */
  readonly exhaustive?: readonly ExhaustivePart[];
  /** Stop the whole job at the first divergence (what `streamjoin mutants` wants); default: each part stops at its own first. */
  readonly stopAtFirstFailure?: boolean;
  /** Traces in flight at once in the exhaustive part (default 32). */
  readonly window?: number;
  /** Stop random runs after this long; runs not reached make the verdict `unknown`. */
  readonly timeBudgetMs?: number;
  /** Run only this shard's share of every part (shard.ts): the examples, each scenario's interleavings, each level's random traces. */
  readonly shard?: Shard;
  /** Called with every trace run (not the shrinking or minimizing ones): what a shard ran, for tests and tools. */
  readonly onTrace?: (run: TraceRun) => void;
  /** Progress lines (for stderr). */
  readonly progress?: (line: string) => void;
  /** `true` for a live counter: called with a line to overwrite (for an interactive stderr). */
  readonly tick?: (line: string) => void;
  /**
   * Aborting it stops the job between traces (a process system at once):
   * the report so far, with verdict unknown unless a divergence was found.
   */
  readonly signal?: AbortSignalLike;
}

/** An exhaustive scenario for the job: its cover, or the scenario and how to cover it (built only if it can run at a level checked). */
export type ExhaustivePart = AnyCover | { readonly scenario: AnyScenario; readonly build: () => AnyCover | Promise<AnyCover> };

/** One trace the job runs: which part, at which level. */
export interface TraceRun {
  /** The part of the job it belongs to. */
  readonly part: 'example' | 'exhaustive' | 'random';
  /** The level it runs at. */
  readonly level: Level;
  /** The trace. */
  readonly trace: AnyTrace;
}
