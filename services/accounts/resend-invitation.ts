// POST /api/users/{id}/resend-invitation (docs/administration.md, "Invitations"): a new invitation link for a
// user who has not accepted yet. The new token replaces the old one (issueAccountToken ends the user's unused
// invitation tokens), so only the latest emailed link works; its 7 days start now. An invitation made while the
// address had an account in another organization (`emailHeldElsewhere`, invite-user.ts) answers the same: while
// the address is still held, its holder is told again (at most once a minute); once that account is gone, the
// invitation becomes an ordinary one and its link goes out. The email is sent after the answer.
// Who resends is an account actor (account-actor.ts): an administrator of the organization, under the rules of
// acting on another user, or platform staff with a reason (also in the backoffice audit log). Resends of one
// invitation are limited (RESEND_LIMIT): a mailbox is not flooded, whoever asks.
import { AppUser, Organization, Role, Team } from '../../db/entities/index.ts';
import { checkMayActOn, findUserOf, lockOrganization } from '../administration/administration.ts';
import { type InvitedUser, invitationEmail } from '../administration/invite-user.ts';
import { userView } from '../administration/views.ts';
import { recordBackofficeEvent } from '../backoffice/audit-log.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, RateLimited } from '../errors.ts';
import { type AccountActor, organizationIdOf, staffReason } from './account-actor.ts';
import { issueAccountToken } from './account-tokens.ts';
import { findUserByEmail } from './account-users.ts';
import { recordSecurityEvent } from './security-log.ts';
import { nowOf, permissionsOf, type SessionClock } from './sessions.ts';

/** At most `count` resends of one invitation within `windowMs` (from the first of them). */
export const RESEND_LIMIT = { count: 3, windowMs: 60 * 60 * 1000 } as const;

export type ResendInvitationContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

/**
 * Counts one resend of the user's invitation in `login_throttle` (key `invite-resend:<userId>`) in one atomic
 * statement, or refuses with 429 `rate_limited` and Retry-After when the window already holds RESEND_LIMIT.
 */
async function takeResend(ctx: Pick<ServiceContext, 'em'> & SessionClock, userId: string): Promise<void> {
  const now = nowOf(ctx);
  const windowStart = new Date(now.getTime() - RESEND_LIMIT.windowMs);
  const key = `invite-resend:${userId}`;
  const taken = await ctx.em.execute<{ key: string }[]>(
    `insert into login_throttle as t (key, failures, first_failure_at, last_failure_at)
     values (?, 1, ?, ?)
     on conflict (key) do update set
       failures = case when t.first_failure_at <= ? then 1 else t.failures + 1 end,
       first_failure_at = case when t.first_failure_at <= ? then excluded.first_failure_at else t.first_failure_at end,
       last_failure_at = excluded.last_failure_at
     where t.first_failure_at <= ? or t.failures < ?
     returning key`,
    [key, now, now, windowStart, windowStart, windowStart, RESEND_LIMIT.count],
  );
  if (taken.length > 0) return;
  const [row] = await ctx.em.execute<{ first_failure_at: Date | string }[]>(
    'select first_failure_at from login_throttle where key = ?',
    [key],
  );
  const opensAt = new Date(row?.first_failure_at ?? now).getTime() + RESEND_LIMIT.windowMs;
  const seconds = Math.max(1, Math.ceil((opensAt - now.getTime()) / 1000));
  throw new RateLimited(
    `This invitation was sent again ${RESEND_LIMIT.count} times within the hour: try again in ${Math.ceil(seconds / 60)} minutes.`,
    seconds,
  );
}

export async function resendInvitation(
  ctx: ResendInvitationContext,
  actor: AccountActor,
  userId: string,
): Promise<InvitedUser> {
  const organizationId = organizationIdOf(actor);
  const reason = actor.kind === 'platform_staff' ? staffReason(actor) : null;
  const resent = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await lockOrganization(tx, organizationId);
    const user = await findUserOf(tx, organizationId, userId);
    if (user.status !== 'invited') {
      throw new Conflict(
        `${user.email} has already accepted the invitation (status ${user.status}); there is nothing to resend.`,
        [],
        'not_invited',
      );
    }
    const role = await tx.findOneOrFail(Role, { id: user.roleId });
    // An invitation to a role above the actor's is not theirs to renew (nor was it theirs to make).
    if (actor.kind === 'organization_user') checkMayActOn(actor.actor, user, permissionsOf(role));
    await takeResend(txCtx, user.id);
    user.invitedAt = nowOf(ctx);
    const holder = user.emailHeldElsewhere ? await findUserByEmail(txCtx, user.email) : null;
    // The address is free again (the other account was deleted): the invitation takes it, with a link. Should
    // another organization take it at the same moment, the address's unique index refuses this transaction.
    if (user.emailHeldElsewhere && !holder) user.emailHeldElsewhere = false;
    await tx.flush();
    const token = holder ? null : await issueAccountToken(txCtx, user.id, 'invite');
    recordSecurityEvent(txCtx, {
      organizationId,
      type: 'user.invitation_resent',
      actorUserId: actor.kind === 'organization_user' ? actor.actor.user.id : null,
      subjectUserId: user.id,
      subjectEmail: user.email,
      ipAddress: actor.kind === 'organization_user' ? (actor.actor.ipAddress ?? null) : actor.ipAddress,
      ...(actor.kind === 'platform_staff' ? { details: { byPlatformStaff: actor.admin.email, reason } } : {}),
    });
    if (actor.kind === 'platform_staff') {
      recordBackofficeEvent(
        txCtx,
        { kind: 'platform_admin', admin: actor.admin, ipAddress: actor.ipAddress },
        {
          action: 'user.invitation_resent',
          targetId: user.id,
          details: { organizationId, email: user.email, reason },
        },
      );
    }
    await tx.flush();
    const team = user.teamId ? await tx.findOne(Team, { id: user.teamId }) : null;
    const organization =
      actor.kind === 'organization_user'
        ? actor.actor.organization
        : await tx.findOneOrFail(Organization, { id: organizationId });
    // Signed by whoever invited first when staff resend (their name is what the invited person expects).
    const inviter =
      actor.kind === 'organization_user'
        ? actor.actor.user.fullName
        : ((user.invitedBy ? await tx.findOne(AppUser, { id: user.invitedBy }) : null)?.fullName ??
          organization.name);
    return { user, role, team, token, holder, organization, inviter };
  });
  const email = await invitationEmail(ctx, resent, resent.organization, resent.inviter);
  // Still invited: never signed in, so no passkey.
  return { user: userView(resent.user, resent.role, resent.team, false), email };
}
