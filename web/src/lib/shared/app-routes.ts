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
  // The address book (docs/contacts.md).
  'contacts.list': { method: 'GET', path: '/api/contacts' },
  'contacts.create': { method: 'POST', path: '/api/contacts' },
  'contacts.update': { method: 'PUT', path: '/api/contacts/{id}' },
  'contacts.delete': { method: 'DELETE', path: '/api/contacts/{id}' },
  'contacts.import': { method: 'POST', path: '/api/contacts/import' },
  'contacts.export': { method: 'GET', path: '/api/contacts/export' },
  // Personal stamps (docs/stamps.md); the image is shown with <img src>, not called through the client.
  'stamps.list': { method: 'GET', path: '/api/me/stamps' },
  'stamps.create': { method: 'POST', path: '/api/me/stamps' },
  'stamps.addVersion': { method: 'POST', path: '/api/me/stamps/{id}/versions' },
  'stamps.update': { method: 'PUT', path: '/api/me/stamps/{id}' },
  'stamps.delete': { method: 'DELETE', path: '/api/me/stamps/{id}' },
  'stamps.image': { method: 'GET', path: '/api/me/stamps/{id}/image' },
  // Templates and the builder (docs/templates.md); the PDF is fetched by the builder, not called through the client.
  'templates.list': { method: 'GET', path: '/api/templates' },
  'templates.create': { method: 'POST', path: '/api/templates' },
  'templates.get': { method: 'GET', path: '/api/templates/{id}' },
  'templates.pdf': { method: 'GET', path: '/api/templates/{id}/pdf' },
  'templates.rename': { method: 'PUT', path: '/api/templates/{id}/name' },
  'templates.saveDefinition': { method: 'PUT', path: '/api/templates/{id}/definition' },
  'templates.publish': { method: 'POST', path: '/api/templates/{id}/publish' },
  'templates.duplicate': { method: 'POST', path: '/api/templates/{id}/duplicate' },
  'templates.archive': { method: 'POST', path: '/api/templates/{id}/archive' },
  // The documents (docs/documents.md); the files are downloaded with <a href download>, the envelope page polls
  // documents.get with If-None-Match (web/src/lib/app/documents.ts).
  'documents.list': { method: 'GET', path: '/api/documents' },
  'documents.filters': { method: 'GET', path: '/api/documents/filters' },
  'documents.get': { method: 'GET', path: '/api/documents/{id}' },
  'documents.live': { method: 'GET', path: '/api/documents/{id}/live' },
  'documents.source': { method: 'GET', path: '/api/documents/{id}/files/source' },
  'documents.finalPdf': { method: 'GET', path: '/api/documents/{id}/files/final-pdf' },
  'documents.auditTrail': { method: 'GET', path: '/api/documents/{id}/files/audit-trail' },
  'documents.send': { method: 'POST', path: '/api/documents/{id}/send' },
  'documents.remind': { method: 'POST', path: '/api/documents/{id}/remind' },
  'documents.cancel': { method: 'POST', path: '/api/documents/{id}/cancel' },
  'documents.extend': { method: 'POST', path: '/api/documents/{id}/extend' },
  'documents.retryFinalPdf': { method: 'POST', path: '/api/documents/{id}/retry-final-pdf' },
  'documents.signingLink': {
    method: 'POST',
    path: '/api/documents/{id}/recipients/{recipientId}/signing-link',
  },
  // A document after its signing: archive, unarchive, delete (docs/envelope-lifecycle.md).
  'documentLifecycle.archive': { method: 'POST', path: '/api/documents/{id}/archive' },
  'documentLifecycle.unarchive': { method: 'POST', path: '/api/documents/{id}/unarchive' },
  'documentLifecycle.delete': { method: 'POST', path: '/api/documents/{id}/delete' },
  // The send page (docs/documents.md, "Sending"): the creations carry an Idempotency-Key per page load.
  'sending.fromTemplate': { method: 'POST', path: '/api/documents/send-from-template' },
  'sending.fromFile': { method: 'POST', path: '/api/documents/send-from-file' },
  'sending.uploadFile': { method: 'POST', path: '/api/documents/files' },
  'sending.defaults': { method: 'GET', path: '/api/documents/send-defaults' },
  // Bulk send from a CSV file (docs/bulk-send.md); the start carries an Idempotency-Key per page load.
  'bulkSends.list': { method: 'GET', path: '/api/bulk-sends' },
  'bulkSends.csvTemplate': { method: 'GET', path: '/api/bulk-sends/csv-template' },
  'bulkSends.check': { method: 'POST', path: '/api/bulk-sends/check' },
  'bulkSends.start': { method: 'POST', path: '/api/bulk-sends' },
  'bulkSends.get': { method: 'GET', path: '/api/bulk-sends/{id}' },
  'bulkSends.rows': { method: 'GET', path: '/api/bulk-sends/{id}/rows' },
  'bulkSends.cancel': { method: 'POST', path: '/api/bulk-sends/{id}/cancel' },
  // The billing summary and the dashboard (docs/billing.md).
  'billing.summary': { method: 'GET', path: '/api/billing/summary' },
  'dashboard.get': { method: 'GET', path: '/api/dashboard' },
  // The reports of a date range (docs/reports.md).
  'reports.summary': { method: 'GET', path: '/api/reports/summary' },
  // Webhook endpoints and deliveries (docs/webhooks.md, "Webhooks in the business app").
  'webhooks.list': { method: 'GET', path: '/api/webhooks' },
  'webhooks.create': { method: 'POST', path: '/api/webhooks' },
  'webhooks.update': { method: 'PUT', path: '/api/webhooks/{id}' },
  'webhooks.delete': { method: 'DELETE', path: '/api/webhooks/{id}' },
  'webhooks.rotateSecret': { method: 'POST', path: '/api/webhooks/{id}/secret/rotate' },
  'webhooks.test': { method: 'POST', path: '/api/webhooks/{id}/test' },
  'webhooks.deliveries': { method: 'GET', path: '/api/webhooks/deliveries' },
  'webhooks.delivery': { method: 'GET', path: '/api/webhooks/deliveries/{id}' },
  'webhooks.replay': { method: 'POST', path: '/api/webhooks/deliveries/{id}/replay' },
  // The Integrations area's API keys, OAuth clients of the public API (docs/integrations.md).
  'apiKeys.list': { method: 'GET', path: '/api/api-keys' },
  'apiKeys.diagnostics': { method: 'GET', path: '/api/api-keys/diagnostics' },
  'apiKeys.create': { method: 'POST', path: '/api/api-keys' },
  'apiKeys.update': { method: 'PUT', path: '/api/api-keys/{id}' },
  'apiKeys.delete': { method: 'DELETE', path: '/api/api-keys/{id}' },
  'apiKeys.rotateSecret': { method: 'POST', path: '/api/api-keys/{id}/secrets/rotate' },
  'apiKeys.deleteSecret': { method: 'DELETE', path: '/api/api-keys/{id}/secrets/{secretId}' },
  // The Integrations area's diagnostics (docs/integrations.md, "Diagnostics").
  'integrations.diagnostics': { method: 'GET', path: '/api/integrations/diagnostics' },
  // The platform backoffice's administrators, sign-in and security (docs/backoffice.md).
  'backofficeAdmins.list': { method: 'GET', path: '/api/backoffice/platform-admins' },
  'backofficeAdmins.create': { method: 'POST', path: '/api/backoffice/platform-admins' },
  'backofficeAdmins.requestOtp': { method: 'POST', path: '/api/backoffice/platform-admins/otp' },
  'backofficeAdmins.remove': { method: 'DELETE', path: '/api/backoffice/platform-admins/{id}' },
  'backofficeAdmins.securityPolicy': {
    method: 'GET',
    path: '/api/backoffice/platform-admins/security-policy',
  },
  'backofficeAdmins.addAllowlistEntry': {
    method: 'POST',
    path: '/api/backoffice/platform-admins/ip-allowlist',
  },
  'backofficeAdmins.updateAllowlistEntry': {
    method: 'PUT',
    path: '/api/backoffice/platform-admins/ip-allowlist/{id}',
  },
  'backofficeAdmins.removeAllowlistEntry': {
    method: 'DELETE',
    path: '/api/backoffice/platform-admins/ip-allowlist/{id}',
  },
  'backofficeAdmins.addAllowedDomain': {
    method: 'POST',
    path: '/api/backoffice/platform-admins/allowed-domains',
  },
  'backofficeAdmins.updateAllowedDomain': {
    method: 'PUT',
    path: '/api/backoffice/platform-admins/allowed-domains/{id}',
  },
  'backofficeAdmins.removeAllowedDomain': {
    method: 'DELETE',
    path: '/api/backoffice/platform-admins/allowed-domains/{id}',
  },
  'backofficeAdmins.signIn': { method: 'POST', path: '/api/backoffice/session' },
  'backofficeAdmins.me': { method: 'GET', path: '/api/backoffice/session' },
  'backofficeAdmins.signOut': { method: 'DELETE', path: '/api/backoffice/session' },
  'backofficeAdmins.auditLog': { method: 'GET', path: '/api/backoffice/audit-log' },
  // The platform backoffice's organizations and their SMS credits (docs/backoffice.md, "Organizations").
  'backofficeOrganizations.list': { method: 'GET', path: '/api/backoffice/organizations' },
  'backofficeOrganizations.get': { method: 'GET', path: '/api/backoffice/organizations/{id}' },
  'backofficeOrganizations.update': { method: 'PUT', path: '/api/backoffice/organizations/{id}' },
  'backofficeOrganizations.remove': { method: 'DELETE', path: '/api/backoffice/organizations/{id}' },
  'backofficeOrganizations.integrations': {
    method: 'GET',
    path: '/api/backoffice/organizations/{id}/integrations',
  },
  'backofficeOrganizations.addCredits': {
    method: 'POST',
    path: '/api/backoffice/organizations/{id}/credits',
  },
  'backofficeOrganizations.credits': {
    method: 'GET',
    path: '/api/backoffice/organizations/{id}/credits',
  },
  // The backoffice's notification providers (docs/backoffice.md, "Providers").
  'backofficeProviders.smtp': { method: 'GET', path: '/api/backoffice/smtp' },
  'backofficeProviders.updateSmtp': { method: 'PUT', path: '/api/backoffice/smtp' },
  'backofficeProviders.testSmtp': { method: 'POST', path: '/api/backoffice/smtp/test' },
  'backofficeProviders.sms': { method: 'GET', path: '/api/backoffice/sms' },
  'backofficeProviders.updateSms': { method: 'PUT', path: '/api/backoffice/sms' },
  'backofficeProviders.testSms': { method: 'POST', path: '/api/backoffice/sms/test' },
  'backofficeProviders.whatsapp': { method: 'GET', path: '/api/backoffice/whatsapp' },
  'backofficeProviders.updateWhatsapp': { method: 'PUT', path: '/api/backoffice/whatsapp' },
  'backofficeProviders.testWhatsapp': { method: 'POST', path: '/api/backoffice/whatsapp/test' },
  // The backoffice's notification templates (docs/backoffice.md, "Notification templates").
  'backofficeTemplates.list': { method: 'GET', path: '/api/backoffice/notification-templates' },
  'backofficeTemplates.update': { method: 'PUT', path: '/api/backoffice/notification-templates' },
  'backofficeTemplates.preview': { method: 'POST', path: '/api/backoffice/notification-templates/preview' },
  // Sealed documents: the secure-signature policy, its bounds and readiness (docs/sealing.md).
  'secureSignatures.policy': { method: 'GET', path: '/api/organization/secure-signature-policy' },
  'secureSignatures.updatePolicy': { method: 'PUT', path: '/api/organization/secure-signature-policy' },
  'secureSignatures.readiness': { method: 'GET', path: '/api/backoffice/secure-signatures/readiness' },
  'secureSignatures.organizationPolicy': {
    method: 'GET',
    path: '/api/backoffice/organizations/{id}/secure-signature-policy',
  },
  'secureSignatures.updateOrganizationPolicy': {
    method: 'PUT',
    path: '/api/backoffice/organizations/{id}/secure-signature-policy',
  },
} as const satisfies Record<AppProcedurePath, AppRoute>;
