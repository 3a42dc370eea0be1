// The reports of the business app (GET /api/reports/summary; docs/reports.md): what became of the envelopes a
// user sees in a date range — sent, completed, declined (and why), cancelled, expired, still in progress, the
// completion rate and times, by sender, team and template, SMS credits and failed deliveries, and a per-day
// series of sends and completions in the user's time zone. The query and the answer, shared by the route (as
// its input and output) and the web app's reports page (as types).
//
// No `.meta({ id })` here (see domain/plan.ts): the application routes' document names its own schemas.
import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/** The longest range a report covers, in days. */
export const REPORT_MAX_DAYS = 366;
/** How many decline reasons the report lists (the most frequent, then the most recent). */
export const REPORT_DECLINE_REASONS = 20;
/** How many rows each breakdown lists at most (the most sent first). */
export const REPORT_BREAKDOWN_ROWS = 100;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Bounds of a range: dates PostgreSQL and every time zone's calendar handle alike. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 0, 1);

/** An IANA time zone name both the server's Intl and PostgreSQL know (`Asia/Jerusalem`, `UTC`). */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const ReportQuery = z
  .object({
    from: z.iso
      .datetime({ offset: true, error: 'from must be an ISO 8601 date-time (2025-01-01T00:00:00Z)' })
      .meta({ description: 'Start of the range (inclusive), an ISO 8601 date-time.' }),
    to: z.iso
      .datetime({ offset: true, error: 'to must be an ISO 8601 date-time (2025-02-01T00:00:00Z)' })
      .meta({
        description: `End of the range (exclusive), after \`from\` and at most ${REPORT_MAX_DAYS} days later.`,
      }),
    timeZone: z
      .string()
      .refine(isTimeZone, 'timeZone must be an IANA time zone name (Asia/Jerusalem, UTC)')
      .optional()
      .meta({
        description:
          'The time zone whose calendar days the daily series counts by (IANA name); default UTC. The web app ' +
          'sends the browser’s.',
      }),
  })
  .superRefine((query, issues) => {
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    if (Number.isNaN(from) || Number.isNaN(to)) return;
    if (from < EARLIEST) {
      issues.addIssue({ code: 'custom', path: ['from'], message: 'from must be in 1970 or later' });
    } else if (to > LATEST) {
      issues.addIssue({ code: 'custom', path: ['to'], message: 'to must be before the year 9999' });
    } else if (to <= from) {
      issues.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
    } else if (to - from > REPORT_MAX_DAYS * DAY_MS) {
      issues.addIssue({
        code: 'custom',
        path: ['to'],
        message: `The range from from to to must be at most ${REPORT_MAX_DAYS} days`,
      });
    }
  });
export type ReportQuery = z.output<typeof ReportQuery>;

const count = (description: string) => z.number().int().min(0).meta({ description });
const rate = (description: string) => z.number().min(0).max(1).nullable().meta({ description });
const seconds = (description: string) => z.number().min(0).nullable().meta({ description });

/** The figures of one breakdown row (and of the whole report). */
const ReportFigures = z.object({
  sent: count('Envelopes sent in the range (sent_at in [from, to))'),
  completed: count('Envelopes completed in the range (completed_at in [from, to))'),
  declined: count('Envelopes declined in the range (their recipient.declined event)'),
  cancelled: count('Envelopes cancelled in the range (their envelope.cancelled event), still Cancelled'),
  expired: count('Envelopes that expired in the range (their envelope.expired event), still Expired'),
  inProgress: count('Of the envelopes sent in the range, those not finished yet'),
  sentAndCompleted: count('Of the envelopes sent in the range, those completed by now'),
  completionRate: rate('sentAndCompleted / sent; null when nothing was sent'),
  medianSecondsToComplete: seconds(
    'Median time from sending to completion of the envelopes completed in the range, in seconds; null: none',
  ),
  p90SecondsToComplete: seconds('The 90th percentile of the same times, in seconds; null: none'),
});
export type ReportFigures = z.output<typeof ReportFigures>;

export const ReportTotals = ReportFigures.extend({
  deliveryFailures: count(
    'Envelopes whose delivery failed in the range (their envelope.delivery_failed event), whatever they are now',
  ),
  failedMessages: count('Messages (email, SMS, WhatsApp) that failed for good in the range'),
  smsCreditsUsed: count('SMS and WhatsApp messages sent in the range: the credits they used'),
});
export type ReportTotals = z.output<typeof ReportTotals>;

export const ReportSenderRow = ReportFigures.extend({
  userId: z.uuid().nullable().meta({ description: 'The sending user; null: the public API (no user)' }),
  name: z.string().nullable().meta({ description: 'Their name; null for the public API' }),
  email: z.string().nullable(),
});
export type ReportSenderRow = z.output<typeof ReportSenderRow>;

export const ReportTeamRow = ReportFigures.extend({
  teamId: z.uuid().nullable().meta({ description: 'The team the envelope was created in; null: none' }),
  name: z.string().nullable(),
});
export type ReportTeamRow = z.output<typeof ReportTeamRow>;

export const ReportTemplateRow = ReportFigures.extend({
  templateId: z.uuid().nullable().meta({
    description: 'The template (its first version’s id: every version counts); null: an uploaded file',
  }),
  name: z.string().nullable().meta({ description: 'The template’s latest name' }),
});
export type ReportTemplateRow = z.output<typeof ReportTemplateRow>;

export const ReportDeclineReason = z.object({
  reason: z.string().meta({ description: 'What the recipient wrote, without leading and trailing spaces' }),
  count: count('How many declines in the range gave it'),
  lastDeclinedAt: IsoDateTime,
});
export type ReportDeclineReason = z.output<typeof ReportDeclineReason>;

export const ReportDay = z.object({
  date: z.string().meta({ description: 'A calendar day in the time zone, YYYY-MM-DD' }),
  sent: count('Envelopes sent that day'),
  completed: count('Envelopes completed that day'),
});
export type ReportDay = z.output<typeof ReportDay>;

export const ReportSummary = z.object({
  from: IsoDateTime,
  to: IsoDateTime,
  timeZone: z.string(),
  generatedAt: IsoDateTime,
  scope: z.enum(['organization', 'team', 'own']).meta({
    description:
      'Whose envelopes: the organization’s (documents:read_all), the user’s and their team’s, or the user’s own ' +
      '(no team)',
  }),
  totals: ReportTotals,
  bySender: z
    .array(ReportSenderRow)
    .meta({ description: `At most ${REPORT_BREAKDOWN_ROWS}, the most sent first` }),
  byTeam: z
    .array(ReportTeamRow)
    .meta({ description: `At most ${REPORT_BREAKDOWN_ROWS}, the most sent first` }),
  byTemplate: z
    .array(ReportTemplateRow)
    .meta({ description: `At most ${REPORT_BREAKDOWN_ROWS}, the most sent first` }),
  declineReasons: z.array(ReportDeclineReason).meta({
    description: `At most ${REPORT_DECLINE_REASONS}: the most frequent first, then the most recent`,
  }),
  daily: z
    .array(ReportDay)
    .meta({ description: 'Every calendar day of the range in the time zone, in order' }),
});
export type ReportSummary = z.output<typeof ReportSummary>;
