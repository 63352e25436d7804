// Chooses the one fast-check seed for the whole test run (or takes it from
// STREAMJOIN_SEED), prints it, and hands it to every test worker, so that a
// failing run replays with `STREAMJOIN_SEED=<seed> npm test`.
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    fcSeed: number;
    fcRuns: number;
  }
}

/** The run's choice, made once per process: each test project (unit, e2e) calls `setup`, and all get the same seed. */
const chosen = Symbol.for('streamjoin.fcSeed');
type Chosen = { seed: number; runs: number };

function choose(): Chosen {
  const fromEnv = process.env['STREAMJOIN_SEED'];
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  if (!Number.isSafeInteger(seed)) throw new Error(`STREAMJOIN_SEED must be an integer, got ${fromEnv}`);
  const runsEnv = process.env['STREAMJOIN_RUNS'];
  const runs = runsEnv !== undefined && runsEnv !== '' ? Number(runsEnv) : 200;
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`STREAMJOIN_RUNS must be a positive integer, got ${runsEnv}`);
  console.log(`fast-check seed ${seed}, ${runs} runs per property (replay: STREAMJOIN_SEED=${seed} npm test)`);
  return { seed, runs };
}

export default function setup(project: TestProject): void {
  const store = globalThis as { [chosen]?: Chosen };
  store[chosen] ??= choose();
  project.provide('fcSeed', store[chosen].seed);
  project.provide('fcRuns', store[chosen].runs);
}
