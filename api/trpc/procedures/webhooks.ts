// Webhooks in the business application (docs/webhooks.md, "Webhooks in the business app"): the organization's
// endpoints, their signing secrets (shown once, at creation and rotation), test deliveries and the delivery
// log with replays. The same services as the operator CLI (`sigil webhook …`) and /api/v1. Reading needs
// integrations:read, changing integrations:manage.
import { Ok } from '../../../domain/account.ts';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookDeliveryView,
  WebhookEndpointList,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
} from '../../../domain/webhook.ts';
import type { CredentialActor } from '../../../services/credentials/credential-grants.ts';
import { createWebhookEndpoint } from '../../../services/webhooks/create-webhook-endpoint.ts';
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
import { type AppContext, areaRoute, principalOf, procedure, router, thenOk } from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('webhooks');
const READ = 'integrations:read';
const MANAGE = 'integrations:manage';
const organizationOf = (ctx: AppContext) => principalOf(ctx).organization.id;
/** The signed-in user as the creator or changer of an endpoint: its events are bounded by their role. */
const actorOf = (ctx: AppContext): CredentialActor => ({
  userId: principalOf(ctx).user.id,
  permissions: principalOf(ctx).permissions,
});

const NO_ENDPOINT = 'No such webhook endpoint in this organization';
const NO_DELIVERY = 'No such webhook delivery in this organization';
const NO_PLAN =
  'The organization’s plan has no webhook access (`forbidden`, details name `plan`), or the role lacks ' +
  'integrations:manage';
const BEYOND_ROLE =
  'The role lacks integrations:manage (or MFA enrolment comes first); or the endpoint receives an event whose ' +
  'permissions the caller’s role lacks (an empty list: every event; `details[]`: `eventType`, `permission`)';
const TEMPORAL_DOWN =
  'The delivery could not be queued (Temporal unreachable); nothing was stored, try again';

