// The billing summary (docs/billing.md): the organization's plan, its limits and this month's usage — the
// specification's "Usage and plan data", from the same service as the public API's GET /api/v1/usage, with the
// user and team counts the plan's limits are about. Reading needs billing:read.
import { BillingSummary } from '../../../domain/billing.ts';
import { usageSummary } from '../../../services/usage/usage-summary.ts';
import { areaRoute, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('billing');

export const billingRouter = router({
  summary: procedure
    .meta(
      route('GET', '/api/billing/summary', {
        summary: "The organization's plan, its limits and this month's usage",
        description:
          'Plan name, subscription status, billing mode, the monthly document, user and team limits (null: ' +
          'unlimited), API and webhook access, support level, what is left of this month’s envelope quota and ' +
          'SMS credits, and the usage behind them: envelopes sent and SMS/WhatsApp messages used this calendar ' +
          'month (UTC), active and invited users, teams. The same figures as GET /api/v1/usage.',
        access: 'billing:read',
      }),
    )
    .output(BillingSummary)
    .query(({ ctx }) => usageSummary(ctx.services, principalOf(ctx).organization.id)),
});
