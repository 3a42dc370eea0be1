// /dev/notifications: the newest captured notifications for the kind and address in the page's address
// (?kind=otp&to=%2B972…). The page reads them again every few seconds (invalidate('dev:notifications')); a
// server without the capture (production) answers 404, which the page says in words.
import {
  DEV_NOTIFICATIONS_LIMIT,
  fetchDevNotifications,
  isNotificationKind,
  type NotificationKind,
} from '$lib/dev/dev-notifications';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ url, fetch, depends }) => {
  depends('dev:notifications');
  const wanted = url.searchParams.get('kind');
  const kind: NotificationKind | '' = isNotificationKind(wanted) ? wanted : '';
  const to = url.searchParams.get('to')?.trim() ?? '';
  const result = await fetchDevNotifications(
    { kind: kind || undefined, to: to || undefined, limit: DEV_NOTIFICATIONS_LIMIT },
    fetch,
  );
  return { result, kind, to, loadedAt: new Date() };
};
