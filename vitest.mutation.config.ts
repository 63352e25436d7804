// The vitest config of the mutation measurement only (`npm run mutate`,
// stryker.config.json): the conformance harness as the killing test of
// impl/'s mutants. `npm test` uses vitest.config.ts and never runs it.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['conformance/mutation/harness.mutation.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
