// The process helpers' bounds: a process that hangs fails its test within the bound, killed,
// instead of holding the suite until its timeout (a CI run once lost 600 s so).
import { describe, expect, it } from 'vitest';
import { exitWithin, startProcess } from './testProcesses.ts';

const HANGS = ['-e', "process.stdout.write('up\\n'); setInterval(() => {}, 1000);"];

describe('bounded waits on a process', () => {
  it('exitWithin: a process that does not exit is killed and the wait fails, saying what it printed', async () => {
    const run = startProcess(HANGS);
    await run.until(() => run.stdout().includes('up'));
    await expect(exitWithin(run, 200)).rejects.toThrow(/still running 200 ms after it was told to stop \(killed\); stdout:\nup/);
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('exitWithin: a process that exits gives its status', async () => {
    const run = startProcess(['-e', 'process.exitCode = 3']);
    expect(await exitWithin(run, 60_000)).toEqual({ code: 3, signal: null });
  });

  it('until: what is never printed fails the wait after the bound, and the process is killed', async () => {
    const run = startProcess(HANGS);
    await expect(run.until(() => run.stdout().includes('never'), 200)).rejects.toThrow(/not seen within 200 ms \(killed\)/);
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('until: a process that exits first fails the wait at once', async () => {
    const run = startProcess(['-e', "process.stderr.write('bye')"]);
    await expect(run.until(() => false)).rejects.toThrow(/exited first; stdout:\n\nstderr:\nbye/);
  });
});
