// The words of the reports page's CSV file, in the page's language (reports.ts, reportCsv).
import type { ReportCsvLabels } from '../reports.ts';

export function reportCsvLabels(t: (key: string) => string): ReportCsvLabels {
  return {
    section: {
      totals: t('reports.cards.title'),
      daily: t('reports.chart.title'),
      bySender: t('reports.bySender.title'),
      byTeam: t('reports.byTeam.title'),
      byTemplate: t('reports.byTemplate.title'),
      reasons: t('reports.reasons.title'),
    },
    measure: t('reports.csv.measure'),
    value: t('reports.csv.value'),
    date: t('reports.csv.date'),
    sender: t('reports.bySender.sender'),
    email: t('reports.csv.email'),
    team: t('reports.byTeam.team'),
    template: t('reports.byTemplate.template'),
    reason: t('reports.reasons.reason'),
    count: t('reports.reasons.count'),
    lastDeclinedAt: t('reports.reasons.last'),
    publicApi: t('reports.bySender.publicApi'),
    noTeam: t('reports.byTeam.none'),
    uploadedFile: t('reports.byTemplate.none'),
    from: t('reports.range.from'),
    to: t('reports.csv.toExclusive'),
    timeZone: t('reports.csv.timeZone'),
    figures: {
      sent: t('reports.figure.sent'),
      completed: t('reports.figure.completed'),
      declined: t('reports.figure.declined'),
      cancelled: t('reports.figure.cancelled'),
      expired: t('reports.figure.expired'),
      inProgress: t('reports.figure.inProgress'),
      completionRate: t('reports.csv.completionRate'),
      medianSecondsToComplete: t('reports.csv.medianSeconds'),
      p90SecondsToComplete: t('reports.csv.p90Seconds'),
      deliveryFailures: t('reports.figure.deliveryFailures'),
      failedMessages: t('reports.figure.failedMessages'),
      smsCreditsUsed: t('reports.figure.smsCreditsUsed'),
    },
  };
}
