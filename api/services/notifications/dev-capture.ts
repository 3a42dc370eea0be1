// Development and test have no SMS, WhatsApp or email provider: what would have been sent is written to
// `dev_notification` instead, where developers and tests read it (GET /api/dev/notifications). Production
// never writes here — callers check `capturesNotifications(env)` first — because the table holds message
// bodies and, for one-time codes, the code in clear.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SigilEnv } from '../../../config/config.ts';
import { DevNotification } from '../../../db/entities/index.ts';

/** What was (not) sent. The notifications issue adds invitation, reminder, completion… */
export const NOTIFICATION_KINDS = ['otp'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const NOTIFICATION_CHANNELS = ['Email', 'Sms', 'WhatsApp'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export interface CapturedNotification {
  kind: NotificationKind;
  channel: NotificationChannel;
  /** An email address or an E.164 phone number. */
  to: string;
  subject?: string | null;
  body: string;
  signingLink?: string | null;
  /** Only for `otp`: the code in clear, so a developer or a test can type it in. */
  otpCode?: string | null;
  envelopeId?: string | null;
  recipientId?: string | null;
  organizationId?: string | null;
}

/** Whether this environment captures notifications instead of sending them (development and test). */
export function capturesNotifications(env: SigilEnv): boolean {
  return env !== 'production';
}

/**
 * Records a notification in the capture, in the caller's unit of work (flushed with it). The caller decides
 * the environment: see `capturesNotifications`.
 */
export function captureNotification(em: EntityManager, notification: CapturedNotification): DevNotification {
  return em.create(DevNotification, {
    id: randomUUID(),
    kind: notification.kind,
    channel: notification.channel,
    to: notification.to,
    subject: notification.subject ?? null,
    body: notification.body,
    signingLink: notification.signingLink ?? null,
    otpCode: notification.otpCode ?? null,
    envelopeId: notification.envelopeId ?? null,
    recipientId: notification.recipientId ?? null,
    organizationId: notification.organizationId ?? null,
    createdAt: new Date(),
  });
}
