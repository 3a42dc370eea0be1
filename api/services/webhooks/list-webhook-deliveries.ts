// The organization's deliveries, newest first, optionally of one endpoint, each with its attempts.
import { WebhookDelivery, WebhookDeliveryAttempt } from '../../../db/entities/index.ts';
import type { WebhookDeliveryView } from '../../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { findWebhookDelivery, findWebhookEndpoint, webhookDeliveryView } from './webhook-records.ts';

export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 50;
export const WEBHOOK_DELIVERIES_MAX_LIMIT = 500;

export interface WebhookDeliveryFilter {
  endpointId?: string;
  limit?: number;
}

export async function listWebhookDeliveries(
  ctx: DataContext,
  organizationId: string,
  filter: WebhookDeliveryFilter = {},
): Promise<WebhookDeliveryView[]> {
  await findOrganization(ctx, organizationId);
  const em = ctx.em;
  if (filter.endpointId !== undefined) await findWebhookEndpoint(em, organizationId, filter.endpointId);
  const limit = Math.max(
    1,
    Math.min(filter.limit ?? WEBHOOK_DELIVERIES_DEFAULT_LIMIT, WEBHOOK_DELIVERIES_MAX_LIMIT),
  );
  const deliveries = await em.find(
    WebhookDelivery,
    { organizationId, ...(filter.endpointId !== undefined ? { endpointId: filter.endpointId } : {}) },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit },
  );
  const attempts =
    deliveries.length === 0
      ? []
      : await em.find(WebhookDeliveryAttempt, { deliveryId: { $in: deliveries.map((d) => d.id) } });
  return deliveries.map((delivery) => webhookDeliveryView(delivery, attempts));
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
