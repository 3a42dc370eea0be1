// The webhook delivery workflow's public surface: event names, payload, workflow id, task queue, retry
// schedule and the options a parent starts a delivery with. Pure data and pure functions, shared by the
// workflows (which run deliveries), the activities, the API and the CLI (which queue them).
import type { ChildWorkflowOptions } from '@temporalio/workflow';
import type { WebhookDeliveryStatus, WebhookEventType } from '../domain/vocabulary.ts';

export const WEBHOOK_TASK_QUEUE = 'webhooks';
export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';
/** The delivery workflow's signature (workflows/webhook-delivery.ts): what a start by type name is typed with. */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;

export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook-delivery/${deliveryId}`;
}

/**
 * The JSON body of every delivery (specification, Webhook event payload). `id` names the event: every
 * delivery of one event to one endpoint, replays included, carries the same `id`.
 */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  /** ISO 8601 UTC. */
  created_at: string;
  data: Record<string, unknown>;
}

export interface WebhookDeliveryInput {
  /** The `webhook_delivery` row to deliver; also the `X-Service-Delivery` header. */
  deliveryId: string;
}

export interface WebhookDeliveryResult {
  deliveryId: string;
  /** `gone` when the delivery (or its endpoint) was deleted while it was waiting for its next attempt. */
  status: Exclude<WebhookDeliveryStatus, 'pending'> | 'gone';
  attempts: number;
}

/** Attempts in total, the first one included (specification, Limits). */
export const WEBHOOK_MAX_ATTEMPTS = 5;

/**
 * The wait after failed attempt n (1-based) before attempt n + 1: 30 s, 2 min, 8 min, 32 min (×4 each
 * time), each spread by ±20 % so receivers that failed together are not retried together. A delivery that
 * fails every time ends about 42 minutes (34–51) after its first attempt.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [30_000, 120_000, 480_000, 1_920_000] as const;
export const WEBHOOK_RETRY_JITTER = 0.2;

/**
 * The delay after failed attempt `attempt`, given a random number in [0, 1). The workflow passes its own
 * `Math.random()`, which Temporal seeds per run, so a replay computes the same delays.
 */
export function webhookRetryDelayMs(attempt: number, random: number): number {
  const base = WEBHOOK_RETRY_DELAYS_MS[Math.min(attempt, WEBHOOK_RETRY_DELAYS_MS.length) - 1];
  if (base === undefined) throw new RangeError(`no retry after attempt ${attempt}`);
  return Math.round(base * (1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * random));
}

/**
 * Options for starting one delivery as a child workflow. The envelope workflow starts one child per
 * (event, endpoint) with these (`startChild(WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions(id))`)
 * after the projection activity has created the delivery rows (db/webhook-deliveries.ts,
 * queueWebhookEventDeliveries). Parent-close policy ABANDON: a delivery keeps retrying after its envelope's
 * workflow has finished (an `envelope.completed` is usually the last thing the parent does). The id
 * `webhook-delivery/<deliveryId>` is never reused, so a delivery runs once.
 */
export function webhookDeliveryChildOptions(deliveryId: string) {
  return {
    workflowId: webhookDeliveryWorkflowId(deliveryId),
    taskQueue: WEBHOOK_TASK_QUEUE,
    args: [{ deliveryId }] as [WebhookDeliveryInput],
    parentClosePolicy: 'ABANDON',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  } satisfies ChildWorkflowOptions & { args: [WebhookDeliveryInput] };
}
