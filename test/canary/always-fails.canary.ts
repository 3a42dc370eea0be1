// The test gate's canary: a test that always fails. `test/integration/test-gate.test.ts` runs this file
// alone through the project's own vitest configuration (global setup and teardown, reporters) in a child
// process and requires a non-zero exit. Not part of the normal run (vitest.config.ts includes *.test.ts).
import { expect, test } from 'vitest';

test('the canary fails on purpose', () => {
  expect(1).toBe(2);
});
