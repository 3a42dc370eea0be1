// POST /api/auth/resend-verification: a new verification link for an active user whose address is not
// verified yet (earlier links stop working), at most one a minute. Every address gets the same answer,
// known or not, verified or not: nothing tells whether it has an account. The email is the caller's to send,
// after answering (sendAccountEmailLater).
import type { ServiceContext } from '../context.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { issueAccountToken } from './account-tokens.ts';
import { findUserByEmail } from './account-users.ts';
import { takeEmailSlot } from './login-throttle.ts';

export async function resendVerification(
  ctx: ServiceContext,
  email: string,
): Promise<{ email: AccountEmail | null }> {
  // The slot is taken for every address, known or not, so both do the same work.
  const allowed = await takeEmailSlot(ctx, 'verify_email', email);
  const user = await findUserByEmail(ctx, email);
  if (!allowed || user?.status !== 'active' || user.emailVerifiedAt) return { email: null };
  const token = await issueAccountToken(ctx, user.id, 'verify_email');
  await ctx.em.flush();
  return {
    email: await accountEmailTo(ctx.em, user, 'verify_email', accountLink(ctx.config, 'verify-email', token)),
  };
}
