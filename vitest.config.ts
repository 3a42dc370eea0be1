import { defineConfig } from 'vitest/config';

// SIGIL_TEST_CANARY=1 runs only the always-failing canary through this same configuration, so
// test/integration/test-gate.test.ts can check that a failed run exits non-zero.
const canary = process.env.SIGIL_TEST_CANARY === '1';

export default defineConfig({
  test: {
    include: canary ? ['test/canary/*.canary.ts'] : ['test/**/*.test.ts'],
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
