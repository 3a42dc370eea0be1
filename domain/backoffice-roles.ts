// The backoffice's two roles and what each may call (docs/backoffice.md, "Roles"), declared once: the route
// table below is what the backoffice's access check reads (api/trpc/init.ts) and what the route × role matrix
// of test/integration/backoffice-role-matrix.test.ts is generated from. A platform administrator may call every
// backoffice route; support reads what it needs to help a customer and takes the listed safe actions. A route
// missing from the table is for administrators only (and the matrix test fails until it is listed).
export const BACKOFFICE_ROLES = ['administrator', 'support'] as const;
export type BackofficeRole = (typeof BACKOFFICE_ROLES)[number];

/** How much a role holds: nobody grants a role above their own. */
export const BACKOFFICE_ROLE_RANK: Readonly<Record<BackofficeRole, number>> = {
  administrator: 2,
  support: 1,
};

const EVERYONE: readonly BackofficeRole[] = ['administrator', 'support'];
const ADMINISTRATOR: readonly BackofficeRole[] = ['administrator'];

/** `METHOD /api/backoffice/...` (the path as the route declares it, `{id}` and all) → the roles that may call it. */
export const BACKOFFICE_ROUTE_ROLES: Readonly<Record<string, readonly BackofficeRole[]>> = {
  // The session and the administrators.
  'GET /api/backoffice/session': EVERYONE,
  'DELETE /api/backoffice/session': EVERYONE,
  'GET /api/backoffice/platform-admins': ADMINISTRATOR,
  'POST /api/backoffice/platform-admins': ADMINISTRATOR,
  'PATCH /api/backoffice/platform-admins/{id}': ADMINISTRATOR,
  'DELETE /api/backoffice/platform-admins/{id}': ADMINISTRATOR,
  'GET /api/backoffice/platform-admins/security-policy': ADMINISTRATOR,
  'POST /api/backoffice/platform-admins/ip-allowlist': ADMINISTRATOR,
  'PUT /api/backoffice/platform-admins/ip-allowlist/{id}': ADMINISTRATOR,
  'DELETE /api/backoffice/platform-admins/ip-allowlist/{id}': ADMINISTRATOR,
  'POST /api/backoffice/platform-admins/allowed-domains': ADMINISTRATOR,
  'PUT /api/backoffice/platform-admins/allowed-domains/{id}': ADMINISTRATOR,
  'DELETE /api/backoffice/platform-admins/allowed-domains/{id}': ADMINISTRATOR,
  'GET /api/backoffice/audit-log': ADMINISTRATOR,
  // Organizations: support reads them; changes are the administrators'.
  'GET /api/backoffice/organizations': EVERYONE,
  'GET /api/backoffice/organizations/{id}': EVERYONE,
  'PUT /api/backoffice/organizations/{id}': ADMINISTRATOR,
  'DELETE /api/backoffice/organizations/{id}': ADMINISTRATOR,
  'GET /api/backoffice/organizations/{id}/integrations': EVERYONE,
  'GET /api/backoffice/organizations/{id}/credits': EVERYONE,
  'POST /api/backoffice/organizations/{id}/credits': ADMINISTRATOR,
  'GET /api/backoffice/organizations/{id}/secure-signature-policy': EVERYONE,
  'PUT /api/backoffice/organizations/{id}/secure-signature-policy': ADMINISTRATOR,
  'GET /api/backoffice/secure-signatures/readiness': EVERYONE,
  // Notification providers and templates: the platform's settings.
  'GET /api/backoffice/smtp': ADMINISTRATOR,
  'PUT /api/backoffice/smtp': ADMINISTRATOR,
  'POST /api/backoffice/smtp/test': ADMINISTRATOR,
  'GET /api/backoffice/sms': ADMINISTRATOR,
  'PUT /api/backoffice/sms': ADMINISTRATOR,
  'POST /api/backoffice/sms/test': ADMINISTRATOR,
  'GET /api/backoffice/whatsapp': ADMINISTRATOR,
  'PUT /api/backoffice/whatsapp': ADMINISTRATOR,
  'POST /api/backoffice/whatsapp/test': ADMINISTRATOR,
  'GET /api/backoffice/notification-templates': ADMINISTRATOR,
  'PUT /api/backoffice/notification-templates': ADMINISTRATOR,
  'POST /api/backoffice/notification-templates/preview': ADMINISTRATOR,
  // Envelopes across organizations: the lookup, the page, the safe repairs; the contents need a reason.
  'GET /api/backoffice/envelopes': EVERYONE,
  'GET /api/backoffice/envelopes/{id}': EVERYONE,
  'POST /api/backoffice/envelopes/{id}/contents': EVERYONE,
  'POST /api/backoffice/envelopes/{id}/resume-projection': EVERYONE,
  'POST /api/backoffice/envelopes/{id}/retry-final-pdf': EVERYONE,
  'POST /api/backoffice/envelopes/{id}/reissue-links': EVERYONE,
  'POST /api/backoffice/envelopes/{id}/verify-audit': EVERYONE,
  // An organization's users: support reads them and takes the safe actions; deactivating is the administrators'.
  'GET /api/backoffice/organizations/{id}/users': EVERYONE,
  'POST /api/backoffice/organizations/{id}/users/{userId}/reset-mfa': EVERYONE,
  'POST /api/backoffice/organizations/{id}/users/{userId}/resend-invitation': EVERYONE,
  'POST /api/backoffice/organizations/{id}/users/{userId}/unlock': EVERYONE,
  'POST /api/backoffice/organizations/{id}/users/{userId}/resend-verification': EVERYONE,
  'POST /api/backoffice/organizations/{id}/users/{userId}/deactivate': ADMINISTRATOR,
  // Onboarding and the plan catalogue: support reads the plans; creating and changing are the administrators'.
  'POST /api/backoffice/organizations': ADMINISTRATOR,
  'GET /api/backoffice/plans': EVERYONE,
  'PUT /api/backoffice/plans/{plan}': ADMINISTRATOR,
};

/** The roles that may call a backoffice route (administrators only when the table does not list it). */
export function backofficeRolesOf(method: string, path: string): readonly BackofficeRole[] {
  return BACKOFFICE_ROUTE_ROLES[`${method.toUpperCase()} ${path}`] ?? ADMINISTRATOR;
}
