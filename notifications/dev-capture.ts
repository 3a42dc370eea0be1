// The development capture: outside production a channel without a provider writes what it would have sent
// to `dev_notification`, where developers and tests read it (GET /api/dev/notifications). Production never
// writes here — `capturesNotifications(env)` is false there — because the table holds message bodies, signing
// links and, for one-time codes, the code in clear.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SigilEnv } from '../config/config.ts';
import { DevNotification } from '../db/entities/index.ts';
import type { CapturedNotificationKind, MessageChannel } from '../domain/vocabulary.ts';

export interface CapturedNotification {
  /** An envelope's notification, an account email (verification, password reset, invitation), the
   * backoffice's sign-in code or a provider's test message: the vocabulary's list, which the panel names. */
  kind: CapturedNotificationKind;
  channel: MessageChannel;
  /** An email address or an E.164 phone number. */
  to: string;
  subject?: string | null;
  /** The plain text (an email's text part, or the SMS or WhatsApp message). */
  body: string;
  /** The link the message carries (a signing link, or an account email's link), so tests can follow it. */
  signingLink?: string | null;
  /** Only for `otp` and `platform_admin_code`: the code in clear, so a developer or a test can type it in. */
  otpCode?: string | null;
  envelopeId?: string | null;
  recipientId?: string | null;
  organizationId?: string | null;
}

/**
 * A captured message's fields with the absent ones null: what the capture stores and what its list
 * (services/notifications/list-dev-notifications.ts) answers of a stored row.
 */
export function capturedFields<Kind extends string, Channel extends string>(
  notification: Omit<CapturedNotification, 'kind' | 'channel'> & { kind: Kind; channel: Channel },
) {
  return {
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
  };
}

/** Whether this environment captures notifications that have no provider (development and test). */
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
    ...capturedFields(notification),
    createdAt: new Date(),
  });
}
