// The reports page's rules (docs/reports.md): the date ranges it offers in the user's time zone (the browser's:
// the user's preferences hold no time zone), how a duration and a rate read, and the CSV file of the loaded
// figures, made in the browser, whose text cells cannot run as a spreadsheet formula.
import type { ReportFigures, ReportSummary } from '../../../../domain/report.ts';

export type { ReportSummary };

/** The longest range the server reports on (domain/report.ts REPORT_MAX_DAYS; zod stays out of the page). */
export const REPORT_MAX_DAYS = 366;

export const REPORT_PRESETS = ['thisMonth', 'lastMonth', 'last30Days', 'custom'] as const;
export type ReportPreset = (typeof REPORT_PRESETS)[number];

/** A range of whole calendar days in the browser's time zone: `from` inclusive, `to` exclusive (midnights). */
export interface ReportRange {
  from: Date;
  to: Date;
}

/** The browser's time zone, which the page counts days in. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const midnight = (year: number, month: number, day: number) => new Date(year, month, day);

/** The range of a preset, as of `now` (custom ranges come from the date inputs). */
export function presetRange(preset: Exclude<ReportPreset, 'custom'>, now = new Date()): ReportRange {
  const [y, m, d] = [now.getFullYear(), now.getMonth(), now.getDate()];
  switch (preset) {
    case 'thisMonth':
      return { from: midnight(y, m, 1), to: midnight(y, m + 1, 1) };
    case 'lastMonth':
      return { from: midnight(y, m - 1, 1), to: midnight(y, m, 1) };
    case 'last30Days':
      return { from: midnight(y, m, d - 29), to: midnight(y, m, d + 1) };
  }
}

/** `YYYY-MM-DD` of a local date (what an `<input type="date">` holds). */
export function dateInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The range from the first day to the last one (both included), or why it cannot be one. */
export function customRange(
  first: string,
  last: string,
  maxDays: number,
): { range: ReportRange } | { problem: 'missing' | 'order' | 'tooLong' } {
  const parse = (value: string) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
    return match ? midnight(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
  };
  const from = parse(first);
  const lastDay = parse(last);
  if (!from || !lastDay) return { problem: 'missing' };
  const to = midnight(lastDay.getFullYear(), lastDay.getMonth(), lastDay.getDate() + 1);
  if (to <= from) return { problem: 'order' };
  // Calendar days, whatever the summer-time changes in between.
  const days = Math.round(
    (Date.UTC(to.getFullYear(), to.getMonth(), to.getDate()) -
      Date.UTC(from.getFullYear(), from.getMonth(), from.getDate())) /
      86_400_000,
  );
  if (days > maxDays) return { problem: 'tooLong' };
  return { range: { from, to } };
}

/** A duration in days and hours, hours and minutes, or minutes, in the page's language. */
export function formatDuration(seconds: number | null, language: string): string {
  if (seconds === null) return '—';
  const unit = (value: number, name: 'day' | 'hour' | 'minute') =>
    new Intl.NumberFormat(language, { style: 'unit', unit: name, unitDisplay: 'short' }).format(value);
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return unit(Math.max(minutes, seconds > 0 ? 1 : 0), 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24)
    return [unit(hours, 'hour'), minutes % 60 ? unit(minutes % 60, 'minute') : ''].join(' ').trim();
  const days = Math.floor(hours / 24);
  return [unit(days, 'day'), hours % 24 ? unit(hours % 24, 'hour') : ''].join(' ').trim();
}

