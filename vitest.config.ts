import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{spec,model,impl,conformance,cli,bench,scripts}/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    globalSetup: ['test-setup/seed.global.ts'],
    setupFiles: ['test-setup/seed.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
