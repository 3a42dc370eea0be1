// The reports (docs/reports.md): what became of the envelopes the user sees in a date range — sends, completions,
// declines and their reasons, cancellations, expiries, the completion rate and times, by sender, team and
// template, SMS credits and failed deliveries, and a per-day series. Reading needs reports:read; whose envelopes
// count is the documents list's rule (documents:read_all: the organization's; otherwise one's own and one's team's).
import { ReportQuery, ReportSummary } from '../../../domain/report.ts';
import { reportSummary } from '../../../services/reports/report-summary.ts';
import { areaRoute, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('reports');

export const reportsRouter = router({
  summary: procedure
    .meta(
      route('GET', '/api/reports/summary', {
        summary: 'What became of the envelopes the user sees in a date range',
        description:
          'Between `from` (inclusive) and `to` (exclusive; at most 366 days): envelopes sent, completed, declined ' +
          '(with the reasons given, the most frequent first), cancelled and expired in the range, those sent in ' +
          'it and not finished yet, the completion rate (of those sent, the share completed), the median and ' +
          '90th-percentile time from sending to completion, the same figures by sender, team and template, the ' +
          'SMS/WhatsApp credits used and the failed deliveries, and the envelopes sent and completed on each ' +
          'calendar day in `timeZone` (default UTC). The envelopes are the organization’s with ' +
          'documents:read_all, otherwise the user’s own and their team’s.',
        access: 'reports:read',
      }),
    )
    .input(ReportQuery)
    .output(ReportSummary)
    .query(({ ctx, input }) => reportSummary(ctx.services, principalOf(ctx), input)),
});
