// A message sent (or attempted) through a notification provider: SMTP, Twilio, or the development capture.
// Written by the sendNotification activity and the one-time code service; never holds a message body.
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, tenantKeys } from './columns.ts';

export const NOTIFICATION_RECORD_STATUSES = ['sent', 'failed'] as const;
export type NotificationRecordStatus = (typeof NOTIFICATION_RECORD_STATUSES)[number];

export const NotificationSchema = defineEntity({
  name: 'Notification',
  tableName: 'notification',
  properties: {
    ...tenantKeys(),
    envelopeId: p.uuid().nullable(),
    recipientId: p.uuid().nullable(),
    kind: p.string(),
    channel: p.string(),
    /** Null only when the addressee had no address for the channel (a failed row). */
    to: p.string().fieldName('to_address').nullable(),
    language: p.string(),
    /** `smtp`, `twilio`, `dev-capture`, or `none` when no provider could be chosen. */
    provider: p.string(),
    status: p.string().$type<NotificationRecordStatus>(),
    providerMessageId: p.string().nullable(),
    attempts: p.integer(),
    lastError: p.text().nullable(),
    ...createdAtColumn(),
    lastAttemptAt: p.datetime(),
    sentAt: p.datetime().nullable(),
    /**
     * After the provider accepted the message (docs/notifications.md "Bounces and carrier failures"): `delivered`
     * (Twilio's status) or `failed` (a DSN to its VERP address, Twilio's `undelivered`/`failed`); null: not known.
     */
    deliveryStatus: p.string().$type<'delivered' | 'failed'>().nullable(),
    /** The DSN's status code and diagnostic, or Twilio's status and error code. */
    deliveryDetail: p.text().nullable(),
    deliveryReportedAt: p.datetime().nullable(),
    /** When the failure was handed to the envelope's workflow: a later report changes nothing. */
    deliveryFailureReportedAt: p.datetime().nullable(),
  },
});
export class Notification extends NotificationSchema.class {}
NotificationSchema.setClass(Notification);
