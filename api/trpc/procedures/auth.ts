// Account and session: register, verify email, sign-in, sign-out, me, preferences, password reset, invitations,
// and the user's own account on the profile: name and phone, password, email address (docs/accounts.md).
import type { FastifyBaseLogger } from 'fastify';
import {
  AcceptInviteRequest,
  ClaimedInvite,
  ClaimedPasswordReset,
  ClaimInviteRequest,
  ClaimPasswordResetRequest,
  LoginRequest,
  LoginResult,
  Me,
  Ok,
  RegisterRequest,
  RequestEmailVerificationRequest,
  RequestPasswordResetRequest,
  ResetPasswordRequest,
  UpdateUserPreferencesRequest,
  VerifyEmailRequest,
} from '../../../domain/account.ts';
import {
  ChangePasswordRequest,
  ConfirmEmailChangeRequest,
  ConfirmedEmailChange,
  RequestEmailChangeRequest,
  UpdateProfileRequest,
} from '../../../domain/account-profile.ts';
import { acceptInvite, claimInvite } from '../../../services/accounts/accept-invite.ts';
import {
  type AccountEmail,
  type AccountEmailSent,
  sendAccountEmailLater,
} from '../../../services/accounts/account-emails.ts';
import type { SignedIn } from '../../../services/accounts/account-users.ts';
import { confirmEmailChange, requestEmailChange } from '../../../services/accounts/change-email.ts';
import { changePassword } from '../../../services/accounts/change-password.ts';
import { forgotPassword } from '../../../services/accounts/forgot-password.ts';
import { login } from '../../../services/accounts/login.ts';
import { logout } from '../../../services/accounts/logout.ts';
import { describeMe, updatePreferences } from '../../../services/accounts/me.ts';
import { register } from '../../../services/accounts/register.ts';
import { resendVerification } from '../../../services/accounts/resend-verification.ts';
import { claimPasswordReset, resetPassword } from '../../../services/accounts/reset-password.ts';
import { updateProfile } from '../../../services/accounts/update-profile.ts';
import { verifyEmail } from '../../../services/accounts/verify-email.ts';
import { type AppContext, areaRoute, principalOf, procedure, router } from '../init.ts';

const OK = { ok: true } as const;
const route = areaRoute('auth');

/**
 * Sends a use case's email after the answer (its time must not tell whether an address is known). One that
 * could not be sent is logged, with its kind and the reason but never the link; the user can ask again.
 */
function sendLater(ctx: AppContext, email: AccountEmail | null) {
  if (!email) return;
  const log: FastifyBaseLogger = ctx.log;
  sendAccountEmailLater(ctx.services, email, (sent: AccountEmailSent) => {
    if (sent.outcome.status === 'failed') {
      log.warn({ accountEmail: sent.kind, reason: sent.outcome.error }, 'an account email could not be sent');
    }
  });
}

/** The new session's cookie, and what the sign-in step answers. */
function signedIn(ctx: AppContext, signed: SignedIn) {
  ctx.cookies.setSession(signed.token, signed.session.expiresAt);
  return signed.result;
}

const meta = (ctx: AppContext) => ({
  ipAddress: ctx.ipAddress,
  userAgent: ctx.userAgent,
  currentSession: ctx.session?.session ?? null,
});

const INVALID_TOKEN = '`invalid_token`: the link is unknown, used, expired or replaced by a newer one';

