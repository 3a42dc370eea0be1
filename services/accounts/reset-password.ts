// The password reset link (docs/accounts.md, "Emailed links"): POST /api/auth/reset-password/claim says whose
// account it is (the page shows it) without using the token; POST /api/auth/reset-password sets the new
// password, uses the token, ends every session of the user, marks the address verified (the link proved it)
// and forgets the address's failed sign-ins.
import { AppUser } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { hashPassword } from '../security/passwords.ts';
import { passwordRefusedBySso, ssoRequired } from '../sso/sso-policy.ts';
import { findAccountToken } from './account-tokens.ts';
import { requirePasswordNotEmail } from './account-users.ts';
import { invalidToken, spendAccountToken } from './link-tokens.ts';
import { clearLoginThrottle } from './login-throttle.ts';
import { recordOwnEvent } from './security-log.ts';
import { endUserSessions, nowOf, type SessionClock } from './sessions.ts';

async function claimed(ctx: DataContext & SessionClock, token: string) {
  const found = await findAccountToken(ctx, token, 'reset_password');
  const user = found ? await ctx.em.findOne(AppUser, { id: found.userId, status: 'active' }) : null;
  if (!found || !user) throw invalidToken();
  if (await passwordRefusedBySso(ctx, user)) throw ssoRequired();
  return { found, user };
}

export async function claimPasswordReset(
  ctx: DataContext & SessionClock,
  token: string,
): Promise<{ email: string; fullName: string }> {
  const { user } = await claimed(ctx, token);
  return { email: user.email, fullName: user.fullName };
}

export async function resetPassword(
  ctx: DataContext & SessionClock,
  input: { token: string; password: string },
  meta: { ipAddress: string | null },
): Promise<void> {
  const { found, user } = await claimed(ctx, input.token);
  requirePasswordNotEmail(input.password, user.email);
  const passwordHash = await hashPassword(input.password);
  await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await spendAccountToken(txCtx, found);
    const now = nowOf(ctx);
    await tx.nativeUpdate(
      AppUser,
      { id: user.id },
      { passwordHash, ...(user.emailVerifiedAt ? {} : { emailVerifiedAt: now }) },
    );
    const ended = await endUserSessions(txCtx, user.id, 'password_reset');
    await clearLoginThrottle(txCtx, user.email);
    recordOwnEvent(txCtx, user, meta.ipAddress, {
      type: 'user.password_reset',
      subjectEmail: user.email,
      details: { sessionsEnded: ended },
    });
  });
}
