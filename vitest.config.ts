import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{spec,model,impl,conformance,cli,bench,scripts}/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    globalSetup: ['test-setup/seed.global.ts'],
    setupFiles: ['test-setup/seed.setup.ts'],
    // Processes the tests start (`node bin/streamjoin.js serve`) run the sources under test, never
    // a dist/ that may be stale; the packaged, compiled CLI has its own test (package.e2e.test.ts).
    env: { STREAMJOIN_FROM_SOURCE: '1' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
