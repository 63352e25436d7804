// The life of a system under test's processes, apart from what they say:
// started by `/bin/sh -c COMMAND` in a process group of its own (a simple
// command exec'd, so the shell does not stay around it), its
// environment marked so that descendants that leave the group (setsid, a
// daemon) are still found, and ended so that nothing of it outlives the
// harness and nothing of it keeps the harness alive:
//
//   1. stdin is closed (a well-behaved system exits now);
//   2. SIGTERM to the group and to every marked process (it may clean up:
//      `streamjoin serve --data` removes its session directory);
//   3. SIGKILL to the same, which cannot be refused;
//   4. the harness's ends of the pipes are destroyed, so a process that
//      still holds the other end (one that escaped everything above, on a
//      system without /proc) cannot keep the harness waiting.
//
// Dying is watched on the process's exit, not on its stdout's end: a
// grandchild holding stdout must not make a dead system look alive.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks every process a system under test starts (PROTOCOL.md, "Transport"). */
export const SUT_MARKER_VARIABLE = 'STREAMJOIN_SUT_RUN';

/** How a process ended. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface StopOptions {
  /** How long after stdin is closed the group gets SIGTERM (default 1000 ms; 0 sends it at once). */
  readonly closeGraceMs?: number;
  /** How long after SIGTERM it gets SIGKILL (default 1000 ms). */
  readonly termGraceMs?: number;
}

export const DEFAULT_CLOSE_GRACE_MS = 1000;
export const DEFAULT_TERM_GRACE_MS = 1000;

/** A command running in a process group of its own. */
export interface GroupProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The process group id (the shell's pid), undefined if it could not start. */
  readonly pgid: number | undefined;
  /** The value of SUT_MARKER_VARIABLE in its environment and its descendants'. */
  readonly marker: string;
  /** Settles when the process itself exits (or fails to start), whatever holds its pipes. */
  readonly exited: Promise<ExitStatus>;
  /** How it exited, once it has. */
  exitStatus(): ExitStatus | undefined;
  /**
   * Ends it and everything it started (steps 1–4 above); resolves when none
   * of its processes is alive any more (bounded: a few seconds past the
   * graces) and the pipes are destroyed. Idempotent.
   */
  stop(options?: StopOptions): Promise<void>;
  /**
   * Kill mode (PROTOCOL.md, "Kill mode"): SIGKILL to the group and its marked
   * processes at once, with no chance to clean up (no stdin close, no
   * SIGTERM); resolves when none of them is alive and the pipes are destroyed.
   */
  kill(): Promise<void>;
  /** SIGSTOP to the group and its marked processes: they read nothing more until killed (an in-flight kill's request stays unread). */
  freeze(): void;
}

// Every group not yet stopped, so that a harness that exits (or is told to
// stop at once) takes them along.
const live = new Set<GroupProcess>();
let exitHookInstalled = false;

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: gone already; EPERM: not ours.
  }
}

/** The pids of /proc (Linux); empty elsewhere. */
function procPids(): number[] {
  if (process.platform !== 'linux') return [];
  try {
    return readdirSync('/proc')
      .filter((e) => e.charCodeAt(0) >= 48 && e.charCodeAt(0) <= 57)
      .map(Number);
  } catch {
    return [];
  }
}

/** State and process group of a process from /proc/PID/stat, or undefined if it is gone. */
function statOf(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // it ended while we looked
  }
  // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}

/**
 * The processes of a process group that are still alive (neither gone nor
 * zombies). Linux only, from /proc; elsewhere empty (the SIGKILL is trusted).
 */
export function livingInGroup(pgid: number): number[] {
  const alive: number[] = [];
  for (const pid of procPids()) {
    const s = statOf(pid);
    if (s && s.pgrp === pgid && s.state !== 'Z') alive.push(pid);
  }
  return alive;
}

/** Whether a process's environment holds exactly `NAME=value` (a variable starts the block or follows a NUL). */
function hasEnvironment(pid: number, entry: Buffer): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // gone, or another user's: never ours
  }
  for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/**
 * The living processes whose environment holds `NAME=value` (Linux only,
 * from /proc/PID/environ). Finds the descendants of a system under test
 * that left its process group, unless they cleared their environment.
 */
export function livingWithEnvironment(name: string, value: string): number[] {
  const entry = Buffer.from(`${name}=${value}\0`);
  return procPids().filter((pid) => pid !== process.pid && hasEnvironment(pid, entry) && statOf(pid)?.state !== 'Z');
}

/** Every living process of a system, in one pass over /proc: its group, and its marked processes. */
function livingOf(g: GroupProcess): number[] {
  const entry = Buffer.from(`${SUT_MARKER_VARIABLE}=${g.marker}\0`);
  const alive: number[] = [];
  for (const pid of procPids()) {
    if (pid === process.pid) continue;
    const s = statOf(pid);
    if (!s || s.state === 'Z') continue;
    if (s.pgrp === g.pgid || hasEnvironment(pid, entry)) alive.push(pid);
  }
  return alive;
}

