// Secret rotation: the endpoint gets a new secret, returned once. The secret it had keeps signing for
// WEBHOOK_SECRET_GRACE_HOURS (each delivery then carries X-Service-Signature with the new secret and
// X-Service-Signature-Previous with the old one), so a receiver can switch without losing deliveries. A
// second rotation within the grace period replaces the previous secret with the one just retired. A user must
// be able to read the endpoint's events (403 naming them, as when creating it).
import { LockMode } from '@mikro-orm/core';
import { isWebhookEventType } from '../../domain/vocabulary.ts';
import type { WebhookEndpointView } from '../../domain/webhook.ts';
import type { DataContext } from '../context.ts';
import {
  type ApiKeyActor,
  type CredentialActor,
  requireGrantableEvents,
} from '../credentials/credential-grants.ts';
import {
  findWebhookEndpoint,
  newWebhookSecret,
  WEBHOOK_SECRET_GRACE_HOURS,
  webhookEndpointView,
} from './webhook-records.ts';

export interface RotatedWebhookSecret extends WebhookEndpointView {
  /** Shown only now. */
  secret: string;
}

export async function rotateWebhookSecret(
  ctx: DataContext,
  organizationId: string,
  endpointId: string,
  options: { now?: Date; actor?: CredentialActor | ApiKeyActor } = {},
): Promise<RotatedWebhookSecret> {
  const now = options.now ?? new Date();
  const secret = newWebhookSecret();
  return ctx.em.transactional(async (em) => {
    const found = await findWebhookEndpoint(em, organizationId, endpointId);
    // Only someone who could read the endpoint's events holds its secret.
    requireGrantableEvents(options.actor, found.eventTypes.filter(isWebhookEventType));
    // Concurrent rotations of one endpoint take turns, so each retires the secret the other installed.
    await em.lock(found, LockMode.PESSIMISTIC_WRITE);
    await em.refresh(found);
    found.previousSecret = found.secret;
    found.previousSecretExpiresAt = new Date(now.getTime() + WEBHOOK_SECRET_GRACE_HOURS * 3600_000);
    found.secretRotatedAt = now;
    found.secret = secret;
    await em.flush();
    return { ...webhookEndpointView(found, now), secret };
  });
}
