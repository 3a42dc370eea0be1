// /api/v1/webhooks: a test delivery to an endpoint and the replay of a stored delivery (scope
// webhooks.manage, Idempotency-Key honoured). Endpoint management (create, update, delete, rotation) is the
// operator CLI's for now (`sigil webhook …`): its application routes need the web app's sign-in.
import { z } from 'zod';
import { principalOf } from '../../auth/principal.ts';
import { replayWebhookDelivery } from '../../services/webhooks/replay-webhook-delivery.ts';
import { sendTestDelivery } from '../../services/webhooks/send-test-delivery.ts';
import { ERROR_RESPONSES, IsoDateTime, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

export const WebhookDeliveryResponse = z
  .object({
    id: z.uuid().describe('The delivery id, sent as X-Service-Delivery on every attempt; new for a replay'),
    endpointId: z.uuid(),
    endpointUrl: z.string().describe('Where the delivery goes (the endpoint URL at its last attempt)'),
    kind: z.enum(['event', 'test']).describe('`event`: a lifecycle event; `test`: a sample event'),
    eventId: z.string().describe('The payload `id`: the same for a delivery and its replays'),
    eventType: z.string().describe('The event name, sent as X-Service-Event'),
    eventCreatedAt: IsoDateTime,
    status: z.enum(['pending', 'succeeded', 'failed']),
    attemptCount: z.number().int().describe('Attempts so far, at most 5'),
    lastStatusCode: z.number().int().nullable().describe('HTTP status of the last attempt'),
    lastError: z
      .string()
      .nullable()
      .describe('Why the last attempt failed, redacted: no secret, at most a 200-character response excerpt'),
    requestId: z.string().nullable().describe('X-Request-Id of the request that queued the delivery'),
    replayOf: z.uuid().nullable().describe('The delivery this one replays'),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    lastAttemptAt: IsoDateTime.nullable(),
    nextAttemptAt: IsoDateTime.nullable().describe('When the next attempt is due, while pending'),
    deliveredAt: IsoDateTime.nullable().describe('When a 2xx acknowledged it'),
    attempts: z.array(
      z.object({
        attempt: z.number().int(),
        startedAt: IsoDateTime,
        durationMs: z.number().int(),
        statusCode: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'WebhookDelivery' });

const deliveryResponses = { 202: WebhookDeliveryResponse, ...ERROR_RESPONSES };

export const webhooksRoutes: V1Routes = async (app, deps) => {
  const ctx = () => {
    if (!deps.temporal.client) throw new Error('the API needs a Temporal client for webhook deliveries');
    return { orm: deps.orm, temporal: deps.temporal.client };
  };

  app.post(
    '/webhooks/:id/test',
    {
      config: { scope: 'webhooks.manage', idempotent: true },
      schema: {
        summary: 'Send a test delivery to a webhook endpoint',
        description:
          'Queues a signed sample `envelope.completed` event (data `envelope_id` ' +
          '00000000-0000-4000-8000-000000000000, `status`, `external_reference`, `test: true`; no real ' +
          'envelope or recipient) to the endpoint, delivered like any event: up to 5 attempts. Answers 202 ' +
          'with the pending delivery; follow it in the delivery records. 403 when the plan has no webhook ' +
          'access. No body; honours Idempotency-Key.',
        tags: ['webhooks'],
        params: UuidParam,
        response: deliveryResponses,
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const delivery = await sendTestDelivery(ctx(), organizationId, request.params.id, {
        requestId: request.id,
      });
      return reply.code(202).send(delivery);
    },
  );

  app.post(
    '/webhooks/deliveries/:id/replay',
    {
      config: { scope: 'webhooks.manage', idempotent: true },
      schema: {
        summary: 'Replay a stored webhook delivery',
        description:
          'Queues a new delivery (new X-Service-Delivery id, up to 5 attempts of its own) of the same payload ' +
          '(same event `id`) to the endpoint’s current URL, signed with its current secret — for example ' +
          'after the endpoint was fixed. Answers 202 with the new pending delivery. 403 when the plan has no ' +
          'webhook access. No body; honours Idempotency-Key.',
        tags: ['webhooks'],
        params: UuidParam,
        response: deliveryResponses,
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const delivery = await replayWebhookDelivery(ctx(), organizationId, request.params.id, {
        requestId: request.id,
      });
      return reply.code(202).send(delivery);
    },
  );
};
