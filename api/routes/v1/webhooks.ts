// /api/v1/webhooks: an integration manages its organization's webhook endpoints (list, create, change, delete,
// secret rotation), reads the delivery records (filtered, a page at a time), sends test deliveries and replays
// deliveries — scope webhooks.manage, through the same use cases as the business app (`/api/webhooks`,
// api/trpc/procedures/webhooks.ts) and the operator CLI (`sigil webhook …`), so the same rules hold: the plan's
// webhook access, at most 20 endpoints, the URL checks, the secret shown once, the rotation's grace period. An API
// key subscribes an endpoint only to events its token's scopes could read, and what it saves answers to the key's
// last changer (services/credentials/credential-grants.ts, ApiKeyActor). Idempotency-Key: test and replay, as the
// specification lists; create and rotate answer a secret, which is never stored to be answered again.
// X-Service-Sandbox is ignored here (docs/api.md, "Sandbox"): endpoints are the organization's one configuration.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookDeliveryView,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from '../../../domain/webhook.ts';
import type { ApiKeyActor } from '../../../services/credentials/credential-grants.ts';
import {
  createWebhookEndpoint,
  MAX_WEBHOOK_ENDPOINTS,
} from '../../../services/webhooks/create-webhook-endpoint.ts';
import { deleteWebhookEndpoint } from '../../../services/webhooks/delete-webhook-endpoint.ts';
import {
  getWebhookDelivery,
  pageWebhookDeliveries,
} from '../../../services/webhooks/list-webhook-deliveries.ts';
import { listWebhookEndpointsWithActivity } from '../../../services/webhooks/list-webhook-endpoints.ts';
import { replayWebhookDelivery } from '../../../services/webhooks/replay-webhook-delivery.ts';
import { rotateWebhookSecret } from '../../../services/webhooks/rotate-webhook-secret.ts';
import { sendTestDelivery } from '../../../services/webhooks/send-test-delivery.ts';
import { updateWebhookEndpoint } from '../../../services/webhooks/update-webhook-endpoint.ts';
import { WEBHOOK_SECRET_GRACE_HOURS } from '../../../services/webhooks/webhook-records.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const deliveryResponses = { 202: WebhookDeliveryView, ...ERROR_RESPONSES };

const DeletedWebhookEndpoint = z.object({ id: z.uuid(), deleted: z.literal(true) }).meta({
  id: 'DeletedWebhookEndpoint',
  example: { id: '3f0c2a9e-5b7d-4c1e-9a8f-2d6b4e1c7a05', deleted: true },
});

const SCOPE_RULE =
  'An API key may subscribe an endpoint only to events its token’s scopes could read: every event needs ' +
  '`envelopes.read` (an empty list means every event), else 403 `forbidden` with `details[]` naming ' +
  '`eventType` and `scope`. The endpoint answers to the user who last changed the key, as the key does.';
const SANDBOX_IGNORED =
  'X-Service-Sandbox is ignored: endpoints and their deliveries are the organization’s one configuration (no ' +
  'envelope or recipient is involved).';

/** The calling key as the use cases see who saves an endpoint. */
function keyActor(request: FastifyRequest): ApiKeyActor {
  const principal = principalOf(request);
  return {
    userId: principal.changedByUserId ?? null,
    scopes: principal.scopes,
    clientId: principal.clientId,
  };
}

