// The vitest config of the mutation measurement only (`npm run mutate`,
// stryker.config.json): the conformance harness as the killing test of
// impl/'s mutants. `npm test` uses vitest.config.ts and never runs it.
//
// STREAMJOIN_MUTATION_TESTS=kill keeps only the kill-mode part
// (kill.mutation.ts): for a run over the durable files alone, which no
// in-process part reaches (docs/mutation.md).
import { defineConfig } from 'vitest/config';

const killOnly = process.env.STREAMJOIN_MUTATION_TESTS === 'kill';

export default defineConfig({
  test: {
    include: [...(killOnly ? [] : ['conformance/mutation/harness.mutation.ts']), 'conformance/mutation/kill.mutation.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
