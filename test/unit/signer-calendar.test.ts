// The signer's date picker (web/src/lib/signer/calendar.ts): a month's weeks from the week's first day (Sunday in
// Hebrew), the keys' moves (left and right swapped right to left), month arithmetic at the ends of months, and
// the page's words for the month and weekdays; with dates.ts, a picked day is written in the field's format.
import { describe, expect, it } from 'vitest';
import {
  addMonths,
  calendarWords,
  monthWeeks,
  moveByKey,
  today,
  weekStartFor,
} from '../../web/src/lib/signer/calendar.ts';
import { formatDate, parseDate } from '../../web/src/lib/signer/dates.ts';

describe('the date picker calendar', () => {
  it('starts the week on Sunday in Hebrew and for MM/DD/YYYY, on Monday otherwise', () => {
    expect(weekStartFor('he', 'DD/MM/YYYY')).toBe(0);
    expect(weekStartFor('en', 'MM/DD/YYYY')).toBe(0);
    expect(weekStartFor('en', 'DD/MM/YYYY')).toBe(1);
  });

  it('lays a month out in weeks from the week’s first day', () => {
    // 1 December 2026 is a Tuesday.
    const sunday = monthWeeks('2026-12-15', 0);
    expect(sunday[0]).toEqual([
      null,
      null,
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
      '2026-12-04',
      '2026-12-05',
    ]);
    expect(sunday.at(-1)).toEqual([
      '2026-12-27',
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      null,
      null,
    ]);
    const monday = monthWeeks('2026-12-15', 1);
    expect(monday[0]?.slice(0, 2)).toEqual([null, '2026-12-01']);
    expect(monday.flat().filter(Boolean)).toHaveLength(31);
    expect(monthWeeks('2028-02-01', 0).flat().filter(Boolean)).toHaveLength(29);
  });

  it('moves by the keys, left and right swapped on a right-to-left page', () => {
    const ltr = { rtl: false, shift: false, weekStart: 0 as const };
    const rtl = { ...ltr, rtl: true };
    expect(moveByKey('2026-12-31', 'ArrowRight', ltr)).toBe('2027-01-01');
    expect(moveByKey('2026-12-31', 'ArrowRight', rtl)).toBe('2026-12-30');
    expect(moveByKey('2026-12-31', 'ArrowLeft', rtl)).toBe('2027-01-01');
    expect(moveByKey('2026-12-05', 'ArrowDown', ltr)).toBe('2026-12-12');
    expect(moveByKey('2026-12-05', 'ArrowUp', ltr)).toBe('2026-11-28');
    expect(moveByKey('2027-01-31', 'PageDown', ltr)).toBe('2027-02-28');
    expect(moveByKey('2026-03-31', 'PageUp', ltr)).toBe('2026-02-28');
    expect(moveByKey('2028-02-29', 'PageDown', { ...ltr, shift: true })).toBe('2029-02-28');
    // Saturday 5 December 2026: its week runs Sunday 29 November to Saturday 5 December, or Monday to Sunday.
    expect(moveByKey('2026-12-05', 'Home', ltr)).toBe('2026-11-29');
    expect(moveByKey('2026-12-05', 'End', ltr)).toBe('2026-12-05');
    expect(moveByKey('2026-12-05', 'Home', { ...ltr, weekStart: 1 })).toBe('2026-11-30');
    expect(moveByKey('2026-12-05', 'End', { ...ltr, weekStart: 1 })).toBe('2026-12-06');
    expect(moveByKey('2026-12-05', 'Tab', ltr)).toBeUndefined();
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
  });

  it('names the month and weekdays in the page’s language', () => {
    const hebrew = calendarWords('he', '2026-12-05', 0);
    expect(hebrew.title).toBe('דצמבר 2026');
    expect(hebrew.weekdays).toEqual(['א׳', 'ב׳', 'ג׳', 'ד׳', 'ה׳', 'ו׳', 'ש׳']);
    expect(hebrew.day('2026-12-05')).toContain('שבת');
    const english = calendarWords('en', '2026-12-05', 1);
    expect(english.title).toBe('December 2026');
    expect(english.weekdays).toEqual(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
    expect(english.day('2026-12-05')).toBe('Saturday, December 5, 2026');
  });

  it('writes a picked day in the field’s format and reads it back', () => {
    expect(today(new Date(2026, 11, 5, 23, 30))).toBe('2026-12-05');
    for (const format of ['DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY', 'YYYY-MM-DD'] as const) {
      expect(parseDate(formatDate('2026-12-05', format), format)).toBe('2026-12-05');
    }
    expect(formatDate('2026-12-05', 'DD.MM.YYYY')).toBe('05.12.2026');
  });
});
