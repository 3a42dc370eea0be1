// Every application route, one sub-router per area. `AppRouter` is what the web app's client is typed by
// (an `import type`, so no server code reaches the browser).
import { router } from './init.ts';
import { apiKeysRouter } from './procedures/api-keys.ts';
import { authRouter } from './procedures/auth.ts';
import { backofficeAdminsRouter } from './procedures/backoffice-admins.ts';
import { backofficeEnvelopesRouter } from './procedures/backoffice-envelopes.ts';
import { backofficeOrganizationsRouter } from './procedures/backoffice-organizations.ts';
import { backofficePlansRouter } from './procedures/backoffice-plans.ts';
import { backofficeProvidersRouter } from './procedures/backoffice-providers.ts';
import { backofficeTemplatesRouter } from './procedures/backoffice-templates.ts';
import { backofficeUsersRouter } from './procedures/backoffice-users.ts';
import { billingRouter } from './procedures/billing.ts';
import { bulkSendsRouter } from './procedures/bulk-sends.ts';
import { contactsRouter } from './procedures/contacts.ts';
import { dashboardRouter } from './procedures/dashboard.ts';
import { documentLifecycleRouter } from './procedures/document-lifecycle.ts';
import { documentsRouter } from './procedures/documents.ts';
import { integrationsRouter } from './procedures/integrations.ts';
import { mfaRouter } from './procedures/mfa.ts';
import { notificationsRouter } from './procedures/notifications.ts';
import { organizationRouter } from './procedures/organization.ts';
import { plansRouter } from './procedures/plans.ts';
import { reportsRouter } from './procedures/reports.ts';
import { rolesRouter } from './procedures/roles.ts';
import { secureSignaturesRouter } from './procedures/secure-signatures.ts';
import { sendingRouter } from './procedures/sending.ts';
import { ssoRouter } from './procedures/sso.ts';
import { stampsRouter } from './procedures/stamps.ts';
import { teamsRouter } from './procedures/teams.ts';
import { templatesRouter } from './procedures/templates.ts';
import { usersRouter } from './procedures/users.ts';
import { webhooksRouter } from './procedures/webhooks.ts';

export const appRouter = router({
  plans: plansRouter,
  auth: authRouter,
  mfa: mfaRouter,
  users: usersRouter,
  roles: rolesRouter,
  teams: teamsRouter,
  organization: organizationRouter,
  contacts: contactsRouter,
  stamps: stampsRouter,
  // Sender notifications: the bell's list, preferences, who is told (docs/notifications.md).
  notifications: notificationsRouter,
  templates: templatesRouter,
  // The documents (docs/documents.md); archive, unarchive and delete in documentLifecycle.
  documents: documentsRouter,
  documentLifecycle: documentLifecycleRouter,
  // The send page: envelopes from a template or a one-off PDF (docs/documents.md, "Sending").
  sending: sendingRouter,
  // Bulk send from a CSV file (docs/bulk-send.md).
  bulkSends: bulkSendsRouter,
  // The billing summary and the dashboard (docs/billing.md).
  billing: billingRouter,
  dashboard: dashboardRouter,
  // The reports of a date range (docs/reports.md).
  reports: reportsRouter,
  // The Integrations area's OAuth clients, "API keys" (docs/integrations.md).
  apiKeys: apiKeysRouter,
  // Webhook endpoints and their deliveries (docs/webhooks.md, "Webhooks in the business app").
  webhooks: webhooksRouter,
  // The Integrations area's diagnostics: API keys and webhook endpoints, 24 hours and 7 days.
  integrations: integrationsRouter,
  // The platform backoffice: administrators, their sign-in and security, the audit log (docs/backoffice.md).
  backofficeAdmins: backofficeAdminsRouter,
  // The backoffice's organizations: list, detail, change, deletion, integrations, SMS credits.
  backofficeOrganizations: backofficeOrganizationsRouter,
  // The backoffice's notification providers: SMTP, SMS and WhatsApp, with test sends.
  backofficeProviders: backofficeProvidersRouter,
  backofficeTemplates: backofficeTemplatesRouter,
  // The backoffice's envelopes across organizations: lookup, page, contents with a reason, repairs (issue 35).
  backofficeEnvelopes: backofficeEnvelopesRouter,
  // The backoffice's view of an organization's users and the actions on them; the plan catalogue (issue 35).
  backofficeUsers: backofficeUsersRouter,
  backofficePlans: backofficePlansRouter,
  // Sealed documents: the organization's secure-signature policy, its bounds and readiness (docs/sealing.md).
  secureSignatures: secureSignaturesRouter,
  // Single sign-on with OpenID Connect per organization: its settings and the sign-in (docs/sso.md).
  sso: ssoRouter,
});

export type AppRouter = typeof appRouter;