/** A rate (0 to 1) as a percentage; "—" when there is none. */
export function formatRate(rate: number | null, language: string): string {
  if (rate === null) return '—';
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(rate);
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** A CSV cell: quoted when it must be, with a leading `'` when a spreadsheet would read it as a formula. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The words the CSV file uses (the page's language). */
export interface ReportCsvLabels {
  section: {
    totals: string;
    daily: string;
    bySender: string;
    byTeam: string;
    byTemplate: string;
    reasons: string;
  };
  measure: string;
  value: string;
  date: string;
  sender: string;
  email: string;
  team: string;
  template: string;
  reason: string;
  count: string;
  lastDeclinedAt: string;
  publicApi: string;
  noTeam: string;
  uploadedFile: string;
  from: string;
  to: string;
  timeZone: string;
  figures: Record<
    | 'sent'
    | 'completed'
    | 'declined'
    | 'cancelled'
    | 'expired'
    | 'inProgress'
    | 'completionRate'
    | 'medianSecondsToComplete'
    | 'p90SecondsToComplete'
    | 'deliveryFailures'
    | 'failedMessages'
    | 'smsCreditsUsed',
    string
  >;
}

const ROW_FIGURES = [
  'sent',
  'completed',
  'declined',
  'cancelled',
  'expired',
  'inProgress',
  'completionRate',
  'medianSecondsToComplete',
  'p90SecondsToComplete',
] as const;

/**
 * The report as a CSV file (UTF-8 with a byte-order mark, so spreadsheets read Hebrew right): the range, the
 * totals, each day, the breakdowns and the decline reasons, one section after another. Rates are fractions
 * (0.5), times are seconds, dates ISO 8601: figures a spreadsheet computes with.
 */
export function reportCsv(report: ReportSummary, labels: ReportCsvLabels, from: string, to: string): string {
  const lines: (string | number | null)[][] = [];
  const figure = (value: number | null) => (value === null ? null : Number(value.toFixed(6)));
  lines.push([labels.from, from], [labels.to, to], [labels.timeZone, report.timeZone], []);
  lines.push([labels.section.totals], [labels.measure, labels.value]);
  for (const key of [...ROW_FIGURES, 'deliveryFailures', 'failedMessages', 'smsCreditsUsed'] as const) {
    lines.push([labels.figures[key], figure(report.totals[key])]);
  }
  lines.push([], [labels.section.daily], [labels.date, labels.figures.sent, labels.figures.completed]);
  for (const day of report.daily) lines.push([day.date, day.sent, day.completed]);
  const breakdown = (
    title: string,
    heads: string[],
    rows: {
      names: (string | null)[];
      figures: ReportFigures;
    }[],
  ) => {
    lines.push([], [title], [...heads, ...ROW_FIGURES.map((key) => labels.figures[key])]);
    for (const row of rows) lines.push([...row.names, ...ROW_FIGURES.map((key) => figure(row.figures[key]))]);
  };
  breakdown(
    labels.section.bySender,
    [labels.sender, labels.email],
    report.bySender.map((r) => ({ names: [r.name ?? labels.publicApi, r.email], figures: r })),
  );
  breakdown(
    labels.section.byTeam,
    [labels.team],
    report.byTeam.map((r) => ({ names: [r.name ?? labels.noTeam], figures: r })),
  );
  breakdown(
    labels.section.byTemplate,
    [labels.template],
    report.byTemplate.map((r) => ({ names: [r.name ?? labels.uploadedFile], figures: r })),
  );
  lines.push([], [labels.section.reasons], [labels.reason, labels.count, labels.lastDeclinedAt]);
  for (const r of report.declineReasons) lines.push([r.reason, r.count, r.lastDeclinedAt]);
  return `\uFEFF${lines.map((line) => line.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/**
 * The range the page's address asks for: `?period=lastMonth` (or `last30Days`), `?period=custom&from=…&to=…`
 * (both days included), else this month — also for an address whose days make no range.
 */
export function rangeFromAddress(
  params: URLSearchParams,
  now = new Date(),
): { preset: ReportPreset; range: ReportRange } {
  const period = params.get('period');
  if (period === 'custom') {
    const chosen = customRange(params.get('from') ?? '', params.get('to') ?? '', REPORT_MAX_DAYS);
    if ('range' in chosen) return { preset: 'custom', range: chosen.range };
  } else if (period === 'lastMonth' || period === 'last30Days') {
    return { preset: period, range: presetRange(period, now) };
  }
  return { preset: 'thisMonth', range: presetRange('thisMonth', now) };
}
