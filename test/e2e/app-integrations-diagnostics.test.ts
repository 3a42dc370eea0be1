// The Integrations diagnostics page (/app/integrations/diagnostics, docs/integrations.md, "Diagnostics") in a real
// browser against a real Sigil app: opened from the Integrations page, it shows the figures seeded for an API
// key (per-minute request counters) and a webhook endpoint (deliveries of each status, 2 hours and 3 days old)
// for the last 24 hours, then for the last 7 days after the switch, with the success rate and the latest failed
// delivery linking to its page; an organization with nothing yet sees the empty states; a member without
// integrations:read sees the refusal. In Hebrew (right to left) and on a 375-pixel phone in both languages, with
// axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** An organization with a key that made requests and an endpoint with deliveries of every outcome. */
async function seeded(keyName: string): Promise<{ owner: SignedInUser; failedId: string }> {
  const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
  const { apiKey } = await callAs<{ apiKey: { id: string } }>(baseUrl, owner, 'POST', '/api/api-keys', {
    name: keyName,
    scopes: ['templates.read'],
  });
  const endpoint = await callAs<{ id: string; url: string }>(baseUrl, owner, 'POST', '/api/webhooks', {
    url: 'https://erp.example.com/sigil/webhooks',
  });
  const em = harness.ctx.orm.em.fork();
  for (const [age, requests, errors, limited] of [
    [2 * HOUR, 120, 6, 2],
    [3 * DAY, 300, 30, 10],
  ] as const) {
    await em.execute(
      `insert into api_request_stat (oauth_client_id, minute, requests, errors, rate_limited)
         values (?, date_trunc('minute', ?::timestamptz), ?, ?, ?)`,
      [apiKey.id, new Date(Date.now() - age).toISOString(), requests, errors, limited],
    );
  }
  // Within 24 hours: 3 succeeded, 1 failed, 1 pending (75 %); within 7 days also 1 succeeded and 3 failed.
  const failedId = randomUUID();
  const deliveries: [string, string, number][] = [
    [randomUUID(), 'succeeded', HOUR],
    [randomUUID(), 'succeeded', 2 * HOUR],
    [randomUUID(), 'succeeded', 3 * HOUR],
    [failedId, 'failed', 2 * HOUR],
    [randomUUID(), 'pending', 10 * 60_000],
    [randomUUID(), 'succeeded', 3 * DAY],
    [randomUUID(), 'failed', 3 * DAY],
    [randomUUID(), 'failed', 4 * DAY],
    [randomUUID(), 'failed', 5 * DAY],
  ];
  for (const [id, status, age] of deliveries) {
    const at = new Date(Date.now() - age);
    await em.execute(
      `insert into webhook_delivery (id, endpoint_id, organization_id, kind, event_id, event_type, event_created_at,
                                     payload, status, attempt_count, last_status_code, last_error, last_attempt_at,
                                     endpoint_url, created_at, updated_at)
         values (?, ?, ?, 'event', ?, 'envelope.completed', ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        endpoint.id,
        owner.organization.id,
        randomUUID(),
        at,
        status,
        status === 'failed' ? 5 : 1,
        status === 'failed' ? 503 : status === 'succeeded' ? 200 : null,
        status === 'failed' ? 'HTTP 503: service unavailable' : null,
        status === 'pending' ? null : at,
        endpoint.url,
        at,
        at,
      ],
    );
  }
  return { owner, failedId };
}

async function openDiagnostics(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/integrations/diagnostics`);
  await eventually(() =>
    page.locator('[data-testid="diagnostics-summary"], [data-testid="forbidden"]').count(),
  ).toBe(1);
}

const figure = async (page: Page, row: string, name: string) =>
  ((await page.locator(`${row} [data-figure="${name}"]`).first().textContent()) ?? '').trim();

describe('the business app: integration diagnostics', () => {
  it('shows the seeded figures for 24 hours and 7 days, linked from the Integrations page', async () => {
    const { owner, failedId } = await seeded('ERP');
    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/integrations`);
    await page.getByRole('link', { name: 'Open diagnostics' }).click();
    await waitForPath(page, '/app/integrations/diagnostics');
    await eventually(() => page.getByTestId('diagnostics-clients').count()).toBe(1);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Integration diagnostics');

    const key = 'tr[data-client="ERP"]';
    const hook = 'tr[data-endpoint="https://erp.example.com/sigil/webhooks"]';
    expect(await figure(page, key, 'requests')).toBe('120');
    expect(await figure(page, key, 'errors')).toBe('6');
    expect(await figure(page, key, 'error-rate')).toBe('5%');
    expect(await figure(page, key, 'rate-limited')).toBe('2');
    expect(await figure(page, hook, 'succeeded')).toBe('3');
    expect(await figure(page, hook, 'failed')).toBe('1');
    expect(await figure(page, hook, 'pending')).toBe('1');
    expect(await figure(page, hook, 'success-rate')).toBe('75%');
    expect(await figure(page, '[data-testid="diagnostics-summary"]', 'success-rate')).toBe('75%');
    await expectAccessible(page, 'diagnostics, 24 hours');
    await browser.screenshot(page, 'app-integrations-diagnostics-en-desktop');

    await page.getByRole('radio', { name: 'Last 7 days' }).check();
    await eventually(() => figure(page, key, 'requests')).toBe('420');
    expect(await figure(page, key, 'errors')).toBe('36');
    expect(await figure(page, key, 'error-rate')).toBe('8.6%');
    expect(await figure(page, hook, 'succeeded')).toBe('4');
    expect(await figure(page, hook, 'failed')).toBe('4');
    expect(await figure(page, hook, 'success-rate')).toBe('50%');
    await expectAccessible(page, 'diagnostics, 7 days');
    await browser.screenshot(page, 'app-integrations-diagnostics-week-en-desktop');

    // The latest failure first, a link to its delivery page.
    const failures = page.getByTestId('diagnostics-failures').locator('li');
    expect(await failures.count()).toBe(4);
    expect(await failures.first().locator('a').getAttribute('href')).toBe(
      `/app/integrations/webhooks/deliveries/${failedId}`,
    );
    expect(await failures.first().textContent()).toContain('HTTP 503: service unavailable');

    // The webhooks page links here too.
    await page.goto(`${baseUrl}/app/integrations/webhooks`);
    await page.getByRole('link', { name: 'Diagnostics' }).click();
    await waitForPath(page, '/app/integrations/diagnostics');
  });

  it('shows the empty states, and the refusal without integrations:read', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await openDiagnostics(page);
    await eventually(() => page.getByTestId('diagnostics-no-clients').count()).toBe(1);
    expect(await page.getByTestId('diagnostics-no-endpoints').count()).toBe(1);
    expect(await page.getByTestId('diagnostics-no-failures').textContent()).toBe(
      'No delivery failed in the last 7 days.',
    );
    expect(await figure(page, '[data-testid="diagnostics-summary"]', 'success-rate')).toBe('—');
    await expectAccessible(page, 'diagnostics, empty');
    await browser.screenshot(page, 'app-integrations-diagnostics-empty-en-desktop');

    const member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
    const memberPage = await signedInPage(browser, baseUrl, member, DESKTOP, 'en');
    await openDiagnostics(memberPage);
    await eventually(() => memberPage.getByTestId('forbidden').count()).toBe(1);
    expect(await memberPage.getByTestId('diagnostics-summary').count()).toBe(0);
    await expectAccessible(memberPage, 'diagnostics, forbidden');
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    const { owner } = await seeded('מערכת הנהלת חשבונות');
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, owner, viewport, language);
      await openDiagnostics(page);
      await eventually(() => page.getByTestId('diagnostics-endpoints').count()).toBe(1);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('אבחון אינטגרציות');
      }
      expect(await figure(page, 'tr[data-client="מערכת הנהלת חשבונות"]', 'requests')).toBe('120');
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `diagnostics (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-diagnostics-${language}-${device}`);
      await page.getByRole('radio', { name: language === 'he' ? '7 הימים האחרונים' : 'Last 7 days' }).check();
      await eventually(() => figure(page, 'tr[data-client="מערכת הנהלת חשבונות"]', 'requests')).toBe('420');
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `diagnostics, 7 days (${language}, ${device})`);
    }
  });
});
