// Determinism guard: every recorded history (test/fixtures/histories, made by `npm run record:histories`)
// must replay against the current workflow code. A nondeterministic change fails here, before it can
// break envelopes that are already running.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { installQuietRuntime } from '../support/infrastructure.ts';

const HISTORIES = new URL('../fixtures/histories/', import.meta.url);
const files = (await readdir(HISTORIES)).filter((file) => file.endsWith('.json')).sort();

async function history(file: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(file, HISTORIES), 'utf8'));
}

describe('workflow replay', () => {
  installQuietRuntime();

  it('has recorded histories to replay', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bulk-send-cancelled.json',
        'bulk-send-completed.json',
        'sequential-cancelled.json',
        'sequential-completed.json',
        'sequential-expired.json',
      ]),
    );
  });

  it.each(files)('replays %s against the current workflow code', async (file) => {
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, replayName: file },
      await history(file),
    );
  });

  it('fails on a history when the workflow code changed incompatibly', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(
        new URL('../fixtures/workflows/incompatible-envelope.ts', import.meta.url),
      ),
      logger: new DefaultLogger('WARN'),
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle }, await history('sequential-completed.json')),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
