// POST /api/auth/forgot-password: an active user gets an emailed single-use link to choose a new password
// (one hour; earlier links stop working), at most one a minute. Every address gets the same answer, known or
// not: nothing tells whether it has an account. The email is the caller's to send, after answering
// (sendAccountEmailLater), so its sending does not show in the time of the answer.
import type { ServiceContext } from '../context.ts';
import { passwordRefusedBySso } from '../sso/sso-policy.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { issueAccountToken } from './account-tokens.ts';
import { findUserByEmail } from './account-users.ts';
import { takeEmailSlot } from './login-throttle.ts';
import { recordSecurityEvent } from './security-log.ts';

export async function forgotPassword(
  ctx: ServiceContext,
  email: string,
  meta: { ipAddress: string | null },
): Promise<{ email: AccountEmail | null }> {
  // The slot is taken for every address, known or not, so both do the same work.
  const allowed = await takeEmailSlot(ctx, 'reset_password', email);
  const user = await findUserByEmail(ctx, email);
  if (!allowed || user?.status !== 'active') return { email: null };
  // Single sign-on required (docs/sso.md): no reset link, with the same answer as every address gets; a link
  // sent earlier is refused when claimed (reset-password.ts).
  if (await passwordRefusedBySso(ctx, user)) return { email: null };
  const token = await issueAccountToken(ctx, user.id, 'reset_password');
  recordSecurityEvent(ctx, {
    organizationId: user.organizationId,
    type: 'user.password_reset_requested',
    subjectUserId: user.id,
    subjectEmail: user.email,
    ipAddress: meta.ipAddress,
  });
  await ctx.em.flush();
  return {
    email: await accountEmailTo(
      ctx.em,
      user,
      'reset_password',
      accountLink(ctx.config, 'reset-password', token),
    ),
  };
}
