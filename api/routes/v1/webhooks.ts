// /api/v1/webhooks: a test delivery to an endpoint and the replay of a stored delivery (scope
// webhooks.manage, Idempotency-Key honoured). Endpoint management (create, update, delete, rotation) is the
// business app's (`/api/webhooks`, api/trpc/procedures/webhooks.ts) and the operator CLI's (`sigil webhook …`).
import { WebhookDeliveryView } from '../../../domain/webhook.ts';
import { replayWebhookDelivery } from '../../../services/webhooks/replay-webhook-delivery.ts';
import { sendTestDelivery } from '../../../services/webhooks/send-test-delivery.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const deliveryResponses = { 202: WebhookDeliveryView, ...ERROR_RESPONSES };

export const webhooksRoutes: V1Routes = async (app) => {
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
      const delivery = await sendTestDelivery(request.services, organizationId, request.params.id, {
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
      const delivery = await replayWebhookDelivery(request.services, organizationId, request.params.id, {
        requestId: request.id,
      });
      return reply.code(202).send(delivery);
    },
  );
};
