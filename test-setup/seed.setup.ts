// Applies the run's seed (see seed.global.ts) to fast-check in each worker.
// fast-check prints `seed` and `path` of any counterexample; with the same
// STREAMJOIN_SEED the whole run, and that counterexample, replay.
import fc from 'fast-check';
import { inject } from 'vitest';

fc.configureGlobal({ seed: inject('fcSeed'), numRuns: inject('fcRuns') });
