// The organization's deliveries, newest first, optionally of one endpoint, event type or status and queued
// within a range of times, a page at a time, each with its attempts.
import { WebhookDelivery, WebhookDeliveryAttempt } from '../../db/entities/index.ts';
import { rangeBound } from '../../domain/common.ts';
import type { WebhookDeliveryStatus } from '../../domain/vocabulary.ts';
import type { WebhookDeliveryList, WebhookDeliveryView } from '../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { findWebhookDelivery, findWebhookEndpoint, webhookDeliveryView } from './webhook-records.ts';

export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 50;
export const WEBHOOK_DELIVERIES_MAX_LIMIT = 500;

export interface WebhookDeliveryFilter {
  endpointId?: string;
  eventType?: string;
  status?: WebhookDeliveryStatus;
  /** Queued at or after this time (ISO 8601). */
  from?: string;
  /** Queued before this time (ISO 8601). */
  to?: string;
  limit?: number;
  /** How many of the newest matching deliveries to skip. */
  offset?: number;
}

export async function listWebhookDeliveries(
  ctx: DataContext,
  organizationId: string,
  filter: WebhookDeliveryFilter = {},
): Promise<WebhookDeliveryView[]> {
  return (await pageWebhookDeliveries(ctx, organizationId, filter)).deliveries;
}

/** A page of the organization's matching deliveries, with how many match in all (the application's log). */
export async function pageWebhookDeliveries(
  ctx: DataContext,
  organizationId: string,
  filter: WebhookDeliveryFilter = {},
): Promise<WebhookDeliveryList> {
  await findOrganization(ctx, organizationId);
  const em = ctx.em;
  if (filter.endpointId !== undefined) await findWebhookEndpoint(em, organizationId, filter.endpointId);
  const limit = Math.max(
    1,
    Math.min(filter.limit ?? WEBHOOK_DELIVERIES_DEFAULT_LIMIT, WEBHOOK_DELIVERIES_MAX_LIMIT),
  );
  const offset = Math.max(0, filter.offset ?? 0);
  const where = {
    organizationId,
    ...(filter.endpointId !== undefined ? { endpointId: filter.endpointId } : {}),
    ...(filter.eventType !== undefined ? { eventType: filter.eventType } : {}),
    ...(filter.status !== undefined ? { status: filter.status } : {}),
    ...(filter.from !== undefined || filter.to !== undefined
      ? {
          createdAt: {
            ...(filter.from !== undefined ? { $gte: rangeBound(filter.from) } : {}),
            ...(filter.to !== undefined ? { $lt: rangeBound(filter.to) } : {}),
          },
        }
      : {}),
  };
  const [deliveries, total] = await em.findAndCount(WebhookDelivery, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit,
    offset,
    // The worker records attempts: always read what PostgreSQL holds now.
    refresh: true,
  });
  const attempts =
    deliveries.length === 0
      ? []
      : await em.find(WebhookDeliveryAttempt, { deliveryId: { $in: deliveries.map((d) => d.id) } });
  return {
    deliveries: deliveries.map((delivery) => webhookDeliveryView(delivery, attempts)),
    total,
    nextOffset: offset + deliveries.length < total ? offset + deliveries.length : null,
  };
}

/** One delivery of the organization with its attempts. */
export async function getWebhookDelivery(
  ctx: DataContext,
  organizationId: string,
  deliveryId: string,
): Promise<WebhookDeliveryView> {
  const em = ctx.em;
  const delivery = await findWebhookDelivery(em, organizationId, deliveryId);
  const attempts = await em.find(WebhookDeliveryAttempt, { deliveryId: delivery.id });
  return webhookDeliveryView(delivery, attempts);
}
