// What the webhook use cases share: the plan check, organization-scoped lookups, the shapes every transport
// shows (endpoints without their secret, deliveries with their attempts), and starting a delivery's
// workflow.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Organization,
  Plan,
  WebhookDelivery,
  type WebhookDeliveryAttempt,
  WebhookEndpoint,
} from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { WebhookDeliveryView, WebhookEndpointView } from '../../domain/webhook.ts';
import { temporalTimeoutMs, withTemporalDeadline } from '../../temporal/deadline.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_TASK_QUEUE,
  type WebhookDeliveryWorkflow,
  webhookDeliveryWorkflowId,
} from '../../workflows/webhook-contracts.ts';
import type { ServiceContext } from '../context.ts';
import { DEPENDENCY_RETRY_AFTER_SECONDS, Forbidden, NotFound, ServiceUnavailable } from '../errors.ts';
import { randomToken } from '../security/secrets.ts';

/** After a rotation the previous secret keeps signing (X-Service-Signature-Previous) for this long. */
export const WEBHOOK_SECRET_GRACE_HOURS = 24;

/** A new endpoint secret: `whsec_` and 256 random bits, base64url. The HMAC key is this whole string. */
export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

/**
 * Webhooks are a plan feature (the specification's billing items): without it an organization cannot
 * create endpoints, send test deliveries or replay deliveries (403), and no lifecycle event is queued.
 */
export async function requireWebhookAccess(em: EntityManager, organizationId: string): Promise<void> {
  const plan = await webhookAccessOf(em, organizationId);
  if (!plan.webhookAccess) {
    throw new Forbidden(
      `Webhooks are not included in the ${plan.name} plan of this organization: upgrade to a plan with ` +
        'webhook access to create endpoints, send test deliveries or replay deliveries.',
      [{ field: 'plan', message: `the ${plan.name} plan has no webhook access` }],
    );
  }
}

/** The organization's plan and whether it includes webhooks (the application's list shows it). */
export async function webhookAccessOf(
  em: EntityManager,
  organizationId: string,
): Promise<{ name: string; webhookAccess: boolean }> {
  const organization = UUID_PATTERN.test(organizationId)
    ? await em.findOne(Organization, { id: organizationId })
    : null;
  if (!organization) throw new NotFound(`Organization ${organizationId} was not found.`);
  const plan = await em.findOneOrFail(Plan, { name: organization.planName });
  return { name: plan.name, webhookAccess: plan.webhookAccess };
}

/** The organization's endpoint; another organization's (or a malformed id) is not found. */
export async function findWebhookEndpoint(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint =
    UUID_PATTERN.test(endpointId) && UUID_PATTERN.test(organizationId)
      ? await em.findOne(WebhookEndpoint, { id: endpointId, organizationId })
      : null;
  if (!endpoint) throw new NotFound(`Webhook endpoint ${endpointId} was not found.`);
  return endpoint;
}

/** The organization's delivery; another organization's (or a malformed id) is not found. */
export async function findWebhookDelivery(
  em: EntityManager,
  organizationId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const delivery =
    UUID_PATTERN.test(deliveryId) && UUID_PATTERN.test(organizationId)
      ? // The worker records attempts: always read what PostgreSQL holds now.
        await em.findOne(WebhookDelivery, { id: deliveryId, organizationId }, { refresh: true })
      : null;
  if (!delivery) throw new NotFound(`Webhook delivery ${deliveryId} was not found.`);
  return delivery;
}

/** The secret's last four characters, so an operator can tell secrets apart without seeing them. */
function hint(secret: string): string {
  return `…${secret.slice(-4)}`;
}