export const webhooksRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/webhooks', {
        summary: "The organization's webhook endpoints",
        description:
          'Oldest first, without their secrets (the last four characters only), each with its deliveries of ' +
          'the last 7 days by status, who last changed it and which of its events are suspended; ' +
          '`webhookAccess` says whether the plan includes webhooks at all.',
        access: READ,
      }),
    )
    .output(WebhookEndpointList)
    .query(({ ctx }) => listWebhookEndpointsWithActivity(ctx.services, organizationOf(ctx))),

  create: procedure
    .meta(
      route('POST', '/api/webhooks', {
        summary: 'Add a webhook endpoint',
        description:
          'An https URL (http and private addresses only outside production) and the event types it ' +
          'receives (none: every event). The answer carries the signing secret, shown only this once.',
        access: MANAGE,
        errors: {
          403: `${NO_PLAN}; or ${BEYOND_ROLE}`,
          409: 'The organization already has the most endpoints allowed (20)',
        },
      }),
    )
    .input(CreateWebhookEndpointRequest)
    .output(WebhookEndpointWithSecret)
    .mutation(({ ctx, input }) =>
      createWebhookEndpoint(ctx.services, { ...input, organizationId: organizationOf(ctx) }, actorOf(ctx)),
    ),

  update: procedure
    .meta(
      route('PUT', '/api/webhooks/{id}', {
        summary: 'Change a webhook endpoint',
        description:
          'Any of the URL (checked as at creation), the event types (empty: every event) and `enabled`; what is ' +
          'left out stays. A disabled endpoint receives nothing until enabled again. The endpoint as saved must ' +
          'receive only events the caller could read; the caller becomes its last changer, so saving one whose ' +
          'events were suspended (`suspendedEvents`) makes them arrive again.',
        access: MANAGE,
        errors: { 403: BEYOND_ROLE, 404: NO_ENDPOINT },
      }),
    )
    .input(UpdateWebhookEndpointRequest.extend(IdParams.shape))
    .output(WebhookEndpointView)
    .mutation(({ ctx, input }) => {
      const { id, ...fields } = input;
      return updateWebhookEndpoint(
        ctx.services,
        { ...fields, organizationId: organizationOf(ctx), endpointId: id },
        actorOf(ctx),
      );
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/webhooks/{id}', {
        summary: 'Delete a webhook endpoint',
        description: 'With its secret and its delivery records; deliveries waiting for a retry stop.',
        access: MANAGE,
        errors: { 404: NO_ENDPOINT },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteWebhookEndpoint(ctx.services, organizationOf(ctx), input.id))),

  rotateSecret: procedure
    .meta(
      route('POST', '/api/webhooks/{id}/secret/rotate', {
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          `A new secret, shown only in this answer, signs every delivery from now on. The previous one keeps ` +
          `signing for ${WEBHOOK_SECRET_GRACE_HOURS} hours as well (X-Service-Signature-Previous), so the ` +
          'receiver can switch without losing a delivery (`previousSecretExpiresAt` says until when).',
        access: MANAGE,
        errors: { 403: BEYOND_ROLE, 404: NO_ENDPOINT },
      }),
    )
    .input(IdParams)
    .output(WebhookEndpointWithSecret)
    .mutation(({ ctx, input }) =>
      rotateWebhookSecret(ctx.services, organizationOf(ctx), input.id, { actor: actorOf(ctx) }),
    ),

  test: procedure
    .meta(
      route('POST', '/api/webhooks/{id}/test', {
        summary: 'Send a test delivery to a webhook endpoint',
        description:
          'Queues a signed sample `envelope.completed` event (`data.test` true, no real envelope) delivered ' +
          'like any event, up to 5 attempts. Answers the pending delivery; follow it in the delivery log.',
        access: MANAGE,
        idempotent: true,
        errors: { 403: NO_PLAN, 404: NO_ENDPOINT, 503: TEMPORAL_DOWN },
      }),
    )
    .input(IdParams)
    .output(WebhookDeliveryView)
    .mutation(({ ctx, input }) =>
      sendTestDelivery(ctx.services, organizationOf(ctx), input.id, { requestId: ctx.requestId }),
    ),

  deliveries: procedure
    .meta(
      route('GET', '/api/webhooks/deliveries', {
        summary: "The organization's webhook deliveries, newest first",
        description:
          'Optionally of one endpoint (`endpointId`), event type (`eventType`), status (`status`) and queued ' +
          'within `from` (inclusive) and `to` (exclusive), ' +
          '`limit` (1 to 200, default 50) from `offset`. Each with its endpoint URL, event, status, last HTTP ' +
          'status, attempt count, request id, times and redacted last error.',
        access: READ,
        errors: { 404: NO_ENDPOINT },
      }),
    )
    .input(WebhookDeliveryListQuery)
    .output(WebhookDeliveryList)
    .query(({ ctx, input }) => pageWebhookDeliveries(ctx.services, organizationOf(ctx), input)),

  delivery: procedure
    .meta(
      route('GET', '/api/webhooks/deliveries/{id}', {
        summary: 'One webhook delivery with every attempt',
        description:
          'Each attempt with its time, duration, HTTP status and redacted error (at most a 200-character ' +
          'excerpt of the response, secrets removed).',
        access: READ,
        errors: { 404: NO_DELIVERY },
      }),
    )
    .input(IdParams)
    .output(WebhookDeliveryView)
    .query(({ ctx, input }) => getWebhookDelivery(ctx.services, organizationOf(ctx), input.id)),

  replay: procedure
    .meta(
      route('POST', '/api/webhooks/deliveries/{id}/replay', {
        summary: 'Replay a webhook delivery',
        description:
          'A new delivery (new X-Service-Delivery id, 5 attempts of its own) of the same payload to the ' +
          'endpoint’s current URL, signed with its current secret — for after the receiver was fixed.',
        access: MANAGE,
        idempotent: true,
        errors: { 403: NO_PLAN, 404: NO_DELIVERY, 503: TEMPORAL_DOWN },
      }),
    )
    .input(IdParams)
    .output(WebhookDeliveryView)
    .mutation(({ ctx, input }) =>
      replayWebhookDelivery(ctx.services, organizationOf(ctx), input.id, { requestId: ctx.requestId }),
    ),
});
