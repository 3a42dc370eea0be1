// POST /api/auth/login (docs/accounts.md, "Routes" and "Abuse"). A wrong password, an unknown address, a
// deactivated account and an invitation not yet accepted are one answer — 401 `invalid_credentials` — in
// about the same time (an unknown address is checked against a padding hash), and count alike towards the
// address's throttle, so nothing tells whether an account exists. Only after the right password does an
// unverified address get 403 `email_not_verified`. A right password starts a new session (a new token,
// ending the browser's previous one): `mfa_pending` when the user has a second factor (app or passkey), else
// `mfa_enrolment_required` when the organization requires MFA, else `active`.
import { Organization, type UserSession } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { AppError, Unauthorized } from '../errors.ts';
import { PADDING_PASSWORD_HASH, verifyPassword } from '../security/passwords.ts';
import { passwordRefusedBySso, ssoRequired } from '../sso/sso-policy.ts';
import { findUserByEmail, type SignedIn, signIn } from './account-users.ts';
import { checkLoginThrottle, clearLoginThrottle, recordLoginFailure } from './login-throttle.ts';
import { recordSecurityEvent } from './security-log.ts';
import type { SessionClock } from './sessions.ts';

export const invalidCredentials = () =>
  new Unauthorized('Email or password is wrong.', 'invalid_credentials');

export async function login(
  ctx: DataContext & SessionClock,
  input: { email: string; password: string },
  meta: { ipAddress: string; userAgent: string | null; currentSession: UserSession | null },
): Promise<SignedIn> {
  const email = input.email.toLowerCase();
  await checkLoginThrottle(ctx, email, meta.ipAddress);
  const user = await findUserByEmail(ctx, email);
  const hash = user?.passwordHash ?? (await PADDING_PASSWORD_HASH);
  const passwordRight = await verifyPassword(input.password, hash);

  if (user?.status !== 'active' || !user.passwordHash || !passwordRight) {
    const { failures, lockStarted } = await recordLoginFailure(ctx, email, meta.ipAddress);
    if (user) {
      const base = {
        organizationId: user.organizationId,
        subjectUserId: user.id,
        subjectEmail: user.email,
        ipAddress: meta.ipAddress,
      };
      recordSecurityEvent(ctx, {
        ...base,
        type: 'user.sign_in_failed',
        details: { reason: failureReason(user.status, passwordRight), failures },
      });
      if (lockStarted) recordSecurityEvent(ctx, { ...base, type: 'user.locked_out', details: { failures } });
      await ctx.em.flush();
    }
    throw invalidCredentials();
  }

  if (await passwordRefusedBySso(ctx, user)) {
    // The organization requires single sign-on and this is not its break-glass owner (docs/sso.md): said only
    // after the right password, so it tells nothing about an account to whom does not know it.
    recordSecurityEvent(ctx, {
      organizationId: user.organizationId,
      type: 'user.sign_in_failed',
      subjectUserId: user.id,
      subjectEmail: user.email,
      ipAddress: meta.ipAddress,
      details: { method: 'password', reason: 'sso_required' },
    });
    await ctx.em.flush();
    throw ssoRequired();
  }
  if (!user.emailVerifiedAt) {
    throw new AppError(
      403,
      'email_not_verified',
      'Confirm your email address first: open the link we emailed you, or ask for a new one.',
    );
  }
  await clearLoginThrottle(ctx, email);
  const organization = await ctx.em.findOneOrFail(Organization, { id: user.organizationId });
  return signIn(ctx, {
    user,
    organization,
    replaces: meta.currentSession,
    ipAddress: meta.ipAddress,
    userAgent: meta.userAgent,
    method: 'password',
  });
}

/** Why a sign-in failed, for the organization's security log (never shown to the caller). */
function failureReason(status: string, passwordRight: boolean): string {
  if (status === 'deactivated') return 'deactivated';
  if (status === 'invited') return 'invitation_not_accepted';
  return passwordRight ? 'refused' : 'wrong_password';
}
