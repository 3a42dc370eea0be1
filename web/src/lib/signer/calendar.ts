// The date picker's calendar (DatePicker.svelte), as dates of the calendar without time zones ("YYYY-MM-DD"):
// a month's weeks from the week's first day, the day a key moves to, and the words of the page's language
// (Intl: month and weekday names, Hebrew's included, with no catalog of our own). The week starts on Sunday in
// Hebrew and for a US-style MM/DD/YYYY field, on Monday otherwise.
import type { DateFormat } from '../../../../domain/vocabulary.ts';

/** 0: Sunday, 1: Monday. */
export type WeekStart = 0 | 1;

export function weekStartFor(language: string, format: DateFormat): WeekStart {
  return language === 'he' || format === 'MM/DD/YYYY' ? 0 : 1;
}

const pad = (n: number) => String(n).padStart(2, '0');

function toIso(date: Date): string {
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

function fromIso(iso: string): Date {
  const [y, m, d] = iso.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1));
}

/** Today where the signer is, as YYYY-MM-DD. */
export function today(now = new Date()): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** `iso` plus `days` days. */
export function addDays(iso: string, days: number): string {
  const date = fromIso(iso);
  date.setUTCDate(date.getUTCDate() + days);
  return toIso(date);
}

/** `iso` plus `months` months, on the same day or the month's last (31 January + 1 month: 28 or 29 February). */
export function addMonths(iso: string, months: number): string {
  const date = fromIso(iso);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, last));
  return toIso(date);
}

/** The month of `iso` as weeks of seven dates, from the week's first day; days of other months are null. */
export function monthWeeks(iso: string, weekStart: WeekStart): (string | null)[][] {
  const first = fromIso(`${iso.slice(0, 7)}-01`);
  const days = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  const lead = (first.getUTCDay() - weekStart + 7) % 7;
  const cells: (string | null)[] = Array.from({ length: lead }, () => null);
  for (let day = 1; day <= days; day += 1) cells.push(`${iso.slice(0, 7)}-${pad(day)}`);
  while (cells.length % 7 !== 0) cells.push(null);
  return Array.from({ length: cells.length / 7 }, (_, week) => cells.slice(week * 7, week * 7 + 7));
}

/**
 * Where a key moves the focused day: arrows a day or a week (left and right swapped on a right-to-left page),
 * PageUp / PageDown a month (with Shift, a year), Home / End the week's first and last day; undefined for other
 * keys.
 */
export function moveByKey(
  iso: string,
  key: string,
  options: { rtl: boolean; shift: boolean; weekStart: WeekStart },
): string | undefined {
  const forward = options.rtl ? 'ArrowLeft' : 'ArrowRight';
  const backward = options.rtl ? 'ArrowRight' : 'ArrowLeft';
  const weekday = (fromIso(iso).getUTCDay() - options.weekStart + 7) % 7;
  switch (key) {
    case forward:
      return addDays(iso, 1);
    case backward:
      return addDays(iso, -1);
    case 'ArrowDown':
      return addDays(iso, 7);
    case 'ArrowUp':
      return addDays(iso, -7);
    case 'PageDown':
      return addMonths(iso, options.shift ? 12 : 1);
    case 'PageUp':
      return addMonths(iso, options.shift ? -12 : -1);
    case 'Home':
      return addDays(iso, -weekday);
    case 'End':
      return addDays(iso, 6 - weekday);
    default:
      return undefined;
  }
}

/** The page's words: "December 2026" / "דצמבר 2026", the weekdays' short names from the week's first day. */
export function calendarWords(language: string, iso: string, weekStart: WeekStart) {
  const utc = { timeZone: 'UTC' } as const;
  const month = new Intl.DateTimeFormat(language, { ...utc, month: 'long', year: 'numeric' });
  // Hebrew's short names are two words ("יום א׳"): its narrow ones ("א׳") are what its calendars show.
  const weekday = new Intl.DateTimeFormat(language, {
    ...utc,
    weekday: language === 'he' ? 'narrow' : 'short',
  });
  const long = new Intl.DateTimeFormat(language, {
    ...utc,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
  // 4 January 1970 was a Sunday.
  const weekdays = Array.from({ length: 7 }, (_, i) =>
    weekday.format(fromIso(addDays('1970-01-04', weekStart + i))),
  );
  return {
    title: month.format(fromIso(iso)),
    weekdays,
    /** A day's full name, for its button: "Saturday, 5 December 2026". */
    day: (day: string) => long.format(fromIso(day)),
  };
}
