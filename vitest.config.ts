import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two tiers. `unit`: every *.test.ts but the end-to-end ones (npm run
// test:unit, under a minute). `e2e`: *.e2e.test.ts, the runs that spawn
// processes or exhaust big models: the ci preset, the mutant control run, the
// process protocol, SIGKILLed durable storage, the browser tests (npm run
// test:e2e). `npm test` (and CI) runs both, the unit tier first, into one
// JSON report.
const suites = '{spec,model,impl,conformance,explore,cli,bench,scripts,examples}/**/';

export default defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [`${suites}*.test.ts`],
          exclude: [`${suites}*.e2e.test.ts`],
          // The unit tier is CPU-bound in its workers: on two cores, two workers (vitest's default is one).
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [`${suites}*.e2e.test.ts`],
          // Two files at a time on two cores, as the unit tier: one file alone left a core idle (its CPU time was 1.4 times
          // its wall time, measured file by file: it waits on the processes it starts), and the tier is most of CI's time
          // (serial, some 700 s here; two at a time, 540 s). Every bound on a spawned process's time is loose enough
          // for a loaded machine (--timeout 60 s where a test does not wait for it; CPU time where it measures a hang).
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
          // Its longest tests take about a minute on an idle machine: the bound is an order of magnitude looser.
          testTimeout: 600_000,
        },
      },
    ],
    globalSetup: ['test-setup/seed.global.ts'],
    setupFiles: ['test-setup/seed.setup.ts'],
    // Processes the tests start (`node bin/streamjoin.js serve`) run the sources under test, never
    // a dist/ that may be stale; the packaged, compiled CLI has its own test (package.e2e.test.ts).
    env: { STREAMJOIN_FROM_SOURCE: '1' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
