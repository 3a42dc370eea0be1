// Single sign-on with OpenID Connect (docs/sso.md): the organization's provider settings and the two steps of a
// sign-in through it. The provider sends the browser back to the web app's /app/sso/callback page, which forwards
// what it received to POST /api/auth/sso/callback (the application API answers JSON, never a redirect).
import { LoginResult, Ok } from '../../../domain/account.ts';
import {
  SsoCallbackRequest,
  SsoSettings,
  SsoStart,
  SsoStartRequest,
  UpdateSsoSettingsRequest,
} from '../../../domain/sso.ts';
import { completeSsoSignIn } from '../../../services/sso/complete-sso-sign-in.ts';
import { getSsoSettings, removeSsoSettings, updateSsoSettings } from '../../../services/sso/sso-settings.ts';
import { startSsoSignIn } from '../../../services/sso/start-sso-sign-in.ts';
import { areaRoute, procedure, router } from '../init.ts';
import { actorOf } from './administration-actor.ts';

const route = areaRoute('sso');

export const ssoRouter = router({
  settings: procedure
    .meta(
      route('GET', '/api/organization/sso', {
        summary: "The organization's single sign-on provider",
        description:
          'The OpenID provider (issuer, client id, whether a client secret is stored — never the secret), the ' +
          'allowed email domains, just-in-time accounts, "SSO required" with its break-glass owner, and the ' +
          'redirect URI to register at the provider. `configured` is false until one is saved.',
        access: 'settings:read',
      }),
    )
    .output(SsoSettings)
    .query(({ ctx }) => getSsoSettings(ctx.services, actorOf(ctx))),

  updateSettings: procedure
    .meta(
      route('PUT', '/api/organization/sso', {
        summary: "Set the organization's single sign-on provider",
        description:
          "The whole setting. The issuer's metadata is discovered with the client before anything is stored; " +
          '`clientSecret` is required the first time and write-only (absent: the stored one is kept); it is ' +
          'stored encrypted. A refused field changes nothing.',
        access: 'settings:manage',
        errors: {
          409: '`sso_domain_taken`: another organization signs in with one of the allowed domains',
          403: '`forbidden`: the just-in-time role has permissions your role does not',
        },
      }),
    )
    .input(UpdateSsoSettingsRequest)
    .output(SsoSettings)
    .mutation(({ ctx, input }) => updateSsoSettings(ctx.services, actorOf(ctx), input)),

  removeSettings: procedure
    .meta(
      route('DELETE', '/api/organization/sso', {
        summary: "Remove the organization's single sign-on provider",
        description: 'Single sign-on ends; everyone signs in with a password again.',
        access: 'settings:manage',
        errors: { 404: '`not_found`: single sign-on is not set up' },
      }),
    )
    .output(Ok)
    .mutation(async ({ ctx }) => {
      await removeSsoSettings(ctx.services, actorOf(ctx));
      return { ok: true as const };
    }),

  start: procedure
    .meta(
      route('POST', '/api/auth/sso/start', {
        summary: 'Start signing in with single sign-on',
        description:
          "Finds the organization whose allowed domains hold the address's domain and answers the URL of its " +
          "provider's authorization endpoint (authorization code with PKCE S256, a one-time `state` and `nonce` " +
          'kept by the server for 10 minutes). Send the browser there.',
        access: 'public',
        errors: {
          404: '`sso_not_configured`: no organization signs in with single sign-on at that domain',
          503: '`sso_provider_unavailable`: the provider did not answer',
        },
      }),
    )
    .input(SsoStartRequest)
    .output(SsoStart)
    .mutation(({ ctx, input }) => startSsoSignIn(ctx.services, input)),

  callback: procedure
    .meta(
      route('POST', '/api/auth/sso/callback', {
        summary: 'Finish signing in with single sign-on',
        description:
          'What the provider appended to the redirect URI (`state`, `code`, `iss`, or `error`). The state works ' +
          'once. The ID token is checked (issuer, audience, signature, expiry, nonce); a verified email address ' +
          "at one of the organization's allowed domains signs its active user in (or makes a just-in-time " +
          'account) and sets the session cookie; `status` as for POST /api/auth/login.',
        access: 'public',
        errors: {
          400: '`sso_state_invalid`: the state is unknown, used or expired',
          401: '`sso_provider_error`: the provider did not sign the user in; `sso_token_rejected`: its answer did not verify',
          403:
            '`sso_email_missing`, `sso_email_not_verified`, `sso_domain_not_allowed`, `sso_no_account`, ' +
            '`sso_account_disabled`: refused (the message says why); `organization_suspended` / `organization_deleted`',
        },
      }),
    )
    .input(SsoCallbackRequest)
    .output(LoginResult)
    .mutation(async ({ ctx, input }) => {
      const signed = await completeSsoSignIn(ctx.services, input, {
        ipAddress: ctx.ipAddress,
        userAgent: ctx.userAgent,
        currentSession: ctx.session?.session ?? null,
      });
      ctx.cookies.setSession(signed.token, signed.session.expiresAt);
      return signed.result;
    }),
});
