// A webhook endpoint's and a delivery's shape, once: what a caller may set on an endpoint (create, update)
// and how endpoints and deliveries are shown (the public API's WebhookDelivery, the CLI, the application).
import { z } from 'zod';
import { CredentialChangerView, SuspendedEventView } from './api-key.ts';
import { IsoDateTime, offsetPage, safeText, uuidOf } from './common.ts';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from './vocabulary.ts';

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export const WebhookUrl = safeText().trim().min(1, 'url is required').max(WEBHOOK_URL_MAX_LENGTH);

/**
 * Event names of the specification. An empty list (or none given at creation) subscribes to every event,
 * including event types added later. The request bodies are strict, so a misspelt field (`events`) is a 400
 * naming it, never an endpoint that silently receives everything.
 */
export const WebhookEventTypes = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, {
      message: `each event type must be one of: ${WEBHOOK_EVENT_TYPES.join(' ')}`,
    }),
  )
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .transform((types) => [...new Set(types)]);

const EVENT_TYPES_DESCRIPTION =
  'The event types the endpoint receives. Empty (`[]`): every event, including event types added later.';

/** Strict, as every application request body is: an unknown field is a 400 naming it (docs/app-api.md). */
export const CreateWebhookEndpointRequest = z
  .strictObject({
    url: WebhookUrl,
    eventTypes: WebhookEventTypes.default([]).describe(`${EVENT_TYPES_DESCRIPTION} Absent: every event too.`),
    enabled: z.boolean().default(true),
  })
  .meta({
    id: 'CreateWebhookEndpointRequest',
    example: {
      url: 'https://erp.example.com/hooks/sigil',
      eventTypes: ['envelope.completed', 'recipient.declined'],
      enabled: true,
    },
  });

