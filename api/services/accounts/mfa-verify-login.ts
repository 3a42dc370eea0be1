// The second step of a sign-in (POST /api/auth/login/mfa, docs/accounts.md "Two-step verification"): the
// session the password step left `mfa_pending` gives a current code of the authenticator app or one unused
// backup code. Right: a new `active` session takes its place (a new token: the pending one ends), the backup
// code is used up, `user.signed_in` is recorded. Wrong: 401 `invalid_code`, counted (mfa-failures.ts).
//
// One transaction under the user's row lock, so a code, a backup code and the pending session each serve
// once even when requests race; a wrong code's count and event are committed before the 401 is thrown.
import { LockMode } from '@mikro-orm/core';
import { AppUser, UserSession } from '../../../db/entities/index.ts';
import type { LoginMfaInput } from '../../../domain/account.ts';
import { AppError } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { useBackupCode } from './mfa-backup-codes.ts';
import {
  countSecondFactorFailure,
  refuseWhileThrottled,
  type SecondFactorMethod,
  SecondFactorRefused,
} from './mfa-failures.ts';
import { acceptTotpCode } from './mfa-totp.ts';
import { recordSecurityEvent } from './security-log.ts';
import { nowOf, type SessionPrincipal, type StartedSession, startSession } from './sessions.ts';

export interface VerifyLoginMfaInput {
  principal: SessionPrincipal;
  factor: LoginMfaInput;
  ipAddress: string | null;
  userAgent: string | null;
}

type Outcome = { signedIn: StartedSession } | { attemptsLeft: number };

export async function verifyLoginMfa(
  ctx: ServiceContext,
  input: VerifyLoginMfaInput,
): Promise<StartedSession> {
  const { principal, factor } = input;
  await refuseWhileThrottled(ctx, principal.user);
  const method: SecondFactorMethod = factor.code !== undefined ? 'totp' : 'backup_code';

  const outcome = await ctx.em.transactional(async (tx): Promise<Outcome> => {
    const txCtx = { ...ctx, em: tx };
    const user = await tx.findOneOrFail(
      AppUser,
      { id: principal.user.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const session = await tx.findOneOrFail(UserSession, { id: principal.session.id }, { refresh: true });
    if (session.endedAt || session.state !== 'mfa_pending') {
      // Another request finished (or failed) this sign-in meanwhile.
      throw new AppError(409, 'no_pending_sign_in', 'There is no sign-in waiting for a second step.');
    }
    const accepted =
      factor.code !== undefined
        ? await acceptTotpCode(txCtx, user, factor.code)
        : factor.backupCode !== undefined && user.totpEnabledAt !== null
          ? await useBackupCode(txCtx, user.id, factor.backupCode)
          : false;
    if (!accepted) {
      const attemptsLeft = countSecondFactorFailure(txCtx, {
        user,
        session,
        method,
        purpose: 'sign_in',
        ipAddress: input.ipAddress,
      });
      await tx.flush();
      return { attemptsLeft };
    }
    user.lastLoginAt = nowOf(ctx);
    recordSecurityEvent(txCtx, {
      organizationId: user.organizationId,
      type: 'user.signed_in',
      actorUserId: user.id,
      ipAddress: input.ipAddress,
      details: { method, state: 'active' },
    });
    const signedIn = await startSession(txCtx, {
      user,
      state: 'active',
      ipAddress: input.ipAddress,
      userAgent: input.userAgent,
      replaces: session,
    });
    return { signedIn };
  });

  if ('signedIn' in outcome) return outcome.signedIn;
  throw new SecondFactorRefused(
    'invalid_code',
    method === 'totp'
      ? 'That code is not right (or was used already): enter the current code from your app.'
      : 'That backup code is not one of yours, or was used already.',
    outcome.attemptsLeft,
  );
}
