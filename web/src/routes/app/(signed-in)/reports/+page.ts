// /app/reports: the report of the range the page's address asks for (reports:read), in the browser's time zone.
import { appPage } from '$lib/app/load';
import { browserTimeZone, rangeFromAddress } from '$lib/app/reports';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'reports:read', async () => {
    const { preset, range } = rangeFromAddress(event.url.searchParams);
    const timeZone = browserTimeZone();
    const report = await appClient.reports.summary.query({
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      timeZone,
    });
    return { preset, range, timeZone, report };
  });
