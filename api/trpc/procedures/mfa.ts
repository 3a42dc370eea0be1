// Two-step verification: the sign-in's second step, TOTP enrolment, passkeys, backup codes, turning it off
// (docs/accounts.md, "Two-step verification"). Each procedure wires its route to one service of
// services/accounts/mfa-*.ts; a new session's cookie is set here, and a session a wrong code ended has
// its cookie cleared.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  BackupCodes,
  ConfirmTotpRequest,
  LoginMfaInput,
  LoginPasskeyRequest,
  LoginResult,
  Ok,
  PasskeyAuthenticationOptions,
  PasskeyList,
  PasskeyRegistrationOptions,
  ReauthenticateInput,
  RegisteredPasskey,
  RegisterPasskeyRequest,
  RemovePasskeyInput,
  TotpSetup,
} from '../../../domain/account.ts';
import { disableMfa } from '../../../services/accounts/mfa-disable.ts';
import { SecondFactorRefused } from '../../../services/accounts/mfa-failures.ts';
import { regenerateBackupCodes } from '../../../services/accounts/mfa-regenerate-backup-codes.ts';
import { confirmTotp } from '../../../services/accounts/mfa-totp-confirm.ts';
import { setUpTotp } from '../../../services/accounts/mfa-totp-setup.ts';
import { verifyLoginMfa } from '../../../services/accounts/mfa-verify-login.ts';
import {
  listPasskeys,
  passkeyRegistrationOptions,
  registerPasskey,
} from '../../../services/accounts/passkey-register.ts';
import { removePasskey } from '../../../services/accounts/passkey-remove.ts';
import { passkeySignInOptions, signInWithPasskey } from '../../../services/accounts/passkey-sign-in.ts';
import { type AppContext, areaRoute, principalOf, procedure, router } from '../init.ts';

/** Runs `call`; when it fails with a wrong code that ended the session, the answer clears the cookie too. */
async function clearingEndedSession<T>(ctx: AppContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SecondFactorRefused && error.sessionEnded) ctx.cookies.clearSession();
    throw error;
  }
}

const route = areaRoute('auth');

