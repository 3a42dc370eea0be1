// POST /api/auth/me/password (docs/accounts.md, "Your account"): the signed-in user sets a new password. The
// current one is required (current-password.ts: throttled and counted like a sign-in); the new one follows the
// sign-up and reset policy (`NewPassword`, and not the email address). Every OTHER session of the user ends
// (`password_changed`; the one that asked stays), `user.password_changed` is logged, and the user is emailed
// (`password_changed`, after the commit) with a link to reset the password should it not have been them.
import { AppUser } from '../../db/entities/index.ts';
import type { ChangePasswordRequest } from '../../domain/account-profile.ts';
import type { ServiceContext } from '../context.ts';
import { hashPassword } from '../security/passwords.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { requirePasswordNotEmail } from './account-users.ts';
import { requireCurrentPassword } from './current-password.ts';
import { recordOwnEvent } from './security-log.ts';
import { endUserSessions, type SessionPrincipal } from './sessions.ts';

export async function changePassword(
  ctx: ServiceContext,
  input: { principal: SessionPrincipal; request: ChangePasswordRequest; ipAddress: string },
): Promise<AccountEmail> {
  const { user, session } = input.principal;
  requirePasswordNotEmail(input.request.newPassword, user.email, 'body.newPassword');
  await requireCurrentPassword(ctx, user, input.request.currentPassword, input.ipAddress);
  const passwordHash = await hashPassword(input.request.newPassword);
  await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await tx.nativeUpdate(AppUser, { id: user.id }, { passwordHash });
    const ended = await endUserSessions(txCtx, user.id, 'password_changed', session.id);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.password_changed',
      subjectEmail: user.email,
      details: { otherSessionsEnded: ended },
    });
  });
  return accountEmailTo(ctx.em, user, 'password_changed', accountLink(ctx.config, 'forgot-password'));
}
