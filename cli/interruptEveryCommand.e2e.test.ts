// Every command hears SIGINT within a second, whatever runs in-process: the
// model over a long trace (run, replay), the in-process system under test
// (conform, replay, mutants, ci), the explorer on one thread (check), an
// audit, a FIFO nobody writes; and it prints what it has, exit 2, never 0.
// The servers (explore) stop, exit 0. The CLI runs as a process, from the
// sources, as a user runs it; each case signals once the command is busy
// (its input open, or its first progress line out), then times the exit.
import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { JoinOperator } from '../impl/index.ts';
import { writeSlidingHistory, writeSlidingTrace, type SlidingLogOptions } from '../conformance/generate/slidingLogs.ts';
import { livingWithEnvironment } from '../conformance/adapters/processGroup.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { HANG_MS, UNTIL_MS, interruptAndMeasure as interrupt, startProcess, type Running } from './testProcesses.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-interrupt-every-', 'all');
const FROM_SOURCE = { STREAMJOIN_FROM_SOURCE: '1' };

/** Whether process `pid` has `path` open (Linux, /proc): it is reading its input. */
function hasOpen(pid: number | undefined, path: string): boolean {
  if (pid === undefined) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * Waits (polling every 10 ms) until `condition` holds; the test fails on what it printed if the process
 * exits first, or is not busy within UNTIL_MS (then it is killed).
 */
async function whenBusy(run: Running, condition: () => boolean): Promise<void> {
  let gone = false;
  void run.exited.then(() => {
    gone = true;
  });
  const deadline = performance.now() + UNTIL_MS;
  while (!condition()) {
    if (gone) throw new Error(`exited before it was busy; stdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
    if (performance.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`not busy within ${UNTIL_MS} ms (killed); stdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

let trace: string;
let log: string;
let sink: string;

beforeAll(() => {
  const dir = tmp();
  // 10^5 records whose right watermark never advances: every row is held (J8), the model's worst case; a few seconds of work.
  const options: SlidingLogOptions = { records: 100_000, keys: 4, window: 50, seed: Number(seed) >>> 0, stalled: 'R' };
  trace = resolve(dir, 'stalled.trace.json');
  writeSlidingTrace(trace, options);
  log = resolve(dir, 'log.jsonl');
  sink = resolve(dir, 'sink.jsonl');
  const { stalled: _stalled, ...moving } = options;
  writeSlidingHistory(log, sink, moving, new JoinOperator({ allowedLateness: 8, maxIntervalLength: 16 }));
});

interface Case {
  readonly name: string;
  readonly argv: () => string[];
  /** When it is busy: its input is open, or it has printed this much. */
  readonly busy: (run: Running) => boolean;
  /** The exit code after the signal (2; a server's 0). */
  readonly code: number;
  /** What it printed of its partial report (stdout and stderr together). */
  readonly says: RegExp;
}

const CASES: readonly Case[] = [
  {
    name: 'run: the model over a long trace',
    argv: () => ['run', trace],
    busy: (r) => hasOpen(r.child.pid, trace),
    code: 2,
    says: /STOP sliding-100000-stalled-R +interrupted \(SIGINT\) after \d+ steps[\s\S]*UNKNOWN: interrupted \(SIGINT\) after \d+ steps of /,
  },
  {
    name: 'replay --sut impl: a long trace, both sides in-process',
    argv: () => ['replay', trace, '--sut', 'impl'],
    busy: (r) => hasOpen(r.child.pid, trace),
    code: 2,
    says: /: UNKNOWN: interrupted: SIGINT\n/,
  },
  {
    name: 'replay --sut model',
    argv: () => ['replay', trace, '--sut', 'model'],
    busy: (r) => hasOpen(r.child.pid, trace),
    code: 2,
    says: /: UNKNOWN: interrupted: SIGINT\n/,
  },
  {
    name: 'conform --sut impl --exhaustive --runs 100000',
    argv: () => ['conform', '--sut', 'impl', '--exhaustive', '--runs', '100000', `--seed=${seed}`, '--out', tmp()],
    busy: (r) => r.stderr().includes('system under test:'),
    code: 2,
    says: /UNKNOWN during .*: interrupted: SIGINT[\s\S]*verdict: UNKNOWN\n/,
  },
  {
    name: 'conform --sut model --runs 100000 (random traces only)',
    argv: () => ['conform', '--sut', 'model', '--examples', 'none', '--runs', '100000', `--seed=${seed}`, '--out', tmp()],
    busy: (r) => r.stderr().includes('system under test:'),
    code: 2,
    says: /random operator: \d+ of 100000 traces[\s\S]*UNKNOWN during random traces at level operator .*: interrupted: SIGINT/,
  },
  {
    name: 'check on one thread (the explorer on the main thread)',
    argv: () => ['check', '--preset', 'join-medium', '--workers', '1', '--visited', 'exact', '--out', tmp()],
    busy: (r) => r.stderr().length > 0,
    code: 2,
    says: /INTERRUPTED/,
  },
  {
    name: 'audit: a recorded history of 10^5 records',
    argv: () => ['audit', '--log', log, '--sink', sink, '--quiet'],
    busy: (r) => hasOpen(r.child.pid, log) && hasOpen(r.child.pid, sink),
    code: 2,
    says: /streamjoin: interrupted: SIGINT( after [\d,]+ log records and [\d,]+ sink changes)?; nothing was judged \(exit 2\)/,
  },
  {
    name: 'mutants: the harness against the catalogue, in-process',
    argv: () => ['mutants', '--runs', '100000', `--seed=${seed}`, '--out', tmp()],
    busy: (r) => r.stderr().includes('exhaustive '),
    code: 2,
    says: /interrupted: SIGINT/,
  },
  {
    name: 'ci: the main job',
    argv: () => ['ci'],
    // In its first part (the examples through the model; the second's worker threads take their own time to start).
    busy: (r) => r.stdout().includes('== 1.'),
    code: 2,
    says: /not run: the job was interrupted/,
  },
  {
    name: 'explore with its stdin an open pipe (a server: it stops)',
    argv: () => ['explore'],
    busy: (r) => r.stdout().includes('http://127.0.0.1:'),
    code: 0,
    says: /streamjoin explore: stopped \(SIGINT\)/,
  },
];

describe('SIGINT to every command, mid-run and in-process: exit 2 (a server: 0) within a second, with what it has', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const run = startProcess(['bin/streamjoin.js', ...c.argv()], FROM_SOURCE);
      await whenBusy(run, () => c.busy(run));
      const { code, ms, cpuMs } = await interrupt(run);
      const said = `${run.stdout()}${run.stderr()}`;
      expect(code, said).toBe(c.code);
      expect(said).toMatch(c.says);
      expect(said).not.toContain('internal error');
      expect(cpuMs, said).toBeLessThan(1000);
      expect(ms, said).toBeLessThan(HANG_MS);
      expect(livingWithEnvironment('HOSTILE_TAG', run.tag)).toEqual([]);
    });
  }
});

describe('a FIFO nobody writes, given to replay and run as processes: SIGINT ends the wait (exit 2 within a second)', () => {
  for (const argv of [(f: string) => ['replay', f, '--sut', 'impl'], (f: string) => ['run', f]]) {
    it(argv('FIFO').join(' '), async () => {
      const fifo = join(tmp(), 'silent.trace.json');
      execFileSync('mkfifo', [fifo]);
      const run = startProcess(['bin/streamjoin.js', ...argv(fifo)], FROM_SOURCE);
      await whenBusy(run, () => hasOpen(run.child.pid, fifo));
      const { code, ms, cpuMs } = await interrupt(run);
      expect(code).toBe(2);
      expect(run.stderr()).toContain(`streamjoin: interrupted: SIGINT while reading ${fifo}; nothing was judged (exit 2)`);
      expect(cpuMs).toBeLessThan(1000);
      expect(ms).toBeLessThan(HANG_MS);
    });
  }
});
