import { homedir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { appRoutesPlugin } from './scripts/vite-app-routes.ts';

// Every Node process the tests start (the operator CLI, the service of the npm-start test, workers) keeps the
// code it compiled (TypeScript stripped, V8 bytecode) in Node's compile cache: the suite starts the CLI dozens
// of times, and each start compiles the same few hundred modules. Set here, in the main process, so the
// global setup and every test worker inherit it.
process.env.NODE_COMPILE_CACHE ??= join(
  process.env.SIGIL_CACHE_DIR ?? join(homedir(), '.cache', 'sigil'),
  'node-compile-cache',
);

// SIGIL_TEST_CANARY=1 runs only the always-failing canary through this same configuration, so
// test/integration/test-gate.test.ts can check that a failed run exits non-zero.
const canary = process.env.SIGIL_TEST_CANARY === '1';

export default defineConfig({
  // The web client's route table (`virtual:app-routes`), for tests that import it (test/unit/web-app-routes.test.ts).
  plugins: [appRoutesPlugin()],
  test: {
    // clients/*/test: the client libraries' tests against the live server (docs/clients.md).
    include: canary ? ['test/canary/*.canary.ts'] : ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    // The slow hashes with small work factors (services/security/hash-cost.ts): the suite creates and verifies
    // thousands of passwords and client secrets. Inherited by every process the tests start.
    env: { SIGIL_HASH_COST: 'low' },
    // Timeouts catch hangs; they do not measure speed (the bench:* scripts do). They are generous because the
    // machines this suite runs on differ by ten times in speed from one day to the next: on a slow day a
    // browser test that takes 20 s on a normal one takes minutes.
    testTimeout: 600_000,
    // Browser pages under load (two test files at a time on two cores) can take seconds to settle.
    expect: { poll: { timeout: 60_000, interval: 100 } },
    hookTimeout: 600_000,
    pool: 'forks',
    // Two cores in CI: two test files at a time, next to the shared Temporal server and worker.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
