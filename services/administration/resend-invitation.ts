// POST /api/users/{id}/resend-invitation: a new invitation link for a user who has not accepted yet. The new
// token replaces the old one (issueAccountToken ends the user's unused invitation tokens), so only the latest
// emailed link works; its 7 days start now. An invitation made while the address had an account in another
// organization (`emailHeldElsewhere`, invite-user.ts) answers the same: while the address is still held, its
// holder is told again (at most once a minute); once that account is gone, the invitation becomes an ordinary
// one and its link goes out. The email is sent after the answer.
import { Role, Team } from '../../db/entities/index.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { findUserByEmail } from '../accounts/account-users.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { nowOf, permissionsOf } from '../accounts/sessions.ts';
import { Conflict } from '../errors.ts';
import { type Actor, checkMayActOn, findUserOf, lockOrganization } from './administration.ts';
import { type AdministrationContext, type InvitedUser, invitationEmail } from './invite-user.ts';
import { userView } from './views.ts';

export async function resendInvitation(
  ctx: AdministrationContext,
  actor: Actor,
  userId: string,
): Promise<InvitedUser> {
  const { organization } = actor;
  const resent = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
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
    const holder = user.emailHeldElsewhere ? await findUserByEmail(txCtx, user.email) : null;
    // The address is free again (the other account was deleted): the invitation takes it, with a link. Should
    // another organization take it at the same moment, the address's unique index refuses this transaction.
    if (user.emailHeldElsewhere && !holder) user.emailHeldElsewhere = false;
    await tx.flush();
    const token = holder ? null : await issueAccountToken(txCtx, user.id, 'invite');
    recordActorEvent(txCtx, actor, {
      type: 'user.invitation_resent',
      subjectUserId: user.id,
      subjectEmail: user.email,
    });
    await tx.flush();
    const team = user.teamId ? await tx.findOne(Team, { id: user.teamId }) : null;
    return { user, role, team, token, holder };
  });
  const email = await invitationEmail(ctx, resent, organization, actor.user.fullName);
  // Still invited: never signed in, so no passkey.
  return { user: userView(resent.user, resent.role, resent.team, false), email };
}
