// Where CLI commands write. Library code gets these streams passed in and
// never touches process.stdout, process.stderr or process.exit.

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (for live progress lines). */
  readonly interactive: boolean;
}
