// The organization's webhook endpoints, oldest first, without their secrets; the application's list adds their
// recent deliveries, who last changed each and which of its events are suspended because that user no longer
// holds what they need (domain/credential-permissions.ts).
import { WebhookEndpoint } from '../../db/entities/index.ts';
import { suspendedEvents } from '../../domain/credential-permissions.ts';
import { isWebhookEventType } from '../../domain/vocabulary.ts';
import {
  WEBHOOK_RECENT_DAYS,
  type WebhookEndpointList,
  type WebhookEndpointView,
} from '../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import { loadChangers } from '../credentials/credential-grants.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { MAX_WEBHOOK_ENDPOINTS } from './create-webhook-endpoint.ts';
import { type DeliveryCounts, deliveryCountsByEndpoint, NO_DELIVERIES } from './delivery-counts.ts';
import { WEBHOOK_SECRET_GRACE_HOURS, webhookAccessOf, webhookEndpointView } from './webhook-records.ts';

export async function listWebhookEndpoints(
  ctx: DataContext,
  organizationId: string,
): Promise<WebhookEndpointView[]> {
  const now = new Date();
  return (await endpointsOf(ctx, organizationId)).map((endpoint) => webhookEndpointView(endpoint, now));
}

async function endpointsOf(ctx: DataContext, organizationId: string): Promise<WebhookEndpoint[]> {
  await findOrganization(ctx, organizationId);
  return ctx.em.find(WebhookEndpoint, { organizationId }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
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
  const endpoints = await endpointsOf(ctx, organizationId);
  const changers = await loadChangers(
    ctx.em,
    endpoints.map((endpoint) => endpoint.changedByUserId ?? null),
  );
  const plan = await webhookAccessOf(ctx.em, organizationId);
  const since = new Date(now.getTime() - WEBHOOK_RECENT_DAYS * 86_400_000);
  const counts =
    endpoints.length === 0
      ? new Map<string, { recent: DeliveryCounts }>()
      : await deliveryCountsByEndpoint(ctx.em, organizationId, { recent: since });
  return {
    endpoints: endpoints.map((endpoint) => {
      const changer = endpoint.changedByUserId ? (changers.get(endpoint.changedByUserId) ?? null) : null;
      return {
        ...webhookEndpointView(endpoint, now),
        recentDeliveries: counts.get(endpoint.id)?.recent ?? NO_DELIVERIES,
        changedBy: changer?.view ?? null,
        suspendedEvents: suspendedEvents(
          endpoint.eventTypes.filter(isWebhookEventType),
          changer?.changer ?? null,
        ).map((suspension) => ({
          eventType: suspension.item,
          reason: suspension.reason,
          permissions: suspension.lacking,
        })),
      };
    }),
    webhookAccess: plan.webhookAccess,
    planName: plan.name,
    secretGraceHours: WEBHOOK_SECRET_GRACE_HOURS,
    maxEndpoints: MAX_WEBHOOK_ENDPOINTS,
  };
}
