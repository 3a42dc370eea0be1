// Deletes an endpoint with its secret and its delivery records. Deliveries waiting for a retry stop at their
// next attempt (their workflow finds nothing to deliver).
import type { DataContext } from '../context.ts';
import { findWebhookEndpoint } from './webhook-records.ts';

export async function deleteWebhookEndpoint(
  ctx: DataContext,
  organizationId: string,
  endpointId: string,
): Promise<{ id: string; deleted: true }> {
  const em = ctx.em;
  const endpoint = await findWebhookEndpoint(em, organizationId, endpointId);
  await em.remove(endpoint).flush();
  return { id: endpointId, deleted: true };
}