function signalAll(g: GroupProcess, signal: NodeJS.Signals): void {
  if (g.pgid !== undefined) signalGroup(g.pgid, signal);
  for (const pid of livingWithEnvironment(SUT_MARKER_VARIABLE, g.marker)) signalPid(pid, signal);
}

/** SIGKILL to every system still running (for a harness that must stop at once); synchronous. */
export function killAllSystems(): void {
  for (const g of live) signalAll(g, 'SIGKILL');
  live.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Whatever way the harness ends, no group it started lives on.
  process.on('exit', () => {
    for (const g of live) if (g.pgid !== undefined) signalGroup(g.pgid, 'SIGKILL');
  });
}

// Timers here are not unref'd: stopping is awaited, and once the system's
// processes and pipes are gone nothing else may be keeping the harness alive.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits up to `ms` for `p`; true if it settled. The timer is cleared either way. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const HAS_PROC = process.platform === 'linux';

/**
 * Polls (every 50 ms, up to `ms`) until none of the system's processes is
 * alive; true if none is. Without /proc, only the main process is seen.
 */
async function noneAlive(g: GroupProcess, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (HAS_PROC ? livingOf(g).length === 0 : g.exitStatus() !== undefined) return true;
    if (Date.now() >= until) return false;
    await sleep(50);
  }
}

/** Settles when a readable stream has ended or closed. */
function ended(stream: NodeJS.ReadableStream & { readonly readableEnded?: boolean; readonly closed?: boolean }): Promise<void> {
  if (stream.readableEnded || stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
}

let spawned = 0;

/** Words that make a command more than one program the shell runs (reserved words; `exec` already). */
const SHELL_WORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  '{',
  '}',
  '!',
  'function',
  'exec',
]);

/**
 * The command the shell runs: a simple command (one program and its
 * arguments, no operator, redirection, subshell or leading assignment)
 * prefixed with `exec`, so that the shell becomes the program instead of
 * waiting for it. Then the process is the system itself, and its stdout is
 * held by nobody else: when the system closes it, the harness sees the end
 * at once (a waiting shell would keep the pipe open). Anything else runs as
 * given.
 */
export function shellCommand(command: string): string {
  const trimmed = command.trim();
  if (trimmed === '' || /[;&|<>()`\n\\#]/.test(trimmed)) return command;
  const first = trimmed.split(/\s+/)[0] as string;
  if (SHELL_WORDS.has(first) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) return command;
  return `exec ${trimmed}`;
}

/** Starts `command` through the shell in a process group of its own, its environment marked. */
export function spawnInGroup(command: string, options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv } = {}): GroupProcess {
  const marker = `${process.pid}-${++spawned}-${randomBytes(6).toString('hex')}`;
  const child = spawn(shellCommand(command), {
    shell: true,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), [SUT_MARKER_VARIABLE]: marker },
  });
  let status: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve(status);
    });
    // Could not start at all (no shell): as if it exited.
    child.once('error', () => {
      status ??= { code: null, signal: null };
      resolve(status);
    });
  });
  // Writing to a process that has gone away raises EPIPE here, not a crash.
  child.stdin.on('error', () => {});
  let stopping: Promise<void> | undefined;
  const destroyPipes = async (): Promise<void> => {
    live.delete(group);
    // What the processes wrote before they died is still in the pipes: read it (bounded) before closing them.
    await within(Promise.all([ended(child.stdout), ended(child.stderr)]), 500);
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
    child.unref();
  };
  const group: GroupProcess = {
    child,
    pgid: child.pid,
    marker,
    exited,
    exitStatus: () => status,
    stop(opts: StopOptions = {}): Promise<void> {
      stopping ??= (async () => {
        const closeGrace = opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
        const termGrace = opts.termGraceMs ?? DEFAULT_TERM_GRACE_MS;
        child.stdin.end();
        if (closeGrace > 0) await within(exited, closeGrace);
        if (!(await noneAlive(group, 0))) {
          signalAll(group, 'SIGTERM');
          await noneAlive(group, termGrace);
        }
        // SIGKILL cannot be refused, but is delivered asynchronously: wait (bounded) until it took.
        for (let i = 0; i < 3 && !(await noneAlive(group, 0)); i++) {
          signalAll(group, 'SIGKILL');
          await noneAlive(group, 1000);
        }
        // Without /proc the rest of the group cannot be seen: it gets SIGKILL whatever it does.
        if (!HAS_PROC && group.pgid !== undefined) signalGroup(group.pgid, 'SIGKILL');
        await destroyPipes();
      })();
      return stopping;
    },
    kill(): Promise<void> {
      stopping ??= (async () => {
        for (let i = 0; i < 3 && !(await noneAlive(group, 0)); i++) {
          signalAll(group, 'SIGKILL');
          await noneAlive(group, 1000);
        }
        if (!HAS_PROC && group.pgid !== undefined) signalGroup(group.pgid, 'SIGKILL');
        await within(exited, 1000);
        await destroyPipes();
      })();
      return stopping;
    },
    freeze(): void {
      signalAll(group, 'SIGSTOP');
    },
  };
  if (child.pid !== undefined) {
    live.add(group);
    installExitHook();
  }
  return group;
}
