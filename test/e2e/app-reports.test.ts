// The reports page (/app/reports, docs/reports.md) in a real browser against a real Sigil app. An organization
// whose owner and a sender of the Sales team sent envelopes this month (completed 10, 20 and 30 minutes after
// sending, one declined with a reason that a spreadsheet would run as a formula, one still being signed, one
// from the public API) and last month (one completed, one cancelled), set with SQL. The owner reaches the page
// from the navigation and reads the figures, the chart, the tables and the reasons; changes the range to last
// month and to two chosen dates; downloads the CSV file, which holds the figures and no formula. The sender sees
// their and their team's figures only. In Hebrew (right to left) and on a 375-pixel phone in both languages,
// axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/app-reports-*.png.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

const MINUTE = 60_000;
const FORMULA = '=HYPERLINK("http://evil.example","click")';

interface Seeded {
  owner: SignedInUser;
  sender: SignedInUser;
}
let seeded: Seeded;

function sql(statement: string, params: unknown[] = []) {
  return harness.ctx.orm.em.fork().execute(statement, params);
}

// The browser counts days in its own time zone, which is this machine's, as Node's local time is.
const now = new Date();
const monthStart = new Date(now.getFullYear(), now.getMonth(), 1);
const lastMonthStart = new Date(now.getFullYear(), now.getMonth() - 1, 1);
/** A moment of this month, 40 minutes ago unless the month is younger than that. */
const t0 = new Date(Math.max(monthStart.getTime() + MINUTE, now.getTime() - 40 * MINUTE));
const lastMonth = new Date(monthStart.getTime() - 3 * 24 * 60 * MINUTE);

async function seed(): Promise<Seeded> {
  const { organization, template } = await createOrganizationWithTemplate(harness.ctx);
  const owner = await signedInUser(harness, {
    role: 'owner',
    organizationId: organization.id,
    fullName: 'Olivia Owner',
  });
  const sender = await signedInUser(harness, {
    role: 'sender',
    organizationId: organization.id,
    fullName: 'Avi Sender',
  });
  const team = randomUUID();
  await sql(`insert into team (id, organization_id, name) values (?, ?, 'Sales')`, [team, organization.id]);
  await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: sender.user.id }, { teamId: team });

  let sequence = 0;
  const envelope = async (
    by: SignedInUser | null,
    status: string,
    sentAt: Date,
    completedAt: Date | null,
    events: { type: string; at: Date; reason?: string }[] = [],
  ) => {
    const id = randomUUID();
    await sql(
      `insert into envelope (id, organization_id, template_id, title, workflow_type, status, sent_at, completed_at,
                             created_by_user_id, team_id, created_at)
       values (?, ?, ?, ?, 'Parallel', ?, ?, ?, ?, ?, ?)`,
      [
        id,
        organization.id,
        template.id,
        `Agreement ${id.slice(0, 4)}`,
        status,
        sentAt,
        completedAt,
        by?.user.id ?? null,
        by === sender ? team : null,
        sentAt,
      ],
    );
    for (const event of events) {
      sequence += 1;
      await sql(
        `insert into audit_event (id, envelope_id, organization_id, sequence, type, data, occurred_at)
         values (?, ?, ?, ?, ?, ?::jsonb, ?)`,
        [
          randomUUID(),
          id,
          organization.id,
          sequence,
          event.type,
          JSON.stringify(event.reason ? { reason: event.reason } : {}),
          event.at,
        ],
      );
    }
  };
  const after = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE);
  // This month: five sent, three completed (10, 20 and 30 minutes), one declined, one still being signed.
  await envelope(owner, 'Completed', t0, after(10));
  await envelope(owner, 'Completed', t0, after(20));
  await envelope(null, 'Completed', t0, after(30));
  await envelope(sender, 'Declined', t0, null, [
    { type: 'recipient.declined', at: after(5), reason: FORMULA },
  ]);
  await envelope(sender, 'InProgress', t0, null);
  // Last month: two sent, one completed in an hour, one cancelled.
  await envelope(owner, 'Completed', lastMonth, new Date(lastMonth.getTime() + 60 * MINUTE));
  await envelope(sender, 'Cancelled', lastMonth, null, [
    { type: 'envelope.cancelled', at: new Date(lastMonth.getTime() + 30 * MINUTE) },
  ]);
  return { owner, sender };
}

useAppBrowser(async (opened) => {
  ({ harness, browser, baseUrl } = opened);
  seeded = await seed();
});

const card = (page: Page, key: string) => page.locator(`[data-card="${key}"] dd`).first();

async function waitForReport(page: Page): Promise<void> {
  await eventually(() => page.getByTestId('report-cards').count()).toBe(1);
  await waitForLoaded(page);
}

