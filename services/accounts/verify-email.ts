// POST /api/auth/verify-email: the link of the verification email marks the address verified. The token
// works once; an unknown, used or expired one is one answer: 400 `invalid_token`.
import { AppUser } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { findAccountToken } from './account-tokens.ts';
import { invalidToken, spendAccountToken } from './link-tokens.ts';
import { recordOwnEvent } from './security-log.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export async function verifyEmail(
  ctx: DataContext & SessionClock,
  token: string,
  meta: { ipAddress: string | null },
): Promise<void> {
  const found = await findAccountToken(ctx, token, 'verify_email');
  const user = found ? await ctx.em.findOne(AppUser, { id: found.userId, status: 'active' }) : null;
  if (!found || !user) throw invalidToken();
  await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await spendAccountToken(txCtx, found);
    if (user.emailVerifiedAt) return;
    await tx.nativeUpdate(AppUser, { id: user.id }, { emailVerifiedAt: nowOf(ctx) });
    recordOwnEvent(txCtx, user, meta.ipAddress, { type: 'user.email_verified', subjectEmail: user.email });
  });
}
