// Who is told of what (docs/notifications.md, "Sender notifications"): a user's own preferences (each kind emailed
// or not, a daily digest instead of one email each; every kind is emailed until they say otherwise) and the
// organization's choice of which administrators are told too (`none`, the envelope's `team`'s, the
// `organization`'s), changed by a user with settings:manage and written to the security log.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization, UserNotificationPreference } from '../../db/entities/index.ts';
import {
  type NotificationPreferences,
  OrganizationNotificationSettings,
  UpdateNotificationPreferencesRequest,
} from '../../domain/sender-notification.ts';
import { SENDER_NOTIFICATION_KINDS, type SenderNotificationKind } from '../../domain/vocabulary.ts';
import { recordActorEvent, type SecurityActor } from '../accounts/security-log.ts';
import { parseInput } from '../validation.ts';
import type { NotifiedUser } from './user-notifications.ts';

function preferencesView(row: UserNotificationPreference | null): NotificationPreferences {
  const off = new Set(row?.emailOff ?? []);
  return {
    email: Object.fromEntries(SENDER_NOTIFICATION_KINDS.map((kind) => [kind, !off.has(kind)])) as Record<
      SenderNotificationKind,
      boolean
    >,
    dailyDigest: row?.dailyDigest ?? false,
  };
}

export async function notificationPreferences(
  ctx: { em: EntityManager },
  user: NotifiedUser,
): Promise<NotificationPreferences> {
  return preferencesView(await ctx.em.findOne(UserNotificationPreference, { userId: user.userId }));
}

/**
 * A partial update: an absent kind keeps its choice. Choosing the digest starts its first 24 hours now (as if a
 * digest had just gone out), so the first one comes a day later with everything since.
 */
export async function updateNotificationPreferences(
  ctx: { em: EntityManager; clock?: () => Date },
  user: NotifiedUser,
  body: unknown,
): Promise<NotificationPreferences> {
  const input = parseInput(UpdateNotificationPreferencesRequest, body, 'notification preferences');
  return ctx.em.transactional(async (tx) => {
    const now = ctx.clock?.() ?? new Date();
    // One row per user: taken with a row lock (or created) so two simultaneous saves do not lose a change.
    await tx.execute(
      `insert into user_notification_preference (user_id, organization_id, updated_at) values (?, ?, ?)
       on conflict (user_id) do nothing`,
      [user.userId, user.organizationId, now],
    );
    const [row] = await tx.execute<{ email_off: string[]; daily_digest: boolean }[]>(
      'select email_off, daily_digest from user_notification_preference where user_id = ? for update',
      [user.userId],
    );
    const off = new Set(row?.email_off ?? []);
    for (const [kind, emailed] of Object.entries(input.email ?? {})) {
      if (emailed) off.delete(kind);
      else off.add(kind);
    }
    const digest = input.dailyDigest ?? row?.daily_digest ?? false;
    const digestChosen = digest && !row?.daily_digest;
    await tx.execute(
      `update user_notification_preference
          set email_off = ?::text[], daily_digest = ?, updated_at = ?,
              last_digest_at = case when ? then ?::timestamptz else last_digest_at end
        where user_id = ?`,
      [`{${[...off].sort().join(',')}}`, digest, now, digestChosen, now, user.userId],
    );
    return preferencesView(
      await tx.findOne(UserNotificationPreference, { userId: user.userId }, { refresh: true }),
    );
  });
}

export async function organizationNotificationSettings(
  ctx: { em: EntityManager },
  organizationId: string,
): Promise<OrganizationNotificationSettings> {
  const organization = await ctx.em.findOneOrFail(Organization, { id: organizationId }, { refresh: true });
  return { notifyAdministrators: organization.notifyAdministrators };
}

export async function updateOrganizationNotificationSettings(
  ctx: { em: EntityManager },
  actor: SecurityActor,
  body: unknown,
): Promise<OrganizationNotificationSettings> {
  const input = parseInput(OrganizationNotificationSettings, body, 'notification settings');
  return ctx.em.transactional(async (tx) => {
    const organization = await tx.findOneOrFail(Organization, { id: actor.organization.id });
    if (organization.notifyAdministrators !== input.notifyAdministrators) {
      const before = organization.notifyAdministrators;
      organization.notifyAdministrators = input.notifyAdministrators;
      recordActorEvent({ em: tx }, actor, {
        type: 'settings.updated',
        details: {
          changed: ['notifyAdministrators'],
          notifyAdministrators: { old: before, new: input.notifyAdministrators },
        },
      });
    }
    await tx.flush();
    return { notifyAdministrators: organization.notifyAdministrators };
  });
}