export function webhookEndpointView(endpoint: WebhookEndpoint, now = new Date()): WebhookEndpointView {
  const graceActive =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: [...endpoint.eventTypes],
    enabled: endpoint.enabled,
    secretHint: hint(endpoint.secret),
    previousSecretHint: graceActive && endpoint.previousSecret ? hint(endpoint.previousSecret) : null,
    previousSecretExpiresAt: graceActive ? (endpoint.previousSecretExpiresAt?.toISOString() ?? null) : null,
    secretRotatedAt: endpoint.secretRotatedAt?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function webhookDeliveryView(
  delivery: WebhookDelivery,
  attempts: WebhookDeliveryAttempt[] = [],
): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    endpointUrl: delivery.endpointUrl,
    kind: delivery.kind as 'event' | 'test',
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    eventCreatedAt: delivery.eventCreatedAt.toISOString(),
    status: delivery.status as WebhookDeliveryView['status'],
    attemptCount: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: delivery.lastError ?? null,
    requestId: delivery.requestId ?? null,
    replayOf: delivery.replayOf ?? null,
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    attempts: attempts
      .filter((attempt) => attempt.deliveryId === delivery.id)
      .sort((a, b) => a.attempt - b.attempt)
      .map((attempt) => ({
        attempt: attempt.attempt,
        startedAt: attempt.startedAt.toISOString(),
        durationMs: attempt.durationMs,
        statusCode: attempt.statusCode ?? null,
        error: attempt.error ?? null,
      })),
  };
}

export interface QueueDeliveryInput {
  endpoint: WebhookEndpoint;
  kind: 'event' | 'test';
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  payload: string;
  requestId?: string | null;
  replayOf?: string | null;
}

/** How the API queues a delivery on a caller's behalf (test deliveries and replays). */
export interface QueueDeliveryOptions {
  /** X-Request-Id of the API request, kept on the delivery record. */
  requestId?: string | null;
  /** Only tests change it: a worker of their own. */
  taskQueue?: string;
}

/**
 * Stores a pending delivery and starts its workflow (task queue `webhooks`, id `webhook-delivery/<id>`).
 * When Temporal cannot be reached the row is removed again and the caller gets 503, so no delivery waits
 * forever for a workflow that never started.
 */
export async function queueDelivery(
  ctx: Pick<ServiceContext, 'em' | 'temporal'> & Partial<Pick<ServiceContext, 'config'>>,
  input: QueueDeliveryInput,
  options: { taskQueue?: string } = {},
): Promise<WebhookDelivery> {
  const { em } = ctx;
  const delivery = em.create(WebhookDelivery, {
    id: randomUUID(),
    endpointId: input.endpoint.id,
    organizationId: input.endpoint.organizationId,
    kind: input.kind,
    eventId: input.eventId,
    eventType: input.eventType,
    eventCreatedAt: input.eventCreatedAt,
    payload: input.payload,
    endpointUrl: input.endpoint.url,
    requestId: input.requestId ?? null,
    replayOf: input.replayOf ?? null,
  });
  await em.flush();
  try {
    // Bounded (TEMPORAL_REQUEST_TIMEOUT_MS): an unreachable Temporal answers 503 instead of hanging.
    await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      'queueing a webhook delivery',
      () =>
        ctx.temporal.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
          workflowId: webhookDeliveryWorkflowId(delivery.id),
          taskQueue: options.taskQueue ?? WEBHOOK_TASK_QUEUE,
          args: [{ deliveryId: delivery.id }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        }),
    );
  } catch (error) {
    await em.nativeDelete(WebhookDelivery, { id: delivery.id });
    throw new ServiceUnavailable(
      `The delivery could not be queued: Temporal is not reachable (${error instanceof Error ? error.name : 'error'}). Try again.`,
      [],
      DEPENDENCY_RETRY_AFTER_SECONDS,
    );
  }
  return delivery;
}

/**
 * Queues a delivery of `event` to one of the organization's endpoints on a caller's behalf (a test delivery, a
 * replay), with the request's id, and answers its view.
 */
export async function queueDeliveryFor(
  ctx: Pick<ServiceContext, 'em' | 'temporal'>,
  organizationId: string,
  endpointId: string,
  event: Omit<QueueDeliveryInput, 'endpoint' | 'requestId'>,
  options: QueueDeliveryOptions,
): Promise<WebhookDeliveryView> {
  const endpoint = await findWebhookEndpoint(ctx.em, organizationId, endpointId);
  const delivery = await queueDelivery(
    ctx,
    { endpoint, ...event, requestId: options.requestId ?? null },
    options,
  );
  return webhookDeliveryView(delivery);
}
