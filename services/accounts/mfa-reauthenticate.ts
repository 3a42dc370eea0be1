// Re-authentication before a change to two-step verification (turning it off, new backup codes; docs/accounts.md
// "Two-step verification"): a signed-in session is not enough, the user gives the password AND a current code of
// the app or a backup code, so a session left open (or stolen) cannot remove the second factor. Wrong: 401
// `invalid_credentials` without saying which part was wrong, counted like a wrong code at sign-in
// (mfa-failures.ts: the fifth ends the session). The change runs in the same transaction, under the user's row
// lock, only when both parts were right.
import { type AppUser, UserSession } from '../../db/entities/index.ts';
import type { ReauthenticateInput } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { PADDING_PASSWORD_HASH, verifyPassword } from '../security/passwords.ts';
import { lockedUser } from './locked-user.ts';
import { useBackupCode } from './mfa-backup-codes.ts';
import {
  countSecondFactorFailure,
  refuseWhileThrottled,
  type SecondFactorMethod,
  SecondFactorRefused,
} from './mfa-failures.ts';
import { acceptTotpCode } from './mfa-totp.ts';
import { hasSecondFactor } from './passkey-webauthn.ts';
import type { SessionPrincipal } from './sessions.ts';

export interface Reauthentication {
  principal: SessionPrincipal;
  credentials: ReauthenticateInput;
  ipAddress: string | null;
}

/** What the change gets: the transaction's context, the locked user and session, and the factor used. */
export interface Reauthenticated {
  ctx: ServiceContext;
  user: AppUser;
  session: UserSession;
  method: SecondFactorMethod;
}

export async function withReauthentication<T>(
  ctx: ServiceContext,
  input: Reauthentication,
  change: (reauthenticated: Reauthenticated) => Promise<T>,
): Promise<T> {
  const { principal, credentials } = input;
  await refuseWhileThrottled(ctx, principal.user);
  const method: SecondFactorMethod = credentials.code !== undefined ? 'totp' : 'backup_code';

  const outcome = await ctx.em.transactional(async (tx): Promise<{ done: T } | { attemptsLeft: number }> => {
    const txCtx = { ...ctx, em: tx };
    const user = await lockedUser(tx, principal.user.id);
    if (!(await hasSecondFactor(txCtx, user))) {
      throw new Conflict('Two-step verification is not on for your account.', [], 'mfa_not_enabled');
    }
    const session = await tx.findOneOrFail(UserSession, { id: principal.session.id }, { refresh: true });
    const passwordRight = await verifyPassword(
      credentials.password,
      user.passwordHash ?? (await PADDING_PASSWORD_HASH),
    );
    // The code is only looked at (and a backup code only used up) after the right password.
    const factorRight =
      passwordRight &&
      user.passwordHash !== null &&
      (credentials.code !== undefined
        ? await acceptTotpCode(txCtx, user, credentials.code)
        : credentials.backupCode !== undefined &&
          (await useBackupCode(txCtx, user.id, credentials.backupCode)));
    if (!factorRight) {
      const attemptsLeft = countSecondFactorFailure(txCtx, {
        user,
        session,
        method: passwordRight ? method : 'password',
        purpose: 'reauthentication',
        ipAddress: input.ipAddress,
      });
      await tx.flush();
      return { attemptsLeft };
    }
    const done = await change({ ctx: txCtx, user, session, method });
    await tx.flush();
    return { done };
  });
  if ('done' in outcome) return outcome.done;
  throw new SecondFactorRefused(
    'invalid_credentials',
    'The password or the code is not right.',
    outcome.attemptsLeft,
  );
}
