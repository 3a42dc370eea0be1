// Every application route, one sub-router per area. `AppRouter` is what the web app's client is typed by
// (an `import type`, so no server code reaches the browser).
import { router } from './init.ts';
import { authRouter } from './procedures/auth.ts';
import { bulkSendsRouter } from './procedures/bulk-sends.ts';
import { contactsRouter } from './procedures/contacts.ts';
import { documentLifecycleRouter } from './procedures/document-lifecycle.ts';
import { documentsRouter } from './procedures/documents.ts';
import { mfaRouter } from './procedures/mfa.ts';
import { organizationRouter } from './procedures/organization.ts';
import { plansRouter } from './procedures/plans.ts';
import { rolesRouter } from './procedures/roles.ts';
import { sendingRouter } from './procedures/sending.ts';
import { stampsRouter } from './procedures/stamps.ts';
import { teamsRouter } from './procedures/teams.ts';
import { templatesRouter } from './procedures/templates.ts';
import { usersRouter } from './procedures/users.ts';

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
  templates: templatesRouter,
  // The documents (docs/documents.md); archive, unarchive and delete in documentLifecycle.
  documents: documentsRouter,
  documentLifecycle: documentLifecycleRouter,
  // The send page: envelopes from a template or a one-off PDF (docs/documents.md, "Sending").
  sending: sendingRouter,
  // Bulk send from a CSV file (docs/bulk-send.md).
  bulkSends: bulkSendsRouter,
});

export type AppRouter = typeof appRouter;
