// The REST route of every application procedure, as the API declares it with `route(...)` in
// api/trpc/procedures/. The client (app-client.ts) sends each call to its route. The type makes the table
// list exactly the router's procedures (svelte-check fails when one is missing or unknown), and
// test/integration/app-routes.test.ts checks every method and path against the server's.
import type { AnyTRPCProcedure } from '@trpc/server';
import type { AppRouter } from '../../../../api/trpc/router.ts';

/** `plans.list` for the router's `plans: { list }`. */
type ProcedurePaths<TRecord, TPrefix extends string = ''> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyTRPCProcedure
    ? `${TPrefix}${K}`
    : ProcedurePaths<TRecord[K], `${TPrefix}${K}.`>;
}[keyof TRecord & string];

export type AppProcedurePath = ProcedurePaths<AppRouter['_def']['record']>;

export interface AppRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path parameters as `{id}`, filled from the input's field of that name. */
  path: `/api/${string}`;
}

export const APP_ROUTES = {
  'plans.list': { method: 'GET', path: '/api/plans' },
  // Account and session (docs/accounts.md).
  'auth.register': { method: 'POST', path: '/api/auth/register' },
  'auth.verifyEmail': { method: 'POST', path: '/api/auth/verify-email' },
  'auth.resendVerification': { method: 'POST', path: '/api/auth/resend-verification' },
  'auth.login': { method: 'POST', path: '/api/auth/login' },
  'auth.logout': { method: 'POST', path: '/api/auth/logout' },
  'auth.me': { method: 'GET', path: '/api/auth/me' },
  'auth.updatePreferences': { method: 'PUT', path: '/api/auth/me/preferences' },
  'auth.forgotPassword': { method: 'POST', path: '/api/auth/forgot-password' },
  'auth.claimPasswordReset': { method: 'POST', path: '/api/auth/reset-password/claim' },
  'auth.resetPassword': { method: 'POST', path: '/api/auth/reset-password' },
  'auth.claimInvite': { method: 'POST', path: '/api/auth/accept-invite/claim' },
  'auth.acceptInvite': { method: 'POST', path: '/api/auth/accept-invite' },
  // Two-step verification.
  'mfa.verifyLogin': { method: 'POST', path: '/api/auth/login/mfa' },
  'mfa.totpSetup': { method: 'POST', path: '/api/auth/mfa/totp/setup' },
  'mfa.totpConfirm': { method: 'POST', path: '/api/auth/mfa/totp/confirm' },
  'mfa.disable': { method: 'POST', path: '/api/auth/mfa/disable' },
  'mfa.regenerateBackupCodes': { method: 'POST', path: '/api/auth/mfa/backup-codes' },
  'mfa.passkeyRegistrationOptions': { method: 'POST', path: '/api/auth/mfa/passkeys/registration-options' },
  'mfa.registerPasskey': { method: 'POST', path: '/api/auth/mfa/passkeys' },
  'mfa.listPasskeys': { method: 'GET', path: '/api/auth/mfa/passkeys' },
  'mfa.removePasskey': { method: 'POST', path: '/api/auth/mfa/passkeys/{id}/remove' },
  'mfa.passkeySignInOptions': { method: 'POST', path: '/api/auth/login/mfa/passkey-options' },
  'mfa.verifyLoginPasskey': { method: 'POST', path: '/api/auth/login/mfa/passkey' },
  // Organization administration (docs/administration.md).
  'users.list': { method: 'GET', path: '/api/users' },
  'users.invite': { method: 'POST', path: '/api/users/invite' },
  'users.resendInvitation': { method: 'POST', path: '/api/users/{id}/resend-invitation' },
  'users.update': { method: 'PUT', path: '/api/users/{id}' },
  'users.delete': { method: 'DELETE', path: '/api/users/{id}' },
  'roles.list': { method: 'GET', path: '/api/roles' },
  'roles.create': { method: 'POST', path: '/api/roles' },
  'roles.update': { method: 'PUT', path: '/api/roles/{id}' },
  'roles.delete': { method: 'DELETE', path: '/api/roles/{id}' },
  'teams.list': { method: 'GET', path: '/api/teams' },
  'teams.create': { method: 'POST', path: '/api/teams' },
  'teams.update': { method: 'PUT', path: '/api/teams/{id}' },
  'teams.delete': { method: 'DELETE', path: '/api/teams/{id}' },
  'organization.settings': { method: 'GET', path: '/api/organization/settings' },
  'organization.updateSettings': { method: 'PUT', path: '/api/organization/settings' },
  'organization.securityLog': { method: 'GET', path: '/api/organization/security-log' },
} as const satisfies Record<AppProcedurePath, AppRoute>;