export const UpdateWebhookEndpointRequest = z
  .strictObject({
    url: WebhookUrl.optional(),
    eventTypes: WebhookEventTypes.optional().describe(`${EVENT_TYPES_DESCRIPTION} Absent: unchanged.`),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest', example: { enabled: false } });

const ENDPOINT_EXAMPLE = {
  id: '3f0c2a9e-5b7d-4c1e-9a8f-2d6b4e1c7a05',
  url: 'https://erp.example.com/hooks/sigil',
  eventTypes: ['envelope.completed', 'recipient.declined'],
  enabled: true,
  secretHint: '…Xk2q',
  previousSecretHint: null,
  previousSecretExpiresAt: null,
  secretRotatedAt: null,
  createdAt: '2026-12-01T09:30:00.000Z',
  updatedAt: '2026-12-01T09:30:00.000Z',
};

/** An endpoint as it is shown; the secret itself only once, at creation and rotation. */
export const WebhookEndpointView = z.object({
  id: z.uuid(),
  url: z.string(),
  eventTypes: z.array(z.string()).describe('Empty: every event'),
  enabled: z.boolean(),
  secretHint: z.string().describe('The secret’s last four characters'),
  previousSecretHint: z
    .string()
    .nullable()
    .describe('Set during the grace period after a rotation, while the previous secret signs too'),
  previousSecretExpiresAt: IsoDateTime.nullable(),
  secretRotatedAt: IsoDateTime.nullable(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type WebhookEndpointView = z.output<typeof WebhookEndpointView>;

/** The public API's name for an endpoint's view (its own instance, so the application's derived shapes stay unnamed). */
export const WebhookEndpoint = WebhookEndpointView.meta({ id: 'WebhookEndpoint', example: ENDPOINT_EXAMPLE });

export const WebhookDeliveryAttemptView = z
  .object({
    attempt: z.number().int(),
    startedAt: IsoDateTime,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type WebhookDeliveryAttemptView = z.output<typeof WebhookDeliveryAttemptView>;

export const WebhookDeliveryView = z
  .object({
    id: z.uuid().describe('The delivery id, sent as X-Service-Delivery on every attempt; new for a replay'),
    endpointId: z.uuid(),
    endpointUrl: z.string().describe('Where the delivery goes (the endpoint URL at its last attempt)'),
    kind: z.enum(['event', 'test']).describe('`event`: a lifecycle event; `test`: a sample event'),
    eventId: z.string().describe('The payload `id`: the same for a delivery and its replays'),
    eventType: z.string().describe('The event name, sent as X-Service-Event'),
    eventCreatedAt: IsoDateTime,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
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
    attempts: z.array(WebhookDeliveryAttemptView),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryView = z.output<typeof WebhookDeliveryView>;

// The business application's webhook pages (docs/webhooks.md, "Webhooks in the business app").

/** How far back an endpoint's "recent" deliveries (its success rate in the list) reach. */
export const WEBHOOK_RECENT_DAYS = 7;

/** An endpoint in the application's list: with the outcome of its recent deliveries. */
export const WebhookEndpointListItem = WebhookEndpointView.extend({
  recentDeliveries: z
    .object({
      succeeded: z.number().int(),
      failed: z.number().int(),
      pending: z.number().int(),
    })
    .describe(`Deliveries of the last ${WEBHOOK_RECENT_DAYS} days by status`),
  changedBy: CredentialChangerView,
  suspendedEvents: z
    .array(SuspendedEventView)
    .describe(
      'Events the endpoint does not receive now, because its last changer lost what they need (nothing is ' +
        'queued for them); received again once someone who holds it saves the endpoint',
    ),
}).meta({ id: 'WebhookEndpointListItem' });
export type WebhookEndpointListItem = z.output<typeof WebhookEndpointListItem>;

export const WebhookEndpointList = z
  .object({
    endpoints: z.array(WebhookEndpointListItem),
    /** Whether the organization's plan includes webhooks; without, nothing can be created, tested or replayed. */
    webhookAccess: z.boolean(),
    planName: z.string(),
    /** How long a rotated secret keeps signing. */
    secretGraceHours: z.number().int(),
    /** At most this many endpoints per organization. */
    maxEndpoints: z.number().int(),
  })
  .meta({ id: 'WebhookEndpointList' });
export type WebhookEndpointList = z.output<typeof WebhookEndpointList>;

/** An endpoint with its signing secret: the answer of creation and rotation, the only time it is shown. */
export const WebhookEndpointWithSecret = WebhookEndpointView.extend({
  secret: z.string().describe('The signing secret, shown only in this answer'),
}).meta({
  id: 'WebhookEndpointWithSecret',
  example: { ...ENDPOINT_EXAMPLE, secret: 'whsec_9Qm3t8x0b1Vf2Yk7LwR5nZpA6cE4uHsJdGiTo1Xk2q' },
});

export const WEBHOOK_DELIVERY_PAGE_MAX = 200;

const DeliveryTime = (field: string) =>
  z.iso.datetime({ offset: true, message: `${field} must be an ISO 8601 date-time (2026-01-01T00:00:00Z)` });

export const WebhookDeliveryListQuery = z
  .object({
    endpointId: uuidOf('endpointId').optional().describe('Deliveries to this endpoint'),
    eventType: z
      .enum(WEBHOOK_EVENT_TYPES, { message: `eventType must be one of: ${WEBHOOK_EVENT_TYPES.join(' ')}` })
      .optional()
      .describe('Deliveries of this event type'),
    status: z
      .enum(WEBHOOK_DELIVERY_STATUSES, {
        message: `status must be one of: ${WEBHOOK_DELIVERY_STATUSES.join(' ')}`,
      })
      .optional()
      .describe('Deliveries with this status now'),
    // The names and rule of the Documents list's range (domain/document.ts).
    from: DeliveryTime('from').optional().describe('Queued at or after this time'),
    to: DeliveryTime('to').optional().describe('Queued before this time'),
    ...offsetPage(WEBHOOK_DELIVERY_PAGE_MAX, 'deliveries, newest first'),
  })
  .superRefine((query, ctx) => {
    if (query.from && query.to && Date.parse(query.to) <= Date.parse(query.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
    }
  });
export type WebhookDeliveryListQuery = z.output<typeof WebhookDeliveryListQuery>;

export const WebhookDeliveryList = z
  .object({
    deliveries: z.array(WebhookDeliveryView),
    total: z.number().int().describe('How many deliveries match in all'),
    nextOffset: z.number().int().nullable().describe('The `offset` of the next page; null on the last'),
  })
  .meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryList = z.output<typeof WebhookDeliveryList>;
