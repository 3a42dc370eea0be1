// The organization's webhook endpoints, oldest first, without their secrets.
import { WebhookEndpoint } from '../../../db/entities/index.ts';
import type { WebhookEndpointView } from '../../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { webhookEndpointView } from './webhook-records.ts';

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
