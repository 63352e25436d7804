// A part of the conformance job (SPEC §7): one kind of trace the job runs
// against the system under test. The example files, the regression traces,
// the bounded-exhaustive scenarios and the random traces are each one part;
// runConform (conform.ts) negotiates the levels, hands every part the same
// job (what is checked, the shard, the budget, where to report) and runs
// them in order. A part knows nothing of the others: adding one (the next
// scenario family, an audit-style part) is a new file and one line in
// runConform.
import type { Level } from '../../spec/index.ts';
import type { SystemUnderTest } from '../sut/sut.ts';
import type { Failure } from '../report/failure.ts';
import type { ConformReport, ExampleResult, ExhaustiveResult, RandomResult, TraceRun } from './conformTypes.ts';
import type { Shard } from './shard.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** One part of the job: what it runs, at the levels checked, and what it reports. */
export interface ConformPart {
  /** What it runs, in a word (`examples`, `regressions`, `exhaustive`, `random`). */
  readonly name: string;
  /**
   * Runs the part: at each level of `job.levels` it has traces for, its
   * share of them (`job.shard`), within `job.timeBudgetMs`, writing each
   * result into `job.report` as soon as it is known, so that a job stopped
   * half way (interrupted, or the system gone) still reports what was
   * found. It returns early once `job.stopped()`. It rejects with
   * SutUnavailable when the system cannot be judged, and with anything else
   * only on a harness bug.
   */
  run(job: PartJob): Promise<void>;
}

/** What runConform hands every part. */
export interface PartJob {
  readonly system: SystemUnderTest;
  /** The levels checked, in LEVELS order: those asked for, all of which the system supports. */
  readonly levels: readonly Level[];
  readonly seed: number;
  /** Run only this shard's share of every list of work (shard.ts); absent: all of it. */
  readonly shard?: Shard;
  /** A part that could draw traces without end (random traces) stops after this long at each level; what it did not reach makes it `unknown`. */
  readonly timeBudgetMs?: number;
  /** Traces in flight at once where a part pipelines them (default 32). */
  readonly window?: number;
  readonly signal?: AbortSignalLike;
  readonly report: PartReport;
  /** Progress lines; a live counter line (overwritten); every trace run (not those of shrinking or minimizing). */
  progress(line: string): void;
  tick(line: string): void;
  onTrace(run: TraceRun): void;
  /** Milliseconds since the job started. */
  since(): number;
  /** True once the job is to stop: at the first failure, when the run asks for that (`stopAtFirstFailure`). */
  stopped(): boolean;
  /** Says what the part is about to do (the `during` of an `unknown` verdict); throws SutUnavailable if the job was interrupted. */
  enter(what: string): void;
}

/** Where the parts write what they find; runConform assembles the report from it (conformTypes.ts ConformReport). */
export interface PartReport {
  /** Trace files run (examples and regression traces), and those skipped with why. */
  readonly examples: ExampleResult[];
  readonly skipped: { path: string; why: string }[];
  readonly exhaustive: ExhaustiveResult[];
  readonly random: RandomResult[];
  readonly failures: Failure[];
  /** Set by a part that claims coverage (the exhaustive scenarios), over the traces that ran. */
  coverage?: NonNullable<ConformReport['coverage']>;
}
