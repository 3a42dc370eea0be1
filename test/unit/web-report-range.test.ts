// The reports page's range from its address (web/src/lib/app/reports.ts, rangeFromAddress): the page's load
// reads `?period=…` (and `from`, `to` for two chosen dates), so a range can be linked and reloaded; an address
// that names no range the page can show falls back to this month. Days are the local calendar's midnights.
import { describe, expect, it } from 'vitest';
import { rangeFromAddress } from '../../web/src/lib/app/reports.ts';

const NOW = new Date(2026, 11, 5, 15, 30); // 5 December 2026, local time
const at = (query: string) => rangeFromAddress(new URLSearchParams(query), NOW);
const day = (y: number, m: number, d: number) => new Date(y, m, d);

describe('the reports range in the address', () => {
  it('is this month without a period', () => {
    expect(at('')).toEqual({ preset: 'thisMonth', range: { from: day(2026, 11, 1), to: day(2027, 0, 1) } });
  });

  it('reads last month and the last 30 days', () => {
    expect(at('period=lastMonth')).toEqual({
      preset: 'lastMonth',
      range: { from: day(2026, 10, 1), to: day(2026, 11, 1) },
    });
    expect(at('period=last30Days')).toEqual({
      preset: 'last30Days',
      range: { from: day(2026, 10, 6), to: day(2026, 11, 6) },
    });
  });

  it('reads two chosen dates, both included', () => {
    expect(at('period=custom&from=2026-11-01&to=2026-12-05')).toEqual({
      preset: 'custom',
      range: { from: day(2026, 10, 1), to: day(2026, 11, 6) },
    });
  });

  it('falls back to this month for dates that make no range, and for an unknown period', () => {
    const thisMonth = at('');
    expect(at('period=custom&from=2026-12-05&to=2026-11-01')).toEqual(thisMonth);
    expect(at('period=custom&from=2026-12-05')).toEqual(thisMonth);
    expect(at('period=custom&from=2020-01-01&to=2026-12-05')).toEqual(thisMonth);
    expect(at('period=nextYear')).toEqual(thisMonth);
  });
});
