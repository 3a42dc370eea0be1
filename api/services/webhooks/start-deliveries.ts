// Starting the workflows of queued webhook deliveries from outside a workflow (events the API records, such
// as `envelope.created`), and the sweep that starts any queued delivery whose start was lost (the process
// stopped between committing the row and starting its workflow). Starting twice is harmless: the workflow id
// is the delivery's, and a running or finished one is left alone.
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Orm } from '../../../db/orm.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_TASK_QUEUE,
  webhookDeliveryWorkflowId,
} from '../../../workflows/webhook-contracts.ts';
import type { webhookDeliveryWorkflow } from '../../../workflows/webhook-delivery.ts';

/** Starts one delivery workflow per id; ids whose workflow exists already are skipped. */
export async function startWebhookDeliveries(client: Client, deliveryIds: readonly string[]): Promise<void> {
  for (const deliveryId of deliveryIds) {
    try {
      await client.workflow.start<typeof webhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        taskQueue: WEBHOOK_TASK_QUEUE,
        args: [{ deliveryId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

/** How long a queued delivery may wait for its start before the sweep starts it. */
export const RESUME_AFTER_MS = 60_000;

/**
 * Starts the workflows of pending deliveries queued more than `RESUME_AFTER_MS` ago and never attempted.
 * Returns how many it looked at. The worker process runs it once a minute.
 */
export async function resumePendingWebhookDeliveries(
  ctx: { orm: Orm; temporal: Client },
  limit = 200,
): Promise<number> {
  const rows = await ctx.orm.em.fork().execute<{ id: string }[]>(
    `select id from webhook_delivery
      where status = 'pending' and attempt_count = 0 and created_at < now() - make_interval(secs => ?)
      order by created_at limit ?`,
    [RESUME_AFTER_MS / 1000, limit],
  );
  await startWebhookDeliveries(
    ctx.temporal,
    rows.map((row) => row.id),
  );
  return rows.length;
}
