// The CLI run as a process from tests, as a user runs it: its output as it
// comes, a wait for a condition on it, its exit. Test support only.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly tag: string;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves once `condition` holds of what it wrote so far; rejects when it exits first, or when
   * `ms` pass (UNTIL_MS by default: then it is killed), so that a hang fails its test, not the suite.
   */
  until(condition: () => boolean, ms?: number): Promise<void>;
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
  // Gone: it exited and what it wrote has been read (its output closed, or 100 ms after its exit when
  // a process it started still holds the output). A wait not met by then fails (`until`).
  let gone = false;
  const goneNow = (): void => {
    if (gone) return;
    gone = true;
    check();
  };
  child.on('close', goneNow);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      setTimeout(goneNow, 100);
      resolve({ code, signal });
    });
  });
  return {
    child,
    tag,
    stdout: () => out,
    stderr: () => err,
    exited,
    until(condition, ms = UNTIL_MS) {
      return new Promise((resolve, reject) => {
        const late = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`not seen within ${ms} ms (killed); stdout:\n${out}\nstderr:\n${err}`));
        }, ms);
        const test = (): void => {
          if (condition()) {
            clearTimeout(late);
            resolve();
          } else if (gone) {
            clearTimeout(late);
            reject(new Error(`exited first; stdout:\n${out}\nstderr:\n${err}`));
          } else waiting.push(test);
        };
        test();
      });
    },
  };
}

/** User plus system CPU time of process `pid` so far, in ms (Linux, /proc; every thread counted), or undefined once it is gone. */
function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * Sends SIGINT; the exit status, the time from the signal to the exit, and the CPU time the
 * process spent after the signal (sampled every 5 ms until it is gone). "Heard within a second"
 * is judged on the CPU time: on a loaded machine the wall time measures the machine's other
 * work, not how often the command looks at its signals; the wall time only rules out a hang.
 * A process still running 3 × HANG_MS after the signal is killed, and the wait fails (`exitWithin`).
 */
export async function interruptAndMeasure(run: Running): Promise<{ code: number | null; ms: number; cpuMs: number }> {
  const pid = run.child.pid;
  const before = cpuMsOf(pid) ?? 0;
  let last = before;
  let gone = false;
  const t0 = performance.now();
  run.child.kill('SIGINT');
  const sampling = (async () => {
    while (!gone) {
      last = cpuMsOf(pid) ?? last;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let code: number | null;
  try {
    ({ code } = await exitWithin(run));
  } finally {
    gone = true;
  }
  await sampling;
  return { code, ms: performance.now() - t0, cpuMs: last - before };
}

/** The bound on the wall time from the signal to the exit: far above a second, far below the runs' minutes; only a hang exceeds it. */
export const HANG_MS = 20_000;

/** How long `until` waits for what a process prints by default: far above a loaded machine's start-up. */
export const UNTIL_MS = 120_000;

/**
 * The process's exit; if it has not exited within `ms`, it is killed (SIGKILL) and the wait
 * fails with what it printed: a hang fails its test, not the suite's timeout.
 */
export async function exitWithin(run: Running, ms = 3 * HANG_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let late: ReturnType<typeof setTimeout> | undefined;
  const exit = await Promise.race([
    run.exited,
    new Promise<undefined>((r) => {
      late = setTimeout(() => r(undefined), ms);
    }),
  ]);
  clearTimeout(late);
  if (exit !== undefined) return exit;
  run.child.kill('SIGKILL');
  throw new Error(`still running ${ms} ms after it was told to stop (killed); stdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
}