export const mfaRouter = router({
  verifyLogin: procedure
    .meta(
      route('POST', '/api/auth/login/mfa', {
        summary: 'Finish signing in with a second factor',
        description:
          'After POST /api/auth/login answered `mfa_required`: send `code` (six digits from the authenticator ' +
          'app; a code is accepted once) or `backupCode` (each works once). Right: a new session cookie ' +
          'replaces the pending one. Wrong: 401 `invalid_code` with `details[0].attemptsLeft`; the fifth wrong ' +
          'code ends the pending session (sign in again), and ten within 15 minutes for one account answer 429.',
        access: 'mfa-pending',
        errors: {
          401: 'Wrong or used code (`invalid_code`), or no pending sign-in session',
          409: 'The session is not waiting for a second step (`no_pending_sign_in`)',
          429: 'Too many wrong codes for the account lately; Retry-After says when to try again',
        },
      }),
    )
    .input(LoginMfaInput)
    .output(LoginResult)
    .mutation(async ({ ctx, input }) => {
      const { token, session } = await clearingEndedSession(ctx, () =>
        verifyLoginMfa(ctx.services, {
          principal: principalOf(ctx),
          factor: input,
          ipAddress: ctx.ipAddress,
          userAgent: ctx.userAgent,
        }),
      );
      ctx.cookies.setSession(token, session.expiresAt);
      return { status: 'signed_in' as const, methods: [] };
    }),

  totpSetup: procedure
    .meta(
      route('POST', '/api/auth/mfa/totp/setup', {
        summary: 'Start setting up an authenticator app',
        description:
          'A new secret (SHA-1, 6 digits, 30 s), as base32, as an otpauth:// URL and as that URL in an SVG QR ' +
          'code. It is stored encrypted and takes effect when POST /api/auth/mfa/totp/confirm gets its first ' +
          'code; asking again replaces it. Open to a session the organization holds for enrolment.',
        access: 'enrolling',
        errors: { 409: 'An authenticator app is already on (`mfa_already_enabled`): turn it off first' },
      }),
    )
    .output(TotpSetup)
    .mutation(({ ctx }) => setUpTotp(ctx.services, principalOf(ctx))),

  totpConfirm: procedure
    .meta(
      route('POST', '/api/auth/mfa/totp/confirm', {
        summary: 'Turn on two-step verification with the first code',
        description:
          'The code the app shows for the secret of the setup turns two-step verification on and answers ten ' +
          'single-use backup codes, shown only this once. A session held for enrolment becomes a full session ' +
          'with a new cookie.',
        access: 'enrolling',
        errors: {
          409: 'Already on (`mfa_already_enabled`), or no setup started (`no_totp_setup`)',
        },
      }),
    )
    .input(ConfirmTotpRequest)
    .output(BackupCodes)
    .mutation(async ({ ctx, input }) => {
      const { backupCodes, newSession } = await confirmTotp(ctx.services, {
        principal: principalOf(ctx),
        code: input.code,
        ipAddress: ctx.ipAddress,
        userAgent: ctx.userAgent,
      });
      if (newSession) ctx.cookies.setSession(newSession.token, newSession.session.expiresAt);
      return { backupCodes };
    }),

  disable: procedure
    .meta(
      route('POST', '/api/auth/mfa/disable', {
        summary: 'Turn two-step verification off',
        description:
          'Needs the password and a current code (`code`) or a backup code (`backupCode`). Removes the secret ' +
          'and every backup code and signs out the user’s other sessions. A wrong password or code is 401 ' +
          '`invalid_credentials` (the fifth ends this session too).',
        access: 'signed-in',
        errors: {
          401: 'Wrong password or code (`invalid_credentials`), or not signed in',
          403:
            'The organization requires two-step verification (`mfa_required_by_organization`), or the user ' +
            'must set it up first (`mfa_enrolment_required`)',
          409: 'Two-step verification is not on (`mfa_not_enabled`)',
          429: 'Too many wrong codes for the account lately',
        },
      }),
    )
    .input(ReauthenticateInput)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      await clearingEndedSession(ctx, () =>
        disableMfa(ctx.services, {
          principal: principalOf(ctx),
          credentials: input,
          ipAddress: ctx.ipAddress,
        }),
      );
      return { ok: true as const };
    }),

  regenerateBackupCodes: procedure
    .meta(
      route('POST', '/api/auth/mfa/backup-codes', {
        summary: 'Replace the backup codes',
        description:
          'Needs the password and a current code or a backup code. Answers ten new single-use codes, shown ' +
          'only this once; the earlier ones stop working.',
        access: 'signed-in',
        errors: {
          401: 'Wrong password or code (`invalid_credentials`), or not signed in',
          403: 'The organization requires MFA and the user has not set it up yet (`mfa_enrolment_required`)',
          409: 'Two-step verification is not on (`mfa_not_enabled`)',
          429: 'Too many wrong codes for the account lately',
        },
      }),
    )
    .input(ReauthenticateInput)
    .output(BackupCodes)
    .mutation(async ({ ctx, input }) => {
      const backupCodes = await clearingEndedSession(ctx, () =>
        regenerateBackupCodes(ctx.services, {
          principal: principalOf(ctx),
          credentials: input,
          ipAddress: ctx.ipAddress,
        }),
      );
      return { backupCodes };
    }),

  // ---- Passkeys (WebAuthn) ---------------------------------------------------------------------------------

  passkeyRegistrationOptions: procedure
    .meta(
      route('POST', '/api/auth/mfa/passkeys/registration-options', {
        summary: 'Start registering a passkey',
        description:
          'PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create() (binary fields in ' +
          'base64url): the relying party is PUBLIC_BASE_URL’s host, the user’s passkeys are excluded, user ' +
          'verification is preferred. Its challenge is kept on the session for five minutes; asking again ' +
          'replaces it. Open to a session the organization holds for enrolment.',
        access: 'enrolling',
        errors: { 409: 'The user has the most passkeys allowed (`too_many_passkeys`)' },
      }),
    )
    .output(PasskeyRegistrationOptions)
    .mutation(
      async ({ ctx }) =>
        (await passkeyRegistrationOptions(
          ctx.services,
          principalOf(ctx),
        )) as unknown as PasskeyRegistrationOptions,
    ),

  registerPasskey: procedure
    .meta(
      route('POST', '/api/auth/mfa/passkeys', {
        summary: 'Register a passkey',
        description:
          'The RegistrationResponseJSON of navigator.credentials.create() with the options of ' +
          'POST /api/auth/mfa/passkeys/registration-options, verified against their challenge (taken once), ' +
          'PUBLIC_BASE_URL’s origin and RP ID. When it is the user’s first second factor the answer carries ' +
          'ten single-use backup codes (shown only this once) and a session held for enrolment becomes a full ' +
          'session with a new cookie.',
        access: 'enrolling',
        errors: {
          409:
            'No registration waiting or it expired (`no_passkey_challenge`), the passkey is registered ' +
            'already (`passkey_already_registered`), or too many (`too_many_passkeys`)',
        },
      }),
    )
    .input(RegisterPasskeyRequest)
    .output(RegisteredPasskey)
    .mutation(async ({ ctx, input }) => {
      const { passkey, backupCodes, newSession } = await registerPasskey(ctx.services, {
        principal: principalOf(ctx),
        name: input.name,
        response: input.response as unknown as RegistrationResponseJSON,
        ipAddress: ctx.ipAddress,
        userAgent: ctx.userAgent,
      });
      if (newSession) ctx.cookies.setSession(newSession.token, newSession.session.expiresAt);
      return { ...passkey, backupCodes };
    }),

  listPasskeys: procedure
    .meta(
      route('GET', '/api/auth/mfa/passkeys', {
        summary: 'List the user’s passkeys',
        description:
          'The signed-in user’s passkeys, oldest first: names and when they were made and last used.',
        access: 'enrolling',
      }),
    )
    .output(PasskeyList)
    .query(async ({ ctx }) => ({ passkeys: await listPasskeys(ctx.services, principalOf(ctx)) })),

  removePasskey: procedure
    .meta(
      route('POST', '/api/auth/mfa/passkeys/{id}/remove', {
        summary: 'Remove a passkey',
        description:
          'Needs the password and a current code (`code`) or a backup code (`backupCode`), as turning ' +
          'two-step verification off does (a POST, so the password travels in the body, never in a URL). ' +
          'Removing the last second factor removes the backup codes too and signs out the user’s other ' +
          'sessions; an organization that requires two-step verification refuses it.',
        access: 'signed-in',
        errors: {
          401: 'Wrong password or code (`invalid_credentials`), or not signed in',
          403:
            'It is the last second factor and the organization requires two-step verification ' +
            '(`mfa_required_by_organization`), or the user must set it up first (`mfa_enrolment_required`)',
          404: 'No such passkey of the user',
          409: 'Two-step verification is not on (`mfa_not_enabled`)',
          429: 'Too many wrong codes for the account lately',
        },
      }),
    )
    .input(RemovePasskeyInput)
    .output(Ok)
    .mutation(async ({ ctx, input }) => {
      const { id, ...credentials } = input;
      await clearingEndedSession(ctx, () =>
        removePasskey(ctx.services, {
          principal: principalOf(ctx),
          passkeyId: id,
          credentials,
          ipAddress: ctx.ipAddress,
        }),
      );
      return { ok: true as const };
    }),

  passkeySignInOptions: procedure
    .meta(
      route('POST', '/api/auth/login/mfa/passkey-options', {
        summary: 'Start the second step with a passkey',
        description:
          'After POST /api/auth/login answered `mfa_required` with `passkey` among its methods: ' +
          'PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get(), allowing the user’s ' +
          'passkeys. Its challenge is kept on the pending session for five minutes; asking again replaces it.',
        access: 'mfa-pending',
        errors: {
          401: 'No pending sign-in session',
          409: 'The session is not waiting for a second step (`no_pending_sign_in`), or the user has no passkey (`no_passkeys`)',
        },
      }),
    )
    .output(PasskeyAuthenticationOptions)
    .mutation(
      async ({ ctx }) =>
        (await passkeySignInOptions(
          ctx.services,
          principalOf(ctx),
        )) as unknown as PasskeyAuthenticationOptions,
    ),

  verifyLoginPasskey: procedure
    .meta(
      route('POST', '/api/auth/login/mfa/passkey', {
        summary: 'Finish signing in with a passkey',
        description:
          'The AuthenticationResponseJSON of navigator.credentials.get() with the options of ' +
          'POST /api/auth/login/mfa/passkey-options. Right: a new session cookie replaces the pending one. ' +
          'Wrong (another challenge, a used or expired one, a passkey of someone else, a signature counter ' +
          'that did not grow): 401 `invalid_code`, counted as a wrong code is (the fifth ends the pending ' +
          'session; ten within 15 minutes for one account answer 429).',
        access: 'mfa-pending',
        errors: {
          401: 'The passkey’s answer was refused (`invalid_code`), or no pending sign-in session',
          409: 'The session is not waiting for a second step (`no_pending_sign_in`)',
          429: 'Too many wrong codes for the account lately; Retry-After says when to try again',
        },
      }),
    )
    .input(LoginPasskeyRequest)
    .output(LoginResult)
    .mutation(async ({ ctx, input }) => {
      const { token, session } = await clearingEndedSession(ctx, () =>
        signInWithPasskey(ctx.services, {
          principal: principalOf(ctx),
          response: input.response as unknown as AuthenticationResponseJSON,
          ipAddress: ctx.ipAddress,
          userAgent: ctx.userAgent,
        }),
      );
      ctx.cookies.setSession(token, session.expiresAt);
      return { status: 'signed_in' as const, methods: [] };
    }),
});
