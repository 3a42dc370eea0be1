// Creates a webhook endpoint: a target URL (see webhook-url.ts), the event types it subscribes to (none:
// all) and a new secret, returned once. Webhooks must be part of the organization's plan. A user subscribes it
// only to events their role could read (403 naming them, domain/credential-permissions.ts) and is recorded as its
// last changer, whose permissions bound what it receives from then on (db/webhook-deliveries.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config/config.ts';
import type { HostResolver } from '../../config/outbound-targets.ts';
import { WebhookEndpoint } from '../../db/entities/index.ts';
import { CreateWebhookEndpointRequest, type WebhookEndpointView } from '../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import {
  type ApiKeyActor,
  type CredentialActor,
  requireGrantableEvents,
} from '../credentials/credential-grants.ts';
import { type CountedLimit, withinCountedLimit } from '../usage/counted-limit.ts';
import { parseInput } from '../validation.ts';
import { newWebhookSecret, requireWebhookAccess, webhookEndpointView } from './webhook-records.ts';
import { validateWebhookUrl } from './webhook-url.ts';

export const MAX_WEBHOOK_ENDPOINTS = 20;

/** An organization's webhook endpoints, at most MAX_WEBHOOK_ENDPOINTS (409 `webhook_endpoint_limit`). */
const WEBHOOK_ENDPOINT_LIMIT = (organizationId: string): CountedLimit => ({
  what: 'webhook endpoints',
  max: MAX_WEBHOOK_ENDPOINTS,
  code: 'webhook_endpoint_limit',
  remedy: 'delete one first',
  count: (tx) => tx.count(WebhookEndpoint, { organizationId }),
});

/** Creating and changing endpoints needs the environment (URL rules) and, in tests, a host resolver. */
export interface WebhookConfigContext extends DataContext {
  config: Pick<Config, 'env'>;
  resolveHost?: HostResolver;
}

const CreateWebhookEndpointInput = CreateWebhookEndpointRequest.extend({ organizationId: z.string() });
export type CreateWebhookEndpointInput = z.input<typeof CreateWebhookEndpointInput>;

export interface CreatedWebhookEndpoint extends WebhookEndpointView {
  /** Shown only now. */
  secret: string;
}

export async function createWebhookEndpoint(
  ctx: WebhookConfigContext,
  input: CreateWebhookEndpointInput,
  actor?: CredentialActor | ApiKeyActor,
): Promise<CreatedWebhookEndpoint> {
  const data = parseInput(CreateWebhookEndpointInput, input, 'webhook endpoint');
  // Nobody subscribes an endpoint to events they could not read (an empty list: every event).
  requireGrantableEvents(actor, data.eventTypes);
  const em = ctx.em;
  await requireWebhookAccess(em, data.organizationId);
  const url = await validateWebhookUrl(data.url, ctx.config.env, ctx.resolveHost);
  const secret = newWebhookSecret();
  // Counted and created under the organization's lock: endpoints created at once cannot pass the limit together.
  const endpoint = await withinCountedLimit(
    em,
    data.organizationId,
    WEBHOOK_ENDPOINT_LIMIT(data.organizationId),
    async (tx) => {
      const created = tx.create(WebhookEndpoint, {
        id: randomUUID(),
        organizationId: data.organizationId,
        url,
        eventTypes: data.eventTypes,
        enabled: data.enabled,
        changedByUserId: actor?.userId ?? null,
        secret,
      });
      await tx.flush();
      return created;
    },
  );
  return { ...webhookEndpointView(endpoint), secret };
}
