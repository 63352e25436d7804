// Soak: a long in-process conformance run (`conform --sut impl --exhaustive
// --runs 100000`, as a process, as a user runs it) interrupted by SIGINT at
// moments drawn from the suite's seed, a bounded number of times: while the
// examples run, while a scenario's cover is built or its interleavings run,
// among the random traces or while one is shrunk. Whatever it was doing, it
// must never end in a pass: exit 2 (unknown) every time, within a second of
// its own CPU time after the signal, with its report and nothing left running.
import { describe, expect, inject, it } from 'vitest';
import { livingWithEnvironment } from '../conformance/adapters/processGroup.ts';
import { seededRandom } from '../conformance/generate/seededRandom.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { HANG_MS, interruptAndMeasure, startProcess } from './testProcesses.ts';

const seed = inject('fcSeed');
const tmp = useTemporaryDirectories('sj-interrupt-soak-', 'all');

/** How many interrupts, and the latest moment one comes (ms after the system under test answered the handshake). */
const INTERRUPTS = 3;
const LATEST_MS = 6000;

describe('an interrupted in-process conformance run is never a pass (soak: SIGINT at seeded random moments)', () => {
  const next = seededRandom(seed);
  const moments = Array.from({ length: INTERRUPTS }, () => Math.floor(next() * LATEST_MS));
  for (const [i, at] of moments.entries()) {
    it(`interrupt ${i + 1} of ${INTERRUPTS}: SIGINT ${at} ms into the run (seed ${seed}): exit 2 within a second, never 0`, async () => {
      const run = startProcess(
        ['bin/streamjoin.js', 'conform', '--sut', 'impl', '--exhaustive', '--runs', '100000', `--seed=${seed}`, '--out', tmp()],
        { STREAMJOIN_FROM_SOURCE: '1' },
      );
      await run.until(() => run.stderr().includes('system under test:'));
      await new Promise((resolve) => setTimeout(resolve, at));
      const { code, ms, cpuMs } = await interruptAndMeasure(run);
      expect(code, run.stdout()).toBe(2);
      expect(run.stdout()).toMatch(/interrupted: SIGINT[\s\S]*verdict: UNKNOWN\n$/);
      expect(run.stderr()).not.toContain('internal error');
      expect(cpuMs).toBeLessThan(1000);
      expect(ms).toBeLessThan(HANG_MS);
      expect(livingWithEnvironment('HOSTILE_TAG', run.tag)).toEqual([]);
    });
  }
});
