// A failure of the conformance job: a divergence found, explained, with the
// trace that shows it and where it came from. What a counterexample file
// is written from (views/counterexampleFiles.ts).
import type { AnyTrace, Level } from '../../spec/index.ts';
import type { StderrExcerpt } from '../sut/sut.ts';
import type { Divergence } from './divergence.ts';

/** A divergence found, with the trace that shows it (expectations filled in by the model). */
export interface Failure {
  /** The level it was found at. */
  readonly level: Level;
  /** `example` (a file), `exhaustive` (a scenario's trace, minimized) or `random` (a shrunk random trace). */
  readonly origin: 'example' | 'exhaustive' | 'random';
  /** The example's path. */
  readonly path?: string;
  /** The exhaustive scenario. */
  readonly scenario?: string;
  /** fast-check's seed and path of the shrunk counterexample (random traces). */
  readonly seed?: number;
  /** fast-check's path of the shrunk counterexample. */
  readonly fcPath?: string;
  /** The trace that shows it, expectations filled in by the model. */
  readonly trace: AnyTrace;
  /** The divergence, at a step of `trace`. */
  readonly divergence: Divergence;
  /** Milliseconds from the start of the job until the divergence was first seen (before shrinking or minimizing). */
  readonly foundAfterMs?: number;
  /** An example's own step where it diverged (`divergence.step` is the minimized trace's). */
  readonly exampleStep?: number;
  /**
   * What the system wrote to stderr while the counterexample trace ran (a
   * process; bounded). Read it after the system is closed: stderr may trail
   * the replies.
   */
  readonly stderr?: () => StderrExcerpt;
}
