// The second step of a sign-in (POST /api/auth/login/mfa, docs/accounts.md "Two-step verification"): the
// session the password step left `mfa_pending` gives a current code of the authenticator app or one unused
// backup code. Right: a new `active` session takes its place (a new token: the pending one ends), the backup
// code is used up, `user.signed_in` is recorded. Wrong: 401 `invalid_code`, counted (mfa-failures.ts).
//
// One transaction under the user's row lock, so a code, a backup code and the pending session each serve
// once even when requests race; a wrong code's count and event are committed before the 401 is thrown.
import { type AppUser, UserSession } from '../../db/entities/index.ts';
import type { LoginMfaInput } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { lockedUser } from './locked-user.ts';
import { useBackupCode } from './mfa-backup-codes.ts';
import {
  countSecondFactorFailure,
  ENDED_BY_WRONG_FACTORS,
  refuseWhileThrottled,
  type SecondFactorMethod,
  SecondFactorRefused,
  signInEnded,
} from './mfa-failures.ts';
import { acceptTotpCode } from './mfa-totp.ts';
import { hasSecondFactor } from './passkey-webauthn.ts';
import { recordOwnEvent } from './security-log.ts';
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
  const { factor } = input;
  const method: SecondFactorMethod = factor.code !== undefined ? 'totp' : 'backup_code';
  return completeSecondStep(ctx, input, {
    method,
    accept: async (txCtx, user) =>
      factor.code !== undefined
        ? acceptTotpCode(txCtx, user, factor.code)
        : factor.backupCode !== undefined && (await hasSecondFactor(txCtx, user))
          ? useBackupCode(txCtx, user.id, factor.backupCode)
          : false,
    refusal:
      method === 'totp'
        ? 'That code is not right (or was used already): enter the current code from your app.'
        : 'That backup code is not one of yours, or was used already.',
  });
}

export interface SecondStep {
  method: SecondFactorMethod;
  /** Whether the factor is right, inside the transaction that holds the user's row lock. */
  accept(ctx: ServiceContext, user: AppUser, session: UserSession): Promise<boolean>;
  /** The 401's message when it is not. */
  refusal: string;
}

/**
 * The second step of a sign-in, whatever the factor (a code, a backup code, a passkey): refused while
 * throttled; under the user's row lock, the pending session is checked, the factor accepted or the failure
 * counted (committed before the 401); accepted, a new `active` session replaces the pending one.
 */
export async function completeSecondStep(
  ctx: ServiceContext,
  input: { principal: SessionPrincipal; ipAddress: string | null; userAgent: string | null },
  step: SecondStep,
): Promise<StartedSession> {
  const { principal } = input;
  await refuseWhileThrottled(ctx, principal.user);

  const outcome = await ctx.em.transactional(async (tx): Promise<Outcome> => {
    const txCtx = { ...ctx, em: tx };
    const user = await lockedUser(tx, principal.user.id);
    const session = await tx.findOneOrFail(UserSession, { id: principal.session.id }, { refresh: true });
    // A request that raced the fifth wrong code, which ended the session meanwhile, is answered as it was.
    if (session.endedReason === ENDED_BY_WRONG_FACTORS) throw signInEnded();
    if (session.endedAt || session.state !== 'mfa_pending') {
      // Another request finished this sign-in meanwhile.
      throw new AppError(409, 'no_pending_sign_in', 'There is no sign-in waiting for a second step.');
    }
    if (!(await step.accept(txCtx, user, session))) {
      const attemptsLeft = countSecondFactorFailure(txCtx, {
        user,
        session,
        method: step.method,
        purpose: 'sign_in',
        ipAddress: input.ipAddress,
      });
      await tx.flush();
      return { attemptsLeft };
    }
    user.lastLoginAt = nowOf(ctx);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.signed_in',
      details: { method: step.method, state: 'active' },
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
  throw new SecondFactorRefused('invalid_code', step.refusal, outcome.attemptsLeft);
}
