// The shape every CI report is drawn from: suites of test cases, each passed,
// failed, unknown (the harness could not judge it: never a pass) or skipped.
// Each command turns its JSON report into these (reportCases.ts); JUnit,
// TAP, GitHub annotations and the step summary render them.

export type CaseStatus = 'pass' | 'fail' | 'unknown' | 'skipped';

export interface TestCase {
  readonly name: string;
  /** What the case belongs to (`conform.examples.cluster`): JUnit's classname. */
  readonly classname: string;
  readonly status: CaseStatus;
  readonly timeMs?: number;
  /** One line: why it failed, is unknown or was skipped. */
  readonly message?: string;
  /** The rest: the divergence, the counterexample file, the replay command. */
  readonly details?: string;
  /** A file to point at (a counterexample): relative to the working directory. */
  readonly file?: string;
}

export interface TestSuite {
  readonly name: string;
  readonly cases: readonly TestCase[];
  /** Facts of the run (seed, sut, shard), shown as JUnit properties. */
  readonly properties?: Readonly<Record<string, string>>;
}

/** What one command's report amounts to, for CI: a title, the verdict, and its suites. */
export interface CiResult {
  readonly title: string;
  readonly verdict: 'pass' | 'fail' | 'unknown';
  readonly suites: readonly TestSuite[];
}

export interface Counts {
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly skipped: number;
  readonly timeMs: number;
}

export function countCases(cases: readonly TestCase[]): Counts {
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  let timeMs = 0;
  for (const c of cases) {
    if (c.status === 'fail') failures++;
    else if (c.status === 'unknown') errors++;
    else if (c.status === 'skipped') skipped++;
    timeMs += c.timeMs ?? 0;
  }
  return { tests: cases.length, failures, errors, skipped, timeMs };
}
