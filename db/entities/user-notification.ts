// Sender notifications (migration 0037, docs/notifications.md "Sender notifications"): what a user of the
// business app is told of about an envelope they sent (or, as an administrator, one of their team or
// organization), written by the projection with the audit event it is about, and each user's preferences.
import { defineEntity, p } from '@mikro-orm/core';
import type { SenderNotificationKind } from '../../domain/vocabulary.ts';
import { tenantKeys } from './columns.ts';

/** Where a notification's email stands: waiting for the sweep, sent, not wanted (preferences), failed for good. */
export const USER_NOTIFICATION_EMAIL_STATES = ['pending', 'sent', 'off', 'failed'] as const;
export type UserNotificationEmailState = (typeof USER_NOTIFICATION_EMAIL_STATES)[number];

export const UserNotificationSchema = defineEntity({
  name: 'UserNotification',
  tableName: 'user_notification',
  properties: {
    ...tenantKeys(),
    userId: p.uuid(),
    envelopeId: p.uuid(),
    /** The audit event it tells of: one notification per user and event. */
    auditEventId: p.uuid(),
    kind: p.string().$type<SenderNotificationKind>(),
    /** The decline's reason; which recipient, channel and why for a failed delivery; the deadline. */
    details: p.json<Record<string, unknown>>(),
    readAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    emailState: p.string().$type<UserNotificationEmailState>(),
    emailAttempts: p.integer().default(0),
    emailLastError: p.text().nullable(),
    emailedAt: p.datetime().nullable(),
  },
});
export class UserNotification extends UserNotificationSchema.class {}
UserNotificationSchema.setClass(UserNotification);

export const UserNotificationPreferenceSchema = defineEntity({
  name: 'UserNotificationPreference',
  tableName: 'user_notification_preference',
  properties: {
    userId: p.uuid().primary(),
    organizationId: p.uuid(),
    /** The kinds this user does not want emailed (they still appear in the app). */
    emailOff: p.array().default([]),
    /** One email a day with everything new instead of one email each. */
    dailyDigest: p.boolean().default(false),
    lastDigestAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class UserNotificationPreference extends UserNotificationPreferenceSchema.class {}
UserNotificationPreferenceSchema.setClass(UserNotificationPreference);
