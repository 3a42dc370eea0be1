// Sender notifications (docs/notifications.md, "Sender notifications"): the signed-in user's own list with its
// unread count (the shell's bell), marking read, their email preferences, and the organization's choice of which
// administrators are told too. A notification of anyone else is "not found".
import {
  MarkedRead,
  NotificationPreferences,
  OrganizationNotificationSettings,
  UpdateNotificationPreferencesRequest,
  UserNotificationList,
  UserNotificationListQuery,
} from '../../../domain/sender-notification.ts';
import {
  notificationPreferences,
  organizationNotificationSettings,
  updateNotificationPreferences,
  updateOrganizationNotificationSettings,
} from '../../../services/notifications/notification-preferences.ts';
import {
  listUserNotifications,
  markAllUserNotificationsRead,
  markUserNotificationRead,
  type NotifiedUser,
} from '../../../services/notifications/user-notifications.ts';
import { type AppContext, areaRoute, principalOf, procedure, router } from '../init.ts';
import { actorOf, IdParams } from './administration-actor.ts';

const route = areaRoute('notifications');
const ENROLMENT =
  '`mfa_enrolment_required`: the organization requires two-step verification, set it up first';

function notified(ctx: AppContext): NotifiedUser {
  const principal = principalOf(ctx);
  return { userId: principal.user.id, organizationId: principal.organization.id };
}

export const notificationsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/me/notifications', {
        summary: 'Your notifications',
        description:
          'What you were told about the envelopes you sent (or, as an administrator, by the organization’s ' +
          'setting): completed, declined, cancelled by someone else, expired, expiring soon, delivery failed. ' +
          'Newest first, with the count of unread ones.',
        access: 'signed-in',
        errors: { 403: ENROLMENT },
      }),
    )
    .input(UserNotificationListQuery)
    .output(UserNotificationList)
    .query(({ ctx, input }) => listUserNotifications(ctx.services, notified(ctx), input)),

  markRead: procedure
    .meta(
      route('POST', '/api/me/notifications/{id}/read', {
        summary: 'Mark a notification read',
        description: 'Answers the unread count left. Marking a read one again changes nothing.',
        access: 'signed-in',
        errors: { 403: ENROLMENT, 404: 'No such notification of yours' },
      }),
    )
    .input(IdParams)
    .output(MarkedRead)
    .mutation(({ ctx, input }) => markUserNotificationRead(ctx.services, notified(ctx), input.id)),

  markAllRead: procedure
    .meta(
      route('POST', '/api/me/notifications/read-all', {
        summary: 'Mark every notification read',
        access: 'signed-in',
        errors: { 403: ENROLMENT },
      }),
    )
    .output(MarkedRead)
    .mutation(({ ctx }) => markAllUserNotificationsRead(ctx.services, notified(ctx))),

  preferences: procedure
    .meta(
      route('GET', '/api/me/notification-preferences', {
        summary: 'Your notification emails',
        description:
          'Each kind emailed or not (every kind is, until you say otherwise), and the daily digest.',
        access: 'signed-in',
        errors: { 403: ENROLMENT },
      }),
    )
    .output(NotificationPreferences)
    .query(({ ctx }) => notificationPreferences(ctx.services, notified(ctx))),

  updatePreferences: procedure
    .meta(
      route('PUT', '/api/me/notification-preferences', {
        summary: 'Change your notification emails',
        description:
          'A partial update: an absent kind keeps its choice. With `dailyDigest`, one email a day lists ' +
          'everything new instead of one email each; the app lists every notification either way.',
        access: 'signed-in',
        errors: { 403: ENROLMENT },
      }),
    )
    .input(UpdateNotificationPreferencesRequest)
    .output(NotificationPreferences)
    .mutation(({ ctx, input }) => updateNotificationPreferences(ctx.services, notified(ctx), input)),

  organizationSettings: procedure
    .meta(
      route('GET', '/api/organization/notification-settings', {
        summary: 'Which administrators are told of envelopes',
        description:
          '`notifyAdministrators`: `none` (only the user who sent an envelope), `team` (also the administrators ' +
          'of its team) or `organization` (also every administrator: the Owner and Administrator roles).',
        access: 'settings:read',
      }),
    )
    .output(OrganizationNotificationSettings)
    .query(({ ctx }) => organizationNotificationSettings(ctx.services, principalOf(ctx).organization.id)),

  updateOrganizationSettings: procedure
    .meta(
      route('PUT', '/api/organization/notification-settings', {
        summary: 'Change which administrators are told of envelopes',
        description: 'Written to the security log (`settings.updated`).',
        access: 'settings:manage',
      }),
    )
    .input(OrganizationNotificationSettings)
    .output(OrganizationNotificationSettings)
    .mutation(({ ctx, input }) => updateOrganizationNotificationSettings(ctx.services, actorOf(ctx), input)),
});
