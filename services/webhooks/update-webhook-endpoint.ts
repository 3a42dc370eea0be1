// Changes an endpoint's URL (checked as at creation), event types or enabled flag. Deliveries already
// queued go to the new URL from their next attempt; disabling stops retries of queued lifecycle events. A user
// may change only an endpoint whose events (as saved) they could read, and becomes its last changer.
import { z } from 'zod';
import { isWebhookEventType, type WebhookEventType } from '../../domain/vocabulary.ts';
import { UpdateWebhookEndpointRequest, type WebhookEndpointView } from '../../domain/webhook.ts';
import {
  type ApiKeyActor,
  type CredentialActor,
  requireGrantableEvents,
} from '../credentials/credential-grants.ts';
import { InvalidRequest } from '../errors.ts';
import { parseInput } from '../validation.ts';
import type { WebhookConfigContext } from './create-webhook-endpoint.ts';
import { findWebhookEndpoint, webhookEndpointView } from './webhook-records.ts';
import { validateWebhookUrl } from './webhook-url.ts';

const UpdateWebhookEndpointInput = UpdateWebhookEndpointRequest.extend({
  organizationId: z.string(),
  endpointId: z.string(),
});
export type UpdateWebhookEndpointInput = z.input<typeof UpdateWebhookEndpointInput>;

export async function updateWebhookEndpoint(
  ctx: WebhookConfigContext,
  input: UpdateWebhookEndpointInput,
  actor?: CredentialActor | ApiKeyActor,
): Promise<WebhookEndpointView> {
  const data = parseInput(UpdateWebhookEndpointInput, input, 'webhook endpoint');
  if (data.url === undefined && data.eventTypes === undefined && data.enabled === undefined) {
    throw new InvalidRequest('Nothing to change: give a url, eventTypes or enabled.');
  }
  const { em } = ctx;
  const endpoint = await findWebhookEndpoint(em, data.organizationId, data.endpointId);
  // The endpoint as saved must receive only what its saver could read — whatever the change: moving the URL of
  // an endpoint that receives envelope events moves those events too.
  requireGrantableEvents(
    actor,
    (data.eventTypes ?? endpoint.eventTypes.filter(isWebhookEventType)) as WebhookEventType[],
  );
  endpoint.changedByUserId = actor?.userId ?? null;
  if (data.url !== undefined)
    endpoint.url = await validateWebhookUrl(data.url, ctx.config.env, ctx.resolveHost);
  if (data.eventTypes !== undefined) endpoint.eventTypes = data.eventTypes;
  if (data.enabled !== undefined) endpoint.enabled = data.enabled;
  await em.flush();
  return webhookEndpointView(endpoint);
}
