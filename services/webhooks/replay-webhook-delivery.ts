// Replays a stored delivery: a new delivery (new X-Service-Delivery id, its own five attempts) of the same
// payload — the same event `id`, type, `created_at` and data — to the endpoint's current URL, signed with
// its current secret. Meant for after an endpoint was fixed; any delivery may be replayed, in any status.

import type { WebhookDeliveryView } from '../../domain/webhook.ts';
import type { ServiceContext } from '../context.ts';
import {
  findWebhookDelivery,
  type QueueDeliveryOptions,
  queueDeliveryFor,
  requireWebhookAccess,
} from './webhook-records.ts';

export async function replayWebhookDelivery(
  ctx: Pick<ServiceContext, 'em' | 'temporal'>,
  organizationId: string,
  deliveryId: string,
  options: QueueDeliveryOptions = {},
): Promise<WebhookDeliveryView> {
  const em = ctx.em;
  await requireWebhookAccess(em, organizationId);
  const original = await findWebhookDelivery(em, organizationId, deliveryId);
  return queueDeliveryFor(
    ctx,
    organizationId,
    original.endpointId,
    {
      kind: original.kind as 'event' | 'test',
      eventId: original.eventId,
      eventType: original.eventType,
      eventCreatedAt: original.eventCreatedAt,
      payload: original.payload,
      replayOf: original.id,
    },
    options,
  );
}
