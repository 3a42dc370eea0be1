// The organization's webhook endpoints, oldest first, without their secrets.
import { WebhookEndpoint } from '../../../db/entities/index.ts';
import {
  WEBHOOK_RECENT_DAYS,
  type WebhookEndpointList,
  type WebhookEndpointView,
} from '../../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { MAX_WEBHOOK_ENDPOINTS } from './create-webhook-endpoint.ts';
import { type DeliveryCounts, deliveryCountsByEndpoint, NO_DELIVERIES } from './delivery-counts.ts';
import { WEBHOOK_SECRET_GRACE_HOURS, webhookAccessOf, webhookEndpointView } from './webhook-records.ts';

export async function listWebhookEndpoints(
  ctx: DataContext,
  organizationId: string,
): Promise<WebhookEndpointView[]> {
  await findOrganization(ctx, organizationId);
  const endpoints = await ctx.em.find(
    WebhookEndpoint,
    { organizationId },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
  const now = new Date();
  return endpoints.map((endpoint) => webhookEndpointView(endpoint, now));
}

/**
 * The application's list: the endpoints, each with its deliveries of the last WEBHOOK_RECENT_DAYS days by
 * status (delivery-counts.ts; the page shows a success rate), and whether the plan includes webhooks at all.
 */
export async function listWebhookEndpointsWithActivity(
  ctx: DataContext,
  organizationId: string,
  now = new Date(),
): Promise<WebhookEndpointList> {
  const endpoints = await listWebhookEndpoints(ctx, organizationId);
  const plan = await webhookAccessOf(ctx.em, organizationId);
  const since = new Date(now.getTime() - WEBHOOK_RECENT_DAYS * 86_400_000);
  const counts =
    endpoints.length === 0
      ? new Map<string, { recent: DeliveryCounts }>()
      : await deliveryCountsByEndpoint(ctx.em, organizationId, { recent: since });
  return {
    endpoints: endpoints.map((endpoint) => ({
      ...endpoint,
      recentDeliveries: counts.get(endpoint.id)?.recent ?? NO_DELIVERIES,
    })),
    webhookAccess: plan.webhookAccess,
    planName: plan.name,
    secretGraceHours: WEBHOOK_SECRET_GRACE_HOURS,
    maxEndpoints: MAX_WEBHOOK_ENDPOINTS,
  };
}
