// A test delivery: a signed sample `envelope.completed` event (no real envelope, nobody contacted) sent to
// the endpoint through the ordinary delivery workflow, with its retries. Returns the queued delivery.
import { randomUUID } from 'node:crypto';
import { webhookPayloadBody } from '../../db/webhook-deliveries.ts';
import type { WebhookDeliveryView } from '../../domain/webhook.ts';
import type { WebhookEvent } from '../../workflows/webhook-contracts.ts';
import type { ServiceContext } from '../context.ts';
import { type QueueDeliveryOptions, queueDeliveryFor, requireWebhookAccess } from './webhook-records.ts';

/** The envelope id of every test event: no envelope has it. */
export const TEST_EVENT_ENVELOPE_ID = '00000000-0000-4000-8000-000000000000';

export function testEvent(now = new Date()): WebhookEvent {
  return {
    id: randomUUID(),
    type: 'envelope.completed',
    created_at: now.toISOString(),
    data: {
      envelope_id: TEST_EVENT_ENVELOPE_ID,
      status: 'Completed',
      external_reference: 'sigil-test-delivery',
      test: true,
    },
  };
}

export async function sendTestDelivery(
  ctx: Pick<ServiceContext, 'em' | 'temporal'>,
  organizationId: string,
  endpointId: string,
  options: QueueDeliveryOptions = {},
): Promise<WebhookDeliveryView> {
  const em = ctx.em;
  await requireWebhookAccess(em, organizationId);
  const event = testEvent();
  return queueDeliveryFor(
    ctx,
    organizationId,
    endpointId,
    {
      kind: 'test',
      eventId: event.id,
      eventType: event.type,
      eventCreatedAt: new Date(event.created_at),
      payload: webhookPayloadBody(event),
    },
    options,
  );
}
