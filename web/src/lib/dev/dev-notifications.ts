// Client of GET /api/dev/notifications (docs/api.md, "Development notifications"), and what the panel says of a
// notification: its kind and the link it carries, in words. The route exists only outside production; there the
// server answers 404, which this client reports as `unavailable`.

import {
  CAPTURED_NOTIFICATION_KINDS,
  type CapturedNotificationKind,
  type MessageChannel,
} from '../../../../domain/vocabulary.ts';

/** Every kind the capture keeps, in the filter's order: an envelope's, the account emails, the backoffice's. */
export const NOTIFICATION_KINDS = CAPTURED_NOTIFICATION_KINDS;
export type NotificationKind = CapturedNotificationKind;
export type NotificationChannel = MessageChannel;

export interface DevNotification {
  id: string;
  kind: NotificationKind;
  channel: NotificationChannel;
  to: string;
  subject: string | null;
  body: string;
  signingLink: string | null;
  otpCode: string | null;
  envelopeId: string | null;
  recipientId: string | null;
  organizationId: string | null;
  createdAt: string;
}

export interface DevNotificationFilter {
  kind?: NotificationKind | undefined;
  to?: string | undefined;
  limit: number;
}

export type DevNotificationsResult =
  | { status: 'ok'; notifications: DevNotification[] }
  | { status: 'unavailable' }
  | { status: 'error'; detail: string };

/** The most the panel shows (the newest). */
export const DEV_NOTIFICATIONS_LIMIT = 100;

export function isNotificationKind(value: unknown): value is NotificationKind {
  return typeof value === 'string' && (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

/** A kind in words: `devNotifications.kind.<kind>` (test/unit/dev-notification-labels.test.ts: every kind). */
export function kindKey(kind: string): string {
  return isNotificationKind(kind) ? `devNotifications.kind.${kind}` : 'devNotifications.kind.other';
}

/**
 * What the link a notification carries opens, by its kind (`signingLink` holds the signing link of an
 * invitation, and the emailed link of an account email): the accessible name of the panel's link.
 */
const LINK_KEYS: Record<NotificationKind, string> = {
  invitation: 'devNotifications.link.signing',
  reminder: 'devNotifications.link.signing',
  otp: 'devNotifications.link.signing',
  completed: 'devNotifications.link.documents',
  declined: 'devNotifications.link.other',
  cancelled: 'devNotifications.link.other',
  expiring_soon: 'devNotifications.link.signing',
  expired: 'devNotifications.link.other',
  verify_email: 'devNotifications.link.verifyEmail',
  reset_password: 'devNotifications.link.resetPassword',
  invite: 'devNotifications.link.invitation',
  registration_attempt: 'devNotifications.link.signIn',
  invitation_attempt: 'devNotifications.link.signIn',
  password_changed: 'devNotifications.link.resetPassword',
  email_change: 'devNotifications.link.confirmEmailChange',
  email_change_requested: 'devNotifications.link.resetPassword',
  email_changed: 'devNotifications.link.signIn',
  mfa_reset: 'devNotifications.link.signIn',
  account_unlocked: 'devNotifications.link.signIn',
  platform_admin_code: 'devNotifications.link.other',
  provider_test: 'devNotifications.link.other',
  sender_notification: 'devNotifications.link.documents',
};

export function linkKey(kind: string): string {
  return isNotificationKind(kind) ? LINK_KEYS[kind] : 'devNotifications.link.other';
}

/** The badge tone of a kind: what a signer is asked, a code, an outcome, an account's email. */
const KIND_TONES: Record<NotificationKind, string> = {
  invitation: 'info',
  reminder: 'info',
  otp: 'warn',
  completed: 'good',
  declined: 'warn',
  cancelled: 'off',
  expiring_soon: 'warn',
  expired: 'off',
  verify_email: 'info',
  reset_password: 'info',
  invite: 'info',
  registration_attempt: 'off',
  invitation_attempt: 'off',
  password_changed: 'off',
  email_change: 'info',
  email_change_requested: 'off',
  email_changed: 'off',
  mfa_reset: 'info',
  account_unlocked: 'info',
  platform_admin_code: 'warn',
  provider_test: 'off',
  sender_notification: 'info',
};

export function kindTone(kind: string): string {
  return isNotificationKind(kind) ? KIND_TONES[kind] : 'off';
}

export async function fetchDevNotifications(
  filter: DevNotificationFilter,
  fetcher: typeof fetch = fetch,
  signal?: AbortSignal,
): Promise<DevNotificationsResult> {
  const query = new URLSearchParams({ limit: String(filter.limit) });
  if (filter.kind) query.set('kind', filter.kind);
  const to = filter.to?.trim();
  if (to) query.set('to', to);
  let response: Response;
  try {
    response = await fetcher(`/api/dev/notifications?${query}`, {
      headers: { accept: 'application/json' },
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    return { status: 'error', detail: error instanceof Error ? error.message : String(error) };
  }
  if (response.status === 404) return { status: 'unavailable' };
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as
      | { error?: { message?: string } }
      | undefined;
    return { status: 'error', detail: body?.error?.message ?? `HTTP ${response.status}` };
  }
  const body = (await response.json()) as { notifications: DevNotification[] };
  return { status: 'ok', notifications: body.notifications };
}
