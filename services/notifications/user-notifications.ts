// The signed-in user's sender notifications in the app (docs/notifications.md, "Sender notifications"): the
// newest with the unread count (the shell's bell), marking one or all read. A user sees only their own
// notifications: anyone else's, another organization's included, is "not found".
import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserNotificationList, UserNotificationView } from '../../domain/sender-notification.ts';
import type { SenderNotificationKind } from '../../domain/vocabulary.ts';
import { NotFound } from '../errors.ts';

export interface NotifiedUser {
  userId: string;
  organizationId: string;
}

interface Row {
  id: string;
  kind: SenderNotificationKind;
  envelope_id: string;
  title: string;
  details: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

function text(details: Record<string, unknown>, key: string): string | null {
  return typeof details[key] === 'string' ? (details[key] as string) : null;
}

function viewOf(row: Row): UserNotificationView {
  const expires = text(row.details, 'expires_at');
  return {
    id: row.id,
    kind: row.kind,
    envelope: { id: row.envelope_id, title: row.title },
    details: {
      recipientName: text(row.details, 'recipient_name'),
      channel: text(row.details, 'channel'),
      reason: text(row.details, 'reason'),
      expiresAt: expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires).toISOString() : null,
    },
    read: row.read_at !== null,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

async function unreadCount(em: EntityManager, user: NotifiedUser): Promise<number> {
  const [row] = await em.execute<{ count: number }[]>(
    `select count(*)::int as count from user_notification
      where user_id = ? and organization_id = ? and read_at is null`,
    [user.userId, user.organizationId],
  );
  return row?.count ?? 0;
}

export async function listUserNotifications(
  ctx: { em: EntityManager },
  user: NotifiedUser,
  query: { limit: number },
): Promise<UserNotificationList> {
  const rows = await ctx.em.execute<Row[]>(
    `select n.id, n.kind, n.envelope_id, e.title, n.details, n.read_at, n.created_at
       from user_notification n join envelope e on e.id = n.envelope_id
      where n.user_id = ? and n.organization_id = ?
      order by n.created_at desc, n.id desc
      limit ?`,
    [user.userId, user.organizationId, query.limit],
  );
  return { notifications: rows.map(viewOf), unreadCount: await unreadCount(ctx.em, user) };
}

/** Marks one of the user's notifications read (again: no change); answers the unread count left. */
export async function markUserNotificationRead(
  ctx: { em: EntityManager; clock?: () => Date },
  user: NotifiedUser,
  id: string,
): Promise<{ unreadCount: number }> {
  const found = await ctx.em.execute<{ id: string }[]>(
    `update user_notification set read_at = coalesce(read_at, ?)
      where id = ? and user_id = ? and organization_id = ?
      returning id`,
    [ctx.clock?.() ?? new Date(), id, user.userId, user.organizationId],
  );
  if (found.length === 0) throw new NotFound(`Notification ${id} was not found.`);
  return { unreadCount: await unreadCount(ctx.em, user) };
}

/** Marks every notification of the user read. */
export async function markAllUserNotificationsRead(
  ctx: { em: EntityManager; clock?: () => Date },
  user: NotifiedUser,
): Promise<{ unreadCount: number }> {
  await ctx.em.execute(
    `update user_notification set read_at = ?
      where user_id = ? and organization_id = ? and read_at is null`,
    [ctx.clock?.() ?? new Date(), user.userId, user.organizationId],
  );
  return { unreadCount: await unreadCount(ctx.em, user) };
}
