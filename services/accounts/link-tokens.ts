// Using the token of an emailed link (verification, password reset, invitation) exactly once, and the one
// answer for a link that does not work: 400 `invalid_token`, whether it is unknown, used, expired or replaced.
import { AccountToken } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export function invalidToken(): InvalidRequest {
  return new InvalidRequest(
    'This link is not valid: it was already used, has expired, or was replaced by a newer one.',
    [{ field: 'body.token', message: 'invalid or expired' }],
    'invalid_token',
  );
}

/**
 * Marks the token used if it still is unused and unexpired, with one conditional update in the caller's
 * transaction: of two requests with the same link, one passes and the other gets `invalid_token`.
 */
export async function spendAccountToken(ctx: DataContext & SessionClock, token: AccountToken): Promise<void> {
  const now = nowOf(ctx);
  const spent = await ctx.em.nativeUpdate(
    AccountToken,
    { id: token.id, usedAt: null, expiresAt: { $gt: now } },
    { usedAt: now },
  );
  if (spent !== 1) throw invalidToken();
}
