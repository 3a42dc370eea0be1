// The plans page (/plans) in a real browser (Debian's Chromium driven by playwright-core) against a real Sigil
// app listening on a port: the page loads the plans through the application routes' client (@trpc/client,
// one GET /api/plans) and shows every plan with the limits the database holds, in English and in Hebrew
// (right to left), on a desktop and on a 375-pixel phone, passing axe-core's WCAG 2.1 AA rules. A failed call
// shows the server's error message (or says the server could not be reached) with a retry button. The home
// page links to it. Screenshots go to test/artifacts/web/.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_NAMES } from '../../domain/vocabulary.ts';
import { accessibilityViolations } from '../support/accessibility.ts';
import { type ApiHarness, listenLocally, openApiHarness } from '../support/api.ts';
import { DESKTOP, launchTestBrowser, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';

interface PlanRow {
  name: string;
  api_access: boolean;
  webhook_access: boolean;
  monthly_document_limit: number | null;
  user_limit: number | null;
  team_limit: number | null;
  sms_credits_included: number;
  rate_limit_per_minute: number | null;
  upload_rate_limit_per_minute: number | null;
}

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let rows: PlanRow[];

beforeAll(async () => {
  browser = await launchTestBrowser();
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  rows = await harness.ctx.orm.em.fork().getConnection().execute<PlanRow[]>('select * from plan');
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

function eventually<T>(read: () => Promise<T>) {
  return expect.poll(read, { interval: 100 });
}

function row(name: string): PlanRow {
  const found = rows.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no plan ${name} in the database`);
  return found;
}

/** Opens the page and waits for the plans; returns the API requests the page made. */
async function openPlans(page: Page, query = ''): Promise<string[]> {
  const requests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) requests.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  await page.goto(`${baseUrl}/plans${query}`);
  await eventually(() => page.locator('[data-plan]').count()).toBeGreaterThanOrEqual(PLAN_NAMES.length);
  return requests;
}

function limit(page: Page, plan: string, name: string) {
  return page.locator(`[data-plan="${plan}"] [data-limit="${name}"]`);
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

describe('the plans page', () => {
  it('shows every plan with its limits in English, loaded through the application routes', async () => {
    const page = await browser.newPage(DESKTOP);
    const requests = await openPlans(page);
    // One call, to the specification's REST path: the client speaks the application routes, not a tRPC endpoint.
    expect(requests).toEqual(['GET /api/plans']);
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('h1').textContent()).toBe('Plans and limits');
    // The shipped plans first, in order (another test may have added a plan of its own to the shared database).
    expect((await page.locator('[data-plan] h2').allTextContents()).slice(0, PLAN_NAMES.length)).toEqual([
      ...PLAN_NAMES,
    ]);

    const english = new Intl.NumberFormat('en');
    for (const name of PLAN_NAMES) {
      const plan = row(name);
      const count = (value: number | null) => (value === null ? 'Unlimited' : english.format(value));
      expect(await limit(page, name, 'documents').textContent(), name).toBe(
        count(plan.monthly_document_limit),
      );
      expect(await limit(page, name, 'users').textContent(), name).toBe(count(plan.user_limit));
      expect(await limit(page, name, 'teams').textContent(), name).toBe(count(plan.team_limit));
      expect((await limit(page, name, 'sms').textContent())?.trim(), name).toBe(
        plan.sms_credits_included === 0 ? 'None' : english.format(plan.sms_credits_included),
      );
      const api = (await limit(page, name, 'api').textContent()) ?? '';
      if (!plan.api_access) expect(api.trim(), name).toBe('Not included');
      else if (plan.rate_limit_per_minute === null)
        expect(api, name).toContain('agreed with the organization');
      else
        expect(api, name).toContain(
          `${plan.rate_limit_per_minute} requests and ${plan.upload_rate_limit_per_minute} uploads a minute`,
        );
      expect((await limit(page, name, 'webhooks').textContent())?.trim(), name).toMatch(
        plan.webhook_access ? /Included$/ : /^Not included$/,
      );
    }
    expect(await pageWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    await expectAccessible(page);
    await browser.screenshot(page, 'plans-en-desktop');
  });

  it('reads right to left in Hebrew, on a desktop and on a 375-pixel phone', async () => {
    const page = await browser.newPage(DESKTOP, 'he-IL');
    await openPlans(page);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    expect(await page.locator('h1').textContent()).toBe('מסלולים ומגבלות');
    expect(await limit(page, 'Enterprise', 'documents').textContent()).toBe('ללא הגבלה');
    expect((await limit(page, 'Starter', 'api').textContent())?.trim()).toBe('לא כלול');
    // Right to left: the first plan (Starter) is the rightmost card of the row.
    const first = await page.locator('[data-plan]').first().boundingBox();
    const second = await page.locator('[data-plan]').nth(1).boundingBox();
    if (!first || !second) throw new Error('no plan cards');
    expect(first.x).toBeGreaterThan(second.x);
    await expectAccessible(page);
    await browser.screenshot(page, 'plans-he-desktop');

    for (const [locale, query, name] of [
      ['en-US', '', 'plans-en-phone'],
      ['he-IL', '?lang=he', 'plans-he-phone'],
    ] as const) {
      const phone = await browser.newPage(PHONE, locale);
      await openPlans(phone, query);
      expect(await pageWidth(phone), name).toBeLessThanOrEqual(PHONE.width);
      // One card per row on a phone.
      const boxes = await Promise.all(
        [0, 1].map((index) => phone.locator('[data-plan]').nth(index).boundingBox()),
      );
      expect(boxes[1]?.y ?? 0, name).toBeGreaterThan((boxes[0]?.y ?? 0) + (boxes[0]?.height ?? 0) - 1);
      await expectAccessible(phone);
      await browser.screenshot(phone, name);
    }
  });

  it("shows the server's error message, or that the server could not be reached, and tries again", async () => {
    const page = await browser.newPage(DESKTOP);
    await page.route('**/api/plans', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'service_unavailable',
            message: 'The plans are being updated. Try again in a minute.',
            details: [],
            request_id: 'plans-e2e',
          },
        }),
      }),
    );
    await page.goto(`${baseUrl}/plans`);
    const alert = page.getByRole('alert');
    await eventually(() => alert.textContent()).toContain(
      'The plans are being updated. Try again in a minute.',
    );
    expect(await alert.textContent()).toContain('The plans could not be loaded.');
    await expectAccessible(page);
    await browser.screenshot(page, 'plans-en-error');

    await page.unroute('**/api/plans');
    await page.route('**/api/plans', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Try again' }).click();
    await eventually(() => alert.textContent()).toContain('The server could not be reached.');

    await page.unroute('**/api/plans');
    await page.getByRole('button', { name: 'Try again' }).click();
    await eventually(() => page.locator('[data-plan]').count()).toBeGreaterThanOrEqual(PLAN_NAMES.length);
    expect(await alert.count()).toBe(0);
  });

  it('is linked from the home page', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.goto(baseUrl);
    await page.getByRole('link', { name: 'Plans and limits' }).click();
    await eventually(() => page.locator('[data-plan]').count()).toBeGreaterThanOrEqual(PLAN_NAMES.length);
    expect(new URL(page.url()).pathname).toBe('/plans');
  });
});
