// Webhook endpoints of an organization, the deliveries queued to them and each delivery's attempts.
import { defineEntity, p } from '@mikro-orm/core';
import { tenantKeys, timestampColumns, uuidKey } from './columns.ts';

export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  properties: {
    ...tenantKeys(),
    url: p.text(),
    /** Empty: every event. */
    eventTypes: p.array().default([]),
    enabled: p.boolean().default(true),
    /**
     * The user who created or last changed the endpoint; it receives only the events that user's permissions
     * cover (domain/credential-permissions.ts). Null: made by the operator CLI, or before migration 0032.
     */
    changedByUserId: p.uuid().nullable(),
    /** Signs every delivery; shown once, at creation and at rotation. */
    secret: p.string().hidden(),
    /** The secret before the last rotation, still signing (X-Service-Signature-Previous) until it expires. */
    previousSecret: p.string().hidden().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    secretRotatedAt: p.datetime().nullable(),
    ...timestampColumns(),
  },
});
export class WebhookEndpoint extends WebhookEndpointSchema.class {}
WebhookEndpointSchema.setClass(WebhookEndpoint);

export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    /** Sent as X-Service-Delivery; the same on every attempt. */
    ...uuidKey(),
    endpointId: p.uuid(),
    organizationId: p.uuid(),
    /** `event`: a lifecycle event; `test`: a sample event sent on request. */
    kind: p.string(),
    eventId: p.string(),
    eventType: p.string(),
    eventCreatedAt: p.datetime(),
    /** The request body exactly as sent. */
    payload: p.text(),
    status: p.string().default('pending'),
    attemptCount: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    endpointUrl: p.text(),
    requestId: p.string().nullable(),
    replayOf: p.uuid().nullable(),
    ...timestampColumns(),
  },
});
export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);

export const WebhookDeliveryAttemptSchema = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempt',
  properties: {
    deliveryId: p.uuid().primary(),
    attempt: p.integer().primary(),
    startedAt: p.datetime(),
    durationMs: p.integer(),
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
  },
});
export class WebhookDeliveryAttempt extends WebhookDeliveryAttemptSchema.class {}
WebhookDeliveryAttemptSchema.setClass(WebhookDeliveryAttempt);
