// Client of GET /api/dev/notifications (docs/api.md, "Development notifications"). The route exists only
// outside production; there the server answers 404, which this client reports as `unavailable`.

import {
  type MessageChannel,
  NOTIFICATION_KINDS,
  type NotificationKind,
} from '../../../../domain/vocabulary.ts';

export { NOTIFICATION_KINDS, type NotificationKind };
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

export function isNotificationKind(value: unknown): value is NotificationKind {
  return typeof value === 'string' && (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

export async function fetchDevNotifications(
  filter: DevNotificationFilter,
  signal?: AbortSignal,
): Promise<DevNotificationsResult> {
  const query = new URLSearchParams({ limit: String(filter.limit) });
  if (filter.kind) query.set('kind', filter.kind);
  const to = filter.to?.trim();
  if (to) query.set('to', to);
  let response: Response;
  try {
    response = await fetch(`/api/dev/notifications?${query}`, {
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
