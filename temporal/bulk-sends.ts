// Starting a bulk send's workflow (docs/bulk-send.md): by the API once the run and its rows are committed, and
// by the worker's sweep for a run whose start was lost (the API process died between the commit and the
// start, or Temporal did not answer). Starting again under the same workflow id is harmless: a running
// workflow is used as it is, a finished one is never started again.

import type { EntityManager } from '@mikro-orm/postgresql';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { runningBulkSends } from '../db/bulk-sends.ts';
import {
  BULK_SEND_TASK_QUEUE,
  BULK_SEND_WORKFLOW_TYPE,
  type BulkSendInput,
  type BulkSendWorkflow,
  bulkSendWorkflowId,
} from '../workflows/bulk-send-contracts.ts';
import { searchAttributes } from '../workflows/contracts.ts';
import { withTemporalDeadline } from './deadline.ts';

/** A run younger than this is left to the API that is starting it. */
export const RESUME_BULK_SENDS_AFTER_MS = 60_000;

export async function startBulkSendWorkflow(
  client: Client,
  run: BulkSendInput & { summary: string },
  timeoutMs: number,
): Promise<void> {
  const { summary, ...input } = run;
  await withTemporalDeadline(client, timeoutMs, `starting bulk send ${run.bulkSendId}`, () =>
    client.workflow
      .start<BulkSendWorkflow>(BULK_SEND_WORKFLOW_TYPE, {
        workflowId: bulkSendWorkflowId(run.bulkSendId),
        taskQueue: BULK_SEND_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: summary,
        typedSearchAttributes: [{ key: searchAttributes.organizationId, value: run.organizationId }],
      })
      .then(() => undefined)
      .catch((error: unknown) => {
        // A finished run under this id: nothing to start.
        if (error instanceof WorkflowExecutionAlreadyStartedError) return;
        throw error;
      }),
  );
}

/** Starts the workflow of every run still Running whose start may have been lost; how many it looked at. */
export async function resumeBulkSends(
  em: EntityManager,
  client: Client,
  timeoutMs = 10_000,
): Promise<number> {
  const runs = await runningBulkSends(em, new Date(Date.now() - RESUME_BULK_SENDS_AFTER_MS));
  for (const run of runs) {
    await startBulkSendWorkflow(
      client,
      {
        bulkSendId: run.id,
        organizationId: run.organization_id,
        total: run.total,
        summary: `Bulk send of ${run.total} envelopes`,
      },
      timeoutMs,
    );
  }
  return runs.length;
}
