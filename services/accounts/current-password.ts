// The current password that the profile's changes of the account ask for (a new password, a new email
// address: docs/accounts.md, "Your account"). It counts like a sign-in: the address's throttle is checked first
// (429 `rate_limited` / `account_locked`, the password not looked at), and a wrong one is a failed sign-in of
// the address and of the network address, so a session left open cannot be used to guess the password faster
// than the sign-in page allows. A wrong password is 400 `invalid_request` naming `body.currentPassword` (its
// detail's `params.key` `currentPasswordWrong` names the message the web app shows); nothing else changes.
import type { AppUser } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { verifyPassword } from '../security/passwords.ts';
import { checkLoginThrottle, recordLoginFailure } from './login-throttle.ts';
import { recordOwnEvent } from './security-log.ts';
import type { SessionClock } from './sessions.ts';

export function wrongCurrentPassword(): InvalidRequest {
  return new InvalidRequest('Invalid request: body.currentPassword: the current password is wrong', [
    {
      field: 'body.currentPassword',
      message: 'the current password is wrong',
      code: 'custom',
      params: { key: 'currentPasswordWrong' },
    },
  ]);
}

/** Checks the user's current password (throttled like a sign-in); throws when it is wrong. */
export async function requireCurrentPassword(
  ctx: DataContext & SessionClock,
  user: AppUser,
  password: string,
  ipAddress: string,
): Promise<void> {
  await checkLoginThrottle(ctx, user.email, ipAddress);
  if (user.passwordHash && (await verifyPassword(password, user.passwordHash))) return;
  const { failures, lockStarted } = await recordLoginFailure(ctx, user.email, ipAddress);
  if (lockStarted) {
    recordOwnEvent(ctx, user, ipAddress, {
      type: 'user.locked_out',
      subjectEmail: user.email,
      details: { failures },
    });
    await ctx.em.flush();
  }
  throw wrongCurrentPassword();
}
