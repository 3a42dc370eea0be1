// Sender notifications (docs/notifications.md, "Sender notifications"): the in-app list of what a user was told
// about their envelopes, their preferences (which kinds are emailed, a daily digest instead), and the
// organization's choice of which administrators are told too. The routes are ours (`/api/me/notifications…`,
// `/api/organization/notification-settings`), after the specification's `/api/me/stamps`.
import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { NOTIFY_ADMINISTRATORS, SENDER_NOTIFICATION_KINDS } from './vocabulary.ts';

export const SenderNotificationKindSchema = z.enum(SENDER_NOTIFICATION_KINDS);

export const UserNotificationView = z.object({
  id: z.uuid(),
  kind: SenderNotificationKindSchema,
  envelope: z.object({ id: z.uuid(), title: z.string() }),
  /** The decliner or the recipient not reached, and the channel and reason; the deadline of `expiring_soon`. */
  details: z.object({
    recipientName: z.string().nullable(),
    channel: z.string().nullable(),
    reason: z.string().nullable(),
    expiresAt: IsoDateTime.nullable(),
  }),
  read: z.boolean(),
  createdAt: IsoDateTime,
});
export type UserNotificationView = z.infer<typeof UserNotificationView>;

/** Newest first, at most `limit`; `unreadCount` counts every unread one. */
export const UserNotificationList = z.object({
  notifications: z.array(UserNotificationView),
  unreadCount: z.number().int().min(0),
});
export type UserNotificationList = z.infer<typeof UserNotificationList>;

export const NOTIFICATION_LIST_MAX = 100;

export const UserNotificationListQuery = z
  .object({
    limit: z.coerce
      .number({ message: 'limit must be a whole number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(NOTIFICATION_LIST_MAX, `limit must be at most ${NOTIFICATION_LIST_MAX}`)
      .default(30)
      .meta({ description: 'How many of the newest notifications to answer' }),
  })
  .strict();

export const MarkedRead = z.object({ unreadCount: z.number().int().min(0) });

/** Each kind emailed or not, and the daily digest instead of one email each. */
export const NotificationPreferences = z
  .object({
    email: z.object(
      Object.fromEntries(SENDER_NOTIFICATION_KINDS.map((kind) => [kind, z.boolean()])) as Record<
        (typeof SENDER_NOTIFICATION_KINDS)[number],
        z.ZodBoolean
      >,
    ),
    dailyDigest: z.boolean(),
  })
  .strict();
export type NotificationPreferences = z.infer<typeof NotificationPreferences>;

export const UpdateNotificationPreferencesRequest = z
  .object({
    email: NotificationPreferences.shape.email.partial().strict().optional(),
    dailyDigest: z.boolean().optional(),
  })
  .strict();
export type UpdateNotificationPreferencesRequest = z.infer<typeof UpdateNotificationPreferencesRequest>;

export const OrganizationNotificationSettings = z
  .object({ notifyAdministrators: z.enum(NOTIFY_ADMINISTRATORS) })
  .strict();
export type OrganizationNotificationSettings = z.infer<typeof OrganizationNotificationSettings>;