export const authRouter = router({
  register: procedure
    .meta(
      route('POST', '/api/auth/register', {
        summary: 'Register an organization and its owner',
        description:
          'Creates the organization on the chosen plan (default Starter) and its first user with the Owner ' +
          'role, and emails a verification link; signing in waits for it. An address that already has an ' +
          'account gets the same answer (and its holder a notice), so this route tells nobody whether an ' +
          'address is known.',
        access: 'public',
      }),
    )
    .input(RegisterRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const { email } = await register(ctx.services, input, { ipAddress: ctx.ipAddress });
      sendLater(ctx, email);
      return OK;
    }),

  verifyEmail: procedure
    .meta(
      route('POST', '/api/auth/verify-email', {
        summary: 'Confirm an email address with the emailed link',
        description: `The token of the verification link works once. 400 ${INVALID_TOKEN}.`,
        access: 'public',
      }),
    )
    .input(VerifyEmailRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      await verifyEmail(ctx.services, input.token, { ipAddress: ctx.ipAddress });
      return OK;
    }),

  resendVerification: procedure
    .meta(
      route('POST', '/api/auth/resend-verification', {
        summary: 'Email a new verification link',
        description:
          'Only an active user whose address is not verified gets one (at most one a minute; earlier links ' +
          'stop working); every address gets the same answer.',
        access: 'public',
      }),
    )
    .input(RequestEmailVerificationRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const { email } = await resendVerification(ctx.services, input.email);
      sendLater(ctx, email);
      return OK;
    }),

  login: procedure
    .meta(
      route('POST', '/api/auth/login', {
        summary: 'Sign in with email and password',
        description:
          'Sets the session cookie (`sigil_session`, a new one at every sign-in). `status` says what comes ' +
          'next: `signed_in`; `mfa_required` (send a code to POST /api/auth/login/mfa); ' +
          '`mfa_enrolment_required` (the organization requires MFA: only enrolment and sign-out are open).',
        access: 'public',
        errors: {
          401: '`invalid_credentials`: the email or the password is wrong (the same answer for every reason)',
          403:
            '`email_not_verified`: the password is right but the email address is not confirmed yet; ' +
            '`organization_suspended` / `organization_deleted`: the password is right but a platform ' +
            'administrator suspended or deleted the organization',
          429: '`rate_limited`: too many failures, wait Retry-After seconds; `account_locked`: locked for 15 minutes',
        },
      }),
    )
    .input(LoginRequest)
    .output(LoginResult)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await login(ctx.services, input, meta(ctx)))),

  logout: procedure
    .meta(
      route('POST', '/api/auth/logout', {
        summary: 'Sign out',
        description:
          'Ends the session the cookie names (also one waiting for its second step) and clears the cookie. ' +
          'Without a session: nothing to end, the same answer.',
        access: 'public',
      }),
    )
    .output(Ok)
    .mutation(async ({ ctx }) => {
      await logout(ctx.services, ctx.session, { ipAddress: ctx.ipAddress });
      ctx.cookies.clearSession();
      return OK;
    }),

  me: procedure
    .meta(
      route('GET', '/api/auth/me', {
        summary: 'The signed-in user',
        description:
          'The user, their organization, role, team and permissions, and the session (its state, idle ' +
          'timeout and absolute end).',
        access: 'enrolling',
      }),
    )
    .output(Me)
    .query(({ ctx }) => describeMe(ctx.services, principalOf(ctx))),

  updatePreferences: procedure
    .meta(
      route('PUT', '/api/auth/me/preferences', {
        summary: "Change the signed-in user's preferences",
        description: 'The language of the application and of emails to the user: `en` or `he`.',
        access: 'enrolling',
      }),
    )
    .input(UpdateUserPreferencesRequest)
    .output(Me)
    .mutation(({ ctx, input }) => updatePreferences(ctx.services, principalOf(ctx), input)),

  updateProfile: procedure
    .meta(
      route('PUT', '/api/auth/me/profile', {
        summary: "Change the signed-in user's name and phone number",
        description:
          '`fullName` (1 to 200 characters) and `phone` (international form, for example +972501234567; ' +
          'spaces and dashes are removed; null: none). Logged as `user.profile_updated` when something changed.',
        access: 'signed-in',
      }),
    )
    .input(UpdateProfileRequest)
    .output(Me)
    .mutation(({ ctx, input }) =>
      updateProfile(ctx.services, { principal: principalOf(ctx), request: input, ipAddress: ctx.ipAddress }),
    ),

  changePassword: procedure
    .meta(
      route('POST', '/api/auth/me/password', {
        summary: "Change the signed-in user's password",
        description:
          'Needs the current password; the new one follows the sign-up rules. Every other session of the user ' +
          'ends (this one stays) and the user is emailed.',
        access: 'signed-in',
        errors: {
          400: '`invalid_request` naming `body.currentPassword` when it is wrong (counted like a failed sign-in), or `body.newPassword` when the new one breaks the rules',
          429: '`rate_limited` / `account_locked`: too many wrong passwords for the address, as at sign-in',
        },
      }),
    )
    .input(ChangePasswordRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const email = await changePassword(ctx.services, {
        principal: principalOf(ctx),
        request: input,
        ipAddress: ctx.ipAddress,
      });
      sendLater(ctx, email);
      return OK;
    }),

  requestEmailChange: procedure
    .meta(
      route('POST', '/api/auth/me/email', {
        summary: "Ask to change the signed-in user's email address",
        description:
          'Needs the current password. Emails a link that works once for 24 hours to the new address and ' +
          'tells the old one; the address changes only when the link is opened (POST ' +
          '/api/auth/confirm-email-change). The answer does not tell whether the new address has an account.',
        access: 'signed-in',
        errors: {
          400: '`invalid_request` naming `body.currentPassword` when it is wrong (counted like a failed sign-in), or `body.newEmail` when it is already your address',
          429: '`rate_limited` / `account_locked`: too many wrong passwords for the address, as at sign-in',
        },
      }),
    )
    .input(RequestEmailChangeRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const emails = await requestEmailChange(ctx.services, {
        principal: principalOf(ctx),
        request: input,
        ipAddress: ctx.ipAddress,
      });
      for (const email of emails) sendLater(ctx, email);
      return OK;
    }),

  confirmEmailChange: procedure
    .meta(
      route('POST', '/api/auth/confirm-email-change', {
        summary: 'Confirm a new email address with the emailed link',
        description:
          "Uses the link: the account signs in with the new address from now on, the user's other sessions " +
          `end and the old address is told. 400 ${INVALID_TOKEN}.`,
        access: 'public',
        errors: { 409: '`email_taken`: the new address has an account by now' },
      }),
    )
    .input(ConfirmEmailChangeRequest)
    .output(ConfirmedEmailChange)
    .mutation(async ({ ctx, input }) => {
      const { email, notice } = await confirmEmailChange(ctx.services, {
        token: input.token,
        currentSession: ctx.session?.session ?? null,
        ipAddress: ctx.ipAddress,
      });
      sendLater(ctx, notice);
      return { email };
    }),

  forgotPassword: procedure
    .meta(
      route('POST', '/api/auth/forgot-password', {
        summary: 'Email a password reset link',
        description:
          'An active user gets a single-use link that works for one hour (at most one a minute); every ' +
          'address gets the same answer.',
        access: 'public',
      }),
    )
    .input(RequestPasswordResetRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const { email } = await forgotPassword(ctx.services, input.email, { ipAddress: ctx.ipAddress });
      sendLater(ctx, email);
      return OK;
    }),

  claimPasswordReset: procedure
    .meta(
      route('POST', '/api/auth/reset-password/claim', {
        summary: 'Whose account a password reset link is for',
        description: `Does not use the link. 400 ${INVALID_TOKEN}.`,
        access: 'public',
      }),
    )
    .input(ClaimPasswordResetRequest)
    .output(ClaimedPasswordReset)
    .mutation(({ ctx, input }) => claimPasswordReset(ctx.services, input.token)),

  resetPassword: procedure
    .meta(
      route('POST', '/api/auth/reset-password', {
        summary: 'Set a new password with the emailed link',
        description:
          'Uses the link, ends every session of the user (sign in again) and confirms the email address. ' +
          `400 ${INVALID_TOKEN}.`,
        access: 'public',
      }),
    )
    .input(ResetPasswordRequest)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      await resetPassword(ctx.services, input, { ipAddress: ctx.ipAddress });
      return OK;
    }),

  claimInvite: procedure
    .meta(
      route('POST', '/api/auth/accept-invite/claim', {
        summary: 'Who an invitation link is for',
        description: `The invited email and name, the organization and the role. Does not use the link. 400 ${INVALID_TOKEN}.`,
        access: 'public',
      }),
    )
    .input(ClaimInviteRequest)
    .output(ClaimedInvite)
    .mutation(({ ctx, input }) => claimInvite(ctx.services, input.token)),

  acceptInvite: procedure
    .meta(
      route('POST', '/api/auth/accept-invite', {
        summary: 'Accept an invitation: set name and password, and sign in',
        description:
          'Uses the link, confirms the email address and signs in like POST /api/auth/login (the session ' +
          `cookie; \`mfa_enrolment_required\` when the organization requires MFA). 400 ${INVALID_TOKEN}.`,
        access: 'public',
      }),
    )
    .input(AcceptInviteRequest)
    .output(LoginResult)
    .mutation(async ({ ctx, input }) => signedIn(ctx, await acceptInvite(ctx.services, input, meta(ctx)))),
});
