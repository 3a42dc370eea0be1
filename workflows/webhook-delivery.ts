// One webhook delivery: up to five HTTP attempts (one activity call each) with exponential backoff and
// jitter between them. The waiting happens here, on durable timers, so a delivery survives worker restarts
// and its schedule is visible in the workflow history; the jitter comes from the workflow's seeded
// Math.random(), so a replay decides the same delays.
import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  WEBHOOK_MAX_ATTEMPTS,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
  webhookRetryDelayMs,
} from './webhook-contracts.ts';

const { attemptWebhookDelivery } = proxyActivities<Activities>({
  // The HTTP request has its own, shorter timeout inside the activity (10 s); this bounds the whole call,
  // database writes included.
  startToCloseTimeout: '1 minute',
  // An HTTP failure is an answer, not an error: the activity records it and returns. What it throws is a
  // database or worker problem, retried until it is gone (the attempt then runs again: at least once).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Runs on this code wait what the attempt says (`outcome.retryDelayMs`: this schedule times the worker's
 * WEBHOOK_RETRY_DELAY_SCALE, 1 in production); runs recorded before it waited `retryDelayMs` itself.
 */
const WAIT_FROM_ATTEMPT_PATCH = 'webhook-wait-from-attempt';

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId } = input;
  for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
    // Decided before the attempt, so the delivery record can show when the next one is due.
    const retryDelayMs = attempt < WEBHOOK_MAX_ATTEMPTS ? webhookRetryDelayMs(attempt, Math.random()) : null;
    const outcome = await attemptWebhookDelivery({ deliveryId, attempt, retryDelayMs });
    if (outcome.status !== 'pending') return { deliveryId, status: outcome.status, attempts: attempt };
    if (retryDelayMs === null) break;
    const wait =
      outcome.retryDelayMs !== undefined && patched(WAIT_FROM_ATTEMPT_PATCH)
        ? outcome.retryDelayMs
        : retryDelayMs;
    await sleep(wait);
  }
  // Unreachable in practice: the activity marks the last failed attempt `failed`.
  return { deliveryId, status: 'failed', attempts: WEBHOOK_MAX_ATTEMPTS };
}
