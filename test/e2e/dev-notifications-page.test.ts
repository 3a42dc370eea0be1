// The development notifications panel in a real browser (Debian's Chromium driven by playwright-core) against
// a real Sigil app listening on a port: an envelope sent through the public API gets its SMS invitation
// captured by the worker, the signer asks for a one-time code through the signer API, and the page shows the
// link and the code, filters, refreshes by itself, switches to right-to-left Hebrew, fits a 375-pixel phone,
// names every kind the capture keeps and each link by what it opens (an account email's, the backoffice's code)
// on a 1366-pixel screen, and says plainly when the server has no capture (production). Screenshots go to test/artifacts/web/.
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureNotification } from '../../notifications/dev-capture.ts';
import {
  type ApiHarness,
  buildTestApp,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
  productionConfig,
} from '../support/api.ts';
import { DESKTOP, launchTestBrowser, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { type Captured, waitForCapture } from '../support/dev-notifications.ts';

let harness: ApiHarness;
let acme: Integrator;
let browser: TestBrowser;
let baseUrl: string;
let production: FastifyInstance;
let productionUrl: string;
const phone = `+97250${String(randomInt(1_000_000, 9_999_999))}`;
const email = `sam.${randomInt(1e9)}@example.com`;
let invitation: Captured;
let otp: Captured;

function newPage(viewport = DESKTOP, locale = 'en-US'): Promise<Page> {
  return browser.newPage(viewport, locale);
}

function screenshot(page: Page, name: string): Promise<void> {
  return browser.screenshot(page, name);
}

beforeAll(async () => {
  browser = await launchTestBrowser();

  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  production = await buildTestApp(harness.ctx, productionConfig());
  productionUrl = await listenLocally(production);

  // An envelope through the public API: the Client is invited by SMS and signs with a code, the Provider by
  // email. The shared worker captures both invitations.
  acme = await newIntegrator(harness);
  const headers = { ...(await acme.auth()), 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/api/v1/envelopes/from-template`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      title: 'Services agreement',
      workflowType: 'Parallel',
      templateId: acme.templateId,
      recipients: [
        {
          roleName: 'Client',
          fullName: 'Dana Levi',
          phone,
          deliveryChannel: 'Sms',
          authenticationMethod: 'OtpSms',
        },
        { roleName: 'Provider', fullName: 'Sam Cohen', email, deliveryChannel: 'Email' },
      ],
    }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const sent = await fetch(`${baseUrl}/api/v1/envelopes/${id}/send`, {
    method: 'POST',
    headers: await acme.auth(),
  });
  expect(sent.status, await sent.clone().text()).toBe(200);
  invitation = await waitForCapture(baseUrl, `kind=invitation&to=${encodeURIComponent(phone)}&limit=1`);
  await waitForCapture(baseUrl, `kind=invitation&to=${encodeURIComponent(email)}&limit=1`);
  const token = invitation.signingLink?.split('/sign/')[1];
  if (!token) throw new Error('the invitation has no signing link');
  const requested = await fetch(`${baseUrl}/api/signing/${token}/otp`, { method: 'POST' });
  expect(requested.status, await requested.clone().text()).toBeLessThan(300);
  otp = await waitForCapture(baseUrl, `kind=otp&to=${encodeURIComponent(phone)}&limit=1`);
  expect(otp.otpCode).toMatch(/^\d{6}$/);
});

afterAll(async () => {
  await browser?.close();
  await production?.close();
  await harness?.close();
});

describe('the development notifications page', () => {
  it('shows the captured invitation with its signing link and the one-time code, newest first', async () => {
    const page = await newPage(DESKTOP);
    await page.goto(`${baseUrl}/dev/notifications?to=${encodeURIComponent(phone)}`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Development notifications');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');

    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // Newest first: the code came after the invitation.
    expect(await rows.nth(0).getAttribute('data-kind')).toBe('otp');
    expect(await rows.nth(1).getAttribute('data-kind')).toBe('invitation');
    const code = rows.nth(0).locator('.otp');
    expect(await code.textContent()).toBe(otp.otpCode);
    expect(await code.isVisible()).toBe(true);
    // The code stands out: its box is taller than a line of body text.
    const codeBox = await code.boundingBox();
    expect(codeBox?.height ?? 0).toBeGreaterThanOrEqual(32);

    const link = rows.nth(1).getByRole('link', { name: /Open the signing link/ });
    expect(await link.getAttribute('href')).toBe(invitation.signingLink);
    expect(await link.isVisible()).toBe(true);
    expect(await rows.nth(1).textContent()).toContain('Invitation');
    expect(await rows.nth(1).textContent()).toContain('SMS');
    expect(await rows.nth(1).textContent()).toContain(phone);

    // A short message (SMS) is shown whole, with the link in it.
    expect(await rows.nth(1).locator('.message').textContent()).toContain(invitation.signingLink ?? '');
    await screenshot(page, 'dev-notifications-en-desktop');

    // Unfiltered, the email invitation is there too, with its subject.
    await page.goto(`${baseUrl}/dev/notifications`);
    const emailRow = page.locator('tbody tr', { hasText: email });
    await expect.poll(() => emailRow.count()).toBeGreaterThanOrEqual(1);
    expect(await emailRow.first().textContent()).toContain('Email');
    // An email opens from its first line, by keyboard too.
    const message = emailRow.first().locator('details .message');
    expect(await message.isVisible()).toBe(false);
    await emailRow.first().locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await message.isVisible()).toBe(true);
    expect(await message.textContent()).toContain('/sign/');
    await screenshot(page, 'dev-notifications-en-desktop-email-open');
  });

  it('filters by kind and address with labelled controls, and refreshes by itself', async () => {
    const page = await newPage(DESKTOP);
    await page.goto(`${baseUrl}/dev/notifications`);
    await page.getByLabel('To', { exact: true }).fill(phone);
    await page.getByLabel('Kind').selectOption('otp');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => new URL(page.url()).searchParams.get('to')).toBe(phone);
    expect(new URL(page.url()).searchParams.get('kind')).toBe('otp');
    expect(await rows.first().locator('.otp').textContent()).toBe(otp.otpCode);

    // A message captured while the page is open appears without a reload.
    const em = harness.ctx.orm.em.fork();
    captureNotification(em, {
      kind: 'otp',
      channel: 'Sms',
      to: phone,
      body: 'Your Sigil code is 424242. It expires in 10 minutes.',
      otpCode: '424242',
    });
    await em.flush();
    await expect.poll(() => rows.count(), { interval: 500 }).toBe(2);
    expect(await rows.first().locator('.otp').textContent()).toBe('424242');

    // Keyboard: the filters are reachable with Tab, in order, after the skip link and the language buttons.
    await page.goto(`${baseUrl}/dev/notifications`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Development notifications');
    const focused: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      focused.push(
        String(await page.evaluate('document.activeElement?.id || document.activeElement?.tagName')),
      );
    }
    expect(focused).toContain('filter-kind');
    expect(focused.indexOf('filter-to')).toBeGreaterThan(focused.indexOf('filter-kind'));
  });

  it('names every kind and each link by what it opens, and fits a 1366-pixel screen', async () => {
    // An account email and the backoffice's sign-in code, as the server captures them, to one address.
    const address = `kinds.${randomInt(1e9)}@example.com`;
    const em = harness.ctx.orm.em.fork();
    captureNotification(em, {
      kind: 'verify_email',
      channel: 'Email',
      to: address,
      subject: 'Confirm your email address',
      body: 'Confirm your address: http://localhost/app/verify-email?token=abc',
      signingLink: 'http://localhost/app/verify-email?token=abc',
    });
    captureNotification(em, {
      kind: 'platform_admin_code',
      channel: 'Email',
      to: address,
      subject: 'Your Sigil backoffice code',
      body: 'Your code is 135790.',
      otpCode: '135790',
    });
    await em.flush();
    const page = await newPage({ width: 1366, height: 768 });
    await page.goto(`${baseUrl}/dev/notifications?to=${encodeURIComponent(address)}&lang=en`);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const code = page.locator('tbody tr[data-kind="platform_admin_code"]');
    expect(await code.textContent()).toContain('Backoffice sign-in code');
    expect(await code.textContent()).not.toContain('devNotifications.');
    const verification = page.locator('tbody tr[data-kind="verify_email"]');
    expect(await verification.textContent()).toContain('Email verification');
    const link = verification.getByRole('link', { name: /Open the email verification link/ });
    expect(await link.getAttribute('href')).toBe('http://localhost/app/verify-email?token=abc');
    expect(await verification.getByRole('link', { name: /signing link/ }).count()).toBe(0);
    // Every column whole at 1366 pixels: the table does not scroll, the code and its button inside the page.
    const fits =
      "(() => { const wrap = document.querySelector('.app-table-wrap'); return wrap.scrollWidth <= wrap.clientWidth; })()";
    expect(await page.evaluate(fits)).toBe(true);
    const copy = code.getByRole('button', { name: /Copy the code 135790/ });
    const box = await copy.boundingBox();
    expect(box && box.x + box.width <= 1366).toBe(true);
    expect(await pageWidth(page)).toBeLessThanOrEqual(1366);
    await screenshot(page, 'dev-notifications-en-1366');
    // The filter offers every kind, in words.
    await page.getByLabel('Kind').selectOption('platform_admin_code');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByRole('button', { name: 'עברית' }).click();
    await expect.poll(() => code.textContent()).toContain('קוד כניסה למשרד האחורי');
  });

  it('switches to Hebrew, right to left, and remembers it', async () => {
    const page = await newPage(DESKTOP);
    await page.goto(`${baseUrl}/dev/notifications?to=${encodeURIComponent(phone)}`);
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await page.getByRole('button', { name: 'עברית' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    expect(await page.locator('h1').textContent()).toBe('הודעות בסביבת פיתוח');
    expect(await page.getByRole('button', { name: 'עברית' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('tbody tr[data-kind="otp"]').first().textContent()).toContain('קוד חד-פעמי');
    // Right to left: the first column (time) is at the right edge of the table.
    const table = await page.locator('table').boundingBox();
    const firstHeader = await page.locator('thead th').first().boundingBox();
    if (!table || !firstHeader) throw new Error('no table');
    expect(firstHeader.x + firstHeader.width).toBeGreaterThan(table.x + table.width - 2);
    await screenshot(page, 'dev-notifications-he-desktop');

    await page.reload();
    await expect.poll(() => page.locator('h1').textContent()).toBe('הודעות בסביבת פיתוח');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
  });

  it('fits a 375-pixel phone in both languages', async () => {
    for (const language of ['en', 'he'] as const) {
      const page = await newPage(PHONE, language === 'he' ? 'he-IL' : 'en-US');
      await page.goto(`${baseUrl}/dev/notifications?to=${encodeURIComponent(phone)}&lang=${language}`);
      const rows = page.locator('tbody tr');
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      await screenshot(page, `dev-notifications-${language}-phone`);
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      const code = rows.first().locator('.otp');
      expect(await code.isVisible()).toBe(true);
      const box = await code.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    }
  });

  it('says the panel exists only in development when the server has no capture route', async () => {
    // The page against a server without the route (as in production), in both languages.
    const page = await newPage(DESKTOP);
    await page.route('**/api/dev/notifications**', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'not_found', message: 'No route', details: [], request_id: 'x' },
        }),
      }),
    );
    await page.goto(`${baseUrl}/dev/notifications?lang=en`);
    const title = page.getByRole('heading', { name: 'Only available in development' });
    await expect.poll(() => title.isVisible()).toBe(true);
    expect(await page.locator('table').count()).toBe(0);
    expect(await page.getByLabel('Kind').count()).toBe(0);
    await screenshot(page, 'dev-notifications-unavailable-en');
    await page.getByRole('button', { name: 'עברית' }).click();
    await expect
      .poll(() => page.getByRole('heading', { name: 'זמין רק בסביבת פיתוח' }).isVisible())
      .toBe(true);
    await screenshot(page, 'dev-notifications-unavailable-he');

    // A production server does not even serve the page, and its home page has no link to it.
    const direct = await fetch(`${productionUrl}/dev/notifications`);
    expect(direct.status).toBe(404);
    const home = await newPage(DESKTOP);
    await home.goto(`${productionUrl}/?lang=en`);
    await expect.poll(() => home.getByRole('link', { name: /API documentation/ }).isVisible()).toBe(true);
    expect(await home.getByRole('link', { name: 'Development notifications' }).count()).toBe(0);
  });

  it('links the panel from the home page in development', async () => {
    const page = await newPage(DESKTOP);
    await page.goto(`${baseUrl}/?lang=en`);
    const link = page.getByRole('link', { name: 'Development notifications' });
    await expect.poll(() => link.isVisible()).toBe(true);
    await screenshot(page, 'home-en-desktop');
    await link.click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Development notifications');
    expect(new URL(page.url()).pathname).toBe('/dev/notifications');
  });
});
