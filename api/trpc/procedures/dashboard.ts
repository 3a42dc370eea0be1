// The signed-in user's dashboard (docs/billing.md, "The dashboard"): what waits on them, this month's usage
// (billing:read) and the latest activity of the envelopes they see. Any signed-in user; each part depends on
// their permissions (a part they may not see is null).
import { Dashboard } from '../../../domain/billing.ts';
import { dashboard } from '../../../services/dashboard/dashboard.ts';
import { areaRoute, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('dashboard');

export const dashboardRouter = router({
  get: procedure
    .meta(
      route('GET', '/api/dashboard', {
        summary: 'What needs the signed-in user’s action, usage and recent activity',
        description:
          'Envelopes the user sees that wait on them as the recipient in turn (by their email address); their ' +
          'drafts; DeliveryFailed and FinalPdfFailed envelopes waiting on them as sender (the documents list’s ' +
          '“action needed” rule); envelopes being signed whose deadline is within 3 days — each a count and the ' +
          'first 5. This month’s usage against the plan with billing:read. The latest 10 audit events of the ' +
          'envelopes the user sees. Document parts are null without documents:read (drafts and failures: ' +
          'documents:manage); usage is null without billing:read.',
        access: 'signed-in',
      }),
    )
    .output(Dashboard)
    .query(({ ctx }) => dashboard(ctx.services, principalOf(ctx))),
});
