import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 60_000,
    // Browser pages under load (two test files at a time on two cores) can take seconds to settle.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores in CI: two test files at a time, next to the shared Temporal server and worker.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
