// Starting the workflows of queued webhook deliveries from outside a workflow (events the API records, such
// as `envelope.created`), and the sweep that starts any queued delivery whose start was lost (the process
// stopped between committing the row and starting its workflow). Starting twice is harmless: the workflow id
// is the delivery's, and a running or finished one is left alone.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { unstartedWebhookDeliveryIds } from '../db/webhook-deliveries.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_TASK_QUEUE,
  type WebhookDeliveryWorkflow,
  webhookDeliveryWorkflowId,
} from '../workflows/webhook-contracts.ts';
import { DEFAULT_TEMPORAL_REQUEST_TIMEOUT_MS, withTemporalDeadline } from './deadline.ts';

/**
 * Starts one delivery workflow per id; ids whose workflow exists already are skipped. All the starts share
 * one deadline (`timeoutMs`, default TEMPORAL_REQUEST_TIMEOUT_MS's): past it, or with Temporal unreachable,
 * this rejects with TemporalUnavailableError and the starts not made are left to the sweep.
 */
export async function startWebhookDeliveries(
  client: Client,
  deliveryIds: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TEMPORAL_REQUEST_TIMEOUT_MS;
  await withTemporalDeadline(client, timeoutMs, 'starting webhook deliveries', async () => {
    for (const deliveryId of deliveryIds) {
      try {
        await client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
          workflowId: webhookDeliveryWorkflowId(deliveryId),
          taskQueue: WEBHOOK_TASK_QUEUE,
          args: [{ deliveryId }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
  });
}

/** How long a queued delivery may wait for its start before the sweep starts it. */
export const RESUME_AFTER_MS = 60_000;

/**
 * Starts the workflows of pending deliveries queued more than `RESUME_AFTER_MS` ago and never attempted.
 * Returns how many it looked at. The worker process runs it once a minute.
 */
export async function resumePendingWebhookDeliveries(
  em: EntityManager,
  client: Client,
  limit = 200,
): Promise<number> {
  const ids = await unstartedWebhookDeliveryIds(em, RESUME_AFTER_MS, limit);
  await startWebhookDeliveries(client, ids);
  return ids.length;
}
