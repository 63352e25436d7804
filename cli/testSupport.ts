// Running the CLI in-process from tests, with its output captured.
import { main } from './main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a test can set of the process around the CLI: how it was invoked, and the environment. */
export interface CliContext {
  readonly invocation?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** What SIGINT or SIGTERM would abort (cli/interrupts.ts): a test interrupts the command with it. */
  readonly signal?: AbortSignal;
}

function capture(
  argv: readonly string[],
  context: CliContext,
): { code: number | Promise<number>; output: () => { stdout: string; stderr: string } } {
  let stdout = '';
  let stderr = '';
  const code = main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: false, ...context });
  return { code, output: () => ({ stdout, stderr }) };
}

/** Runs a command that may be asynchronous (conform, replay, serve, mutants). */
export async function runCli(argv: readonly string[], context: CliContext = {}): Promise<CliRun> {
  const r = capture(argv, context);
  const code = await r.code;
  return { code, ...r.output() };
}

/** Runs a synchronous command (run, check, ci, help). */
export function runCliSync(argv: readonly string[], context: CliContext = {}): CliRun {
  const r = capture(argv, context);
  if (typeof r.code !== 'number') throw new Error(`${argv[0] ?? ''} returned a promise; use runCli`);
  return { code: r.code, ...r.output() };
}
