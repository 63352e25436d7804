// Running the CLI in-process from tests, with its output captured.
import { main } from './main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capture(argv: readonly string[]): { code: number | Promise<number>; output: () => { stdout: string; stderr: string } } {
  let stdout = '';
  let stderr = '';
  const code = main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: false });
  return { code, output: () => ({ stdout, stderr }) };
}

/** Runs a command that may be asynchronous (conform, replay, serve, mutants). */
export async function runCli(argv: readonly string[]): Promise<CliRun> {
  const r = capture(argv);
  const code = await r.code;
  return { code, ...r.output() };
}

/** Runs a synchronous command (run, check, ci, help). */
export function runCliSync(argv: readonly string[]): CliRun {
  const r = capture(argv);
  if (typeof r.code !== 'number') throw new Error(`${argv[0] ?? ''} returned a promise; use runCli`);
  return { code: r.code, ...r.output() };
}