async function openReports(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/reports`);
  await waitForReport(page);
}

/** A table's rows as the text of their cells. */
async function rows(page: Page, testid: string): Promise<string[][]> {
  const table = page.getByTestId(testid);
  const count = await table.locator('tbody tr').count();
  const out: string[][] = [];
  for (let index = 0; index < count; index += 1) {
    const cells = await table.locator('tbody tr').nth(index).locator('td').allTextContents();
    out.push(cells.map((cell) => cell.trim()));
  }
  return out;
}

describe('the business app: reports', () => {
  it('shows the owner this month’s figures, changes the range and downloads them as CSV', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, seeded.owner.email, seeded.owner.password);
    await waitForLoaded(page);
    const nav = page.getByRole('navigation', { name: 'Business app' });
    await nav.getByRole('link', { name: 'Reports' }).click();
    await waitForPath(page, '/app/reports');
    await waitForReport(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Reports');
    expect(await page.getByLabel('Period').inputValue()).toBe('thisMonth');
    expect(await page.getByTestId('report-scope').textContent()).toBe(
      'Figures of every envelope of your organization.',
    );

    await eventually(() => card(page, 'sent').textContent()).toBe('5');
    expect(await card(page, 'completed').textContent()).toBe('3');
    expect(await card(page, 'declined').textContent()).toBe('1');
    expect(await card(page, 'cancelled').textContent()).toBe('0');
    expect(await card(page, 'inProgress').textContent()).toBe('1');
    expect(await card(page, 'completionRate').textContent()).toBe('60%');
    expect(await page.locator('[data-card="completionRate"]').textContent()).toContain('3 of the 5 sent');
    expect(await card(page, 'median').textContent()).toBe('20 min');
    expect(await card(page, 'p90').textContent()).toBe('28 min');
    expect(await card(page, 'sms').textContent()).toBe('0');

    // The chart: a canvas named for screen readers, drawn under the page's Content-Security-Policy.
    const chart = page.getByRole('img', { name: /^Chart of envelopes sent and completed per day/ });
    expect(await chart.count()).toBe(1);
    expect(await chart.evaluate((canvas) => (canvas as unknown as { width: number }).width > 0)).toBe(true);

    expect(await rows(page, 'report-senders')).toEqual([
      ['Olivia Owner', '2', '2', '0', '100%', '15 min'],
      ['Avi Sender', '2', '0', '1', '0%', '—'],
      ['Public API', '1', '1', '0', '100%', '30 min'],
    ]);
    expect(await rows(page, 'report-teams')).toEqual([
      ['No team', '3', '3', '0', '100%', '20 min'],
      ['Sales', '2', '0', '1', '0%', '—'],
    ]);
    expect(await rows(page, 'report-templates')).toEqual([
      ['Demo services agreement', '5', '3', '1', '60%', '20 min'],
    ]);
    expect((await rows(page, 'report-reasons'))[0]?.slice(0, 2)).toEqual([FORMULA, '1']);

    await expectAccessible(page, 'reports (en, desktop)');
    await browser.screenshot(page, 'app-reports-en-desktop');

    // Last month.
    await page.getByLabel('Period').selectOption('lastMonth');
    await eventually(() => card(page, 'sent').textContent()).toBe('2');
    expect(await card(page, 'completed').textContent()).toBe('1');
    expect(await card(page, 'cancelled').textContent()).toBe('1');
    expect(await card(page, 'median').textContent()).toBe('1 hr');
    expect(await page.getByText('No envelope was declined in this range.').count()).toBe(1);

    // Two chosen dates: from the first of last month to today.
    await page.getByLabel('Period').selectOption('custom');
    const day = (date: Date) =>
      `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
    await page.getByLabel('From').fill(day(now));
    await page.getByLabel('To (included)').fill(day(lastMonthStart));
    await page.getByRole('button', { name: 'Show' }).click();
    // Said beside the last date, which gets the focus.
    await eventually(() => page.locator('#report-to-error').textContent()).toBe(
      'The last date must not be before the first.',
    );
    expect(await page.getByLabel('To (included)').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe('report-to');
    await browser.screenshot(page, 'app-reports-range-refused-en-desktop');
    await page.getByLabel('From').fill(day(lastMonthStart));
    await page.getByLabel('To (included)').fill(day(now));
    await page.getByRole('button', { name: 'Show' }).click();
    await eventually(() => card(page, 'sent').textContent()).toBe('7');
    expect(await card(page, 'completed').textContent()).toBe('4');
    expect(await page.locator('#report-to-error').count()).toBe(0);
    await expectAccessible(page, 'reports, custom range');

    // The CSV file of what the page shows.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`sigil-report-${day(lastMonthStart)}-${day(now)}.csv`);
    const csv = await readFile((await download.path()) as string, 'utf8');
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines).toContain('Sent,7');
    expect(lines).toContain('Completed,4');
    expect(lines).toContain('Cancelled,1');
    expect(lines).toContain('Completion rate (0 to 1),0.571429');
    expect(lines).toContain(`Olivia Owner,${seeded.owner.email},3,3,0,0,0,0,1,1200,3120`);
    // The reason that looks like a formula is text to a spreadsheet: a leading ', quoted because of its quotes.
    expect(lines.some((line) => line.startsWith(`"'=HYPERLINK(""http://evil.example"",""click"")",1,`))).toBe(
      true,
    );
    expect(lines.some((line) => /^[=+\-@]/.test(line))).toBe(false);
  });

  it('shows a sender their own and their team’s figures only', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, seeded.sender.email, seeded.sender.password);
    await waitForLoaded(page);
    await openReports(page);
    expect(await page.getByTestId('report-scope').textContent()).toBe(
      "Figures of your envelopes and your team's.",
    );
    await eventually(() => card(page, 'sent').textContent()).toBe('2');
    expect(await card(page, 'completed').textContent()).toBe('0');
    expect(await rows(page, 'report-senders')).toEqual([['Avi Sender', '2', '0', '1', '0%', '—']]);
    await expectAccessible(page, 'reports of a sender');
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, seeded.owner, viewport, language);
      await openReports(page);
      await eventually(() => card(page, 'sent').textContent()).toBe('5');
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('דוחות');
        expect(await page.getByRole('button', { name: 'הורדת CSV' }).count()).toBe(1);
        expect(await page.getByTestId('report-senders').textContent()).toContain('API ציבורי');
      }
      expect(await pageWidth(page), `reports ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `reports (${language}, ${device})`);
      await browser.screenshot(page, `app-reports-${language}-${device}`);
    }
  });
});
