// Where CLI commands write. Library code gets these streams passed in and
// never touches process.stdout, process.stderr or process.exit.

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (for live progress lines). */
  readonly interactive: boolean;
  /**
   * How the user ran streamjoin, as an argv prefix (`['npx', 'streamjoin']`,
   * `['node', 'bin/streamjoin.js']`): printed commands (replay a
   * counterexample) start with it. Default `npx streamjoin`.
   */
  readonly invocation?: readonly string[];
  /** The environment (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, STREAMJOIN_SEED); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

export const DEFAULT_INVOCATION: readonly string[] = ['npx', 'streamjoin'];

export function invocationOf(out: Output): readonly string[] {
  return out.invocation ?? DEFAULT_INVOCATION;
}

export function envOf(out: Output): NodeJS.ProcessEnv {
  return out.env ?? process.env;
}
