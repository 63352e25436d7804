// Where CLI commands write. Library code gets these streams passed in and
// never touches process.stdout, process.stderr or process.exit.

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (for live progress lines). */
  readonly interactive: boolean;
  /**
   * Aborted when the user interrupts (SIGINT, SIGTERM; cli/interrupts.ts),
   * its reason an Error naming the signal. A long command stops, reports what
   * it has with verdict unknown, removes what it started, and returns.
   */
  readonly signal?: AbortSignal;
}