export const webhooksRoutes: V1Routes = async (app) => {
  app.get(
    '/webhooks',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List the webhook endpoints',
        description:
          'Oldest first, without their secrets (`secretHint`: the last four characters), each with its ' +
          'deliveries of the last 7 days by status, who last changed it and which of its events are suspended; ' +
          '`webhookAccess` says whether the plan includes webhooks, `maxEndpoints` how many endpoints it may have. ' +
          SANDBOX_IGNORED,
        tags: ['webhooks'],
        response: { 200: WebhookEndpointList, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      listWebhookEndpointsWithActivity(request.services, principalOf(request).organizationId),
  );

  app.post(
    '/webhooks',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description:
          'An https URL on a public address (at most 2,048 characters; no user name, password or fragment) and ' +
          'the event types it receives (none or `[]`: every event). 201 with the endpoint and its signing ' +
          '`secret`, shown only in this answer: keep it (a lost one is replaced by rotating). 400 naming the ' +
          `field; 403 when the plan has no webhook access; 409 \`webhook_endpoint_limit\` at ${MAX_WEBHOOK_ENDPOINTS} ` +
          `endpoints. ${SCOPE_RULE} Idempotency-Key is not honoured (the secret is never stored to be answered ` +
          `again): after a timeout, list the endpoints and rotate the secret of the one created. ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        body: CreateWebhookEndpointRequest,
        response: { 201: WebhookEndpointWithSecret, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const endpoint = await createWebhookEndpoint(
        request.services,
        { ...request.body, organizationId: principalOf(request).organizationId },
        keyActor(request),
      );
      return reply.code(201).send(endpoint);
    },
  );

  app.put(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint',
        description:
          'Any of `url` (checked as at creation), `eventTypes` (`[]`: every event) and `enabled`; what is left ' +
          'out stays (400 when nothing is given). Queued deliveries go to the new URL from their next attempt; a ' +
          `disabled endpoint receives nothing until enabled again. ${SCOPE_RULE} Another organization’s ` +
          `endpoint is 404. ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        params: UuidParam,
        body: UpdateWebhookEndpointRequest,
        response: { 200: WebhookEndpoint, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      updateWebhookEndpoint(
        request.services,
        {
          ...request.body,
          organizationId: principalOf(request).organizationId,
          endpointId: request.params.id,
        },
        keyActor(request),
      ),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description:
          'With its secret and its delivery records; deliveries waiting for a retry stop. Another ' +
          `organization’s endpoint, or one already deleted, is 404. ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        params: UuidParam,
        response: { 200: DeletedWebhookEndpoint, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      deleteWebhookEndpoint(request.services, principalOf(request).organizationId, request.params.id),
  );

  app.post(
    '/webhooks/:id/secret/rotate',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate a webhook endpoint’s signing secret',
        description:
          'A new secret, shown only in this answer, signs every delivery from now on. The previous one keeps ' +
          `signing for ${WEBHOOK_SECRET_GRACE_HOURS} hours as well (header X-Service-Signature-Previous), so the ` +
          'receiver can switch without losing a delivery (`previousSecretExpiresAt` says until when). The key ' +
          'must hold the scope of every event the endpoint receives (403 otherwise). No body; Idempotency-Key ' +
          `is not honoured (a retry rotates again; the last answer’s secret is the current one). ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        params: UuidParam,
        response: { 200: WebhookEndpointWithSecret, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      rotateWebhookSecret(request.services, principalOf(request).organizationId, request.params.id, {
        actor: keyActor(request),
      }),
  );

  app.get(
    '/webhooks/deliveries',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries',
        description:
          'Newest first, optionally of one endpoint (`endpointId`; another organization’s is 404), event type, ' +
          'status, and queued within `from` (inclusive) and `to` (exclusive); a page of `limit` (1 to 200, ' +
          'default 50) from `offset` (the previous page’s `nextOffset`), with `total` matching. Each with its ' +
          `endpoint URL, event, status, last HTTP status, attempts, request id, times and redacted last error. ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        querystring: WebhookDeliveryListQuery,
        response: { 200: WebhookDeliveryList, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      pageWebhookDeliveries(request.services, principalOf(request).organizationId, request.query),
  );

  app.get(
    '/webhooks/deliveries/:id',
    {
      config: { scope: 'webhooks.manage' },
      schema: {
        operationId: 'getWebhookDelivery',
        summary: 'One webhook delivery with every attempt',
        description:
          'Each attempt with its time, duration, HTTP status and redacted error. Another organization’s ' +
          `delivery is 404. ${SANDBOX_IGNORED}`,
        tags: ['webhooks'],
        params: UuidParam,
        response: { 200: WebhookDeliveryView, ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      getWebhookDelivery(request.services, principalOf(request).organizationId, request.params.id),
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { scope: 'webhooks.manage', idempotent: true },
      schema: {
        operationId: 'sendWebhookTest',
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
        operationId: 'replayWebhookDelivery',
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
