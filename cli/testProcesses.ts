// The CLI run as a process from tests, as a user runs it: its output as it
// comes, a wait for a condition on it, its exit. Test support only.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly tag: string;
  stdout(): string;
  stderr(): string;
  /** Resolves once `condition` holds of what it wrote so far, or rejects when it exits first. */
  until(condition: () => boolean): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node ARGS` in the project, its environment marked so that everything it starts can be found. */
export function startProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): Running {
  const tag = randomBytes(8).toString('hex');
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env, HOSTILE_TAG: tag },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting: (() => void)[] = [];
  const check = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (t: string) => {
    out += t;
    check();
  });
  child.stderr.on('data', (t: string) => {
    err += t;
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      check();
      resolve({ code, signal });
    });
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  return {
    child,
    tag,
    stdout: () => out,
    stderr: () => err,
    exited,
    until(condition) {
      return new Promise((resolve, reject) => {
        const test = (): void => {
          if (condition()) resolve();
          else if (gone) reject(new Error(`exited first; stdout:\n${out}\nstderr:\n${err}`));
          else waiting.push(test);
        };
        test();
      });
    },
  };
}
