// POST /api/users/{id}/resend-invitation: a new invitation link for a user who has not accepted yet. The new
// token replaces the old one (issueAccountToken ends the user's unused invitation tokens), so only the latest
// emailed link works; its 7 days start now.
import { Role, Team } from '../../../db/entities/index.ts';
import { Conflict } from '../../errors.ts';
import { accountLink, sendAccountEmail } from '../accounts/account-emails.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import { nowOf, permissionsOf } from '../accounts/sessions.ts';
import { type Actor, checkMayActOn, findUserOf, lockOrganization } from './administration.ts';
import { type AdministrationContext, type InvitedUser, invitationLanguage } from './invite-user.ts';
import { userView } from './views.ts';

export async function resendInvitation(
  ctx: AdministrationContext,
  actor: Actor,
  userId: string,
): Promise<InvitedUser> {
  const { organization } = actor;
  const resent = await ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, organization.id);
    const user = await findUserOf(tx, organization.id, userId);
    if (user.status !== 'invited') {
      throw new Conflict(
        `${user.email} has already accepted the invitation (status ${user.status}); there is nothing to resend.`,
        [],
        'not_invited',
      );
    }
    const role = await tx.findOneOrFail(Role, { id: user.roleId });
    // An invitation to a role above the actor's is not theirs to renew (nor was it theirs to make).
    checkMayActOn(actor, user, permissionsOf(role));
    user.invitedAt = nowOf(ctx);
    const token = await issueAccountToken({ ...ctx, em: tx }, user.id, 'invite');
    recordSecurityEvent(
      { ...ctx, em: tx },
      {
        organizationId: organization.id,
        type: 'user.invitation_resent',
        actorUserId: actor.user.id,
        subjectUserId: user.id,
        subjectEmail: user.email,
        ipAddress: actor.ipAddress ?? null,
      },
    );
    await tx.flush();
    const team = user.teamId ? await tx.findOne(Team, { id: user.teamId }) : null;
    return { user, role, team, token };
  });
  const email = await sendAccountEmail(ctx, {
    kind: 'invite',
    to: resent.user.email,
    fullName: resent.user.fullName,
    language: invitationLanguage(resent.user.language),
    organization,
    link: accountLink(ctx.config, 'accept-invite', resent.token),
    invitedBy: actor.user.fullName,
  });
  // Still invited: never signed in, so no passkey.
  return { user: userView(resent.user, resent.role, resent.team, false), email };
}
