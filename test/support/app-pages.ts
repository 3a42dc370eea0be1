// What the business app's browser tests (test/e2e/app-*.test.ts) share: signing in through the pages, the
// emailed links of the development capture, authenticator codes computed from the secret the page shows
// (otpauth, as a phone app would), and the accessibility check of the screen shown.

import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { freePort } from '../../scripts/ports.ts';
import { accessibilityViolations } from './accessibility.ts';
import { type ApiHarness, listenLocally, openApiHarness } from './api.ts';
import { callAs } from './app-requests.ts';
import { launchTestBrowser, type TestBrowser } from './browser.ts';
import { testConfig } from './context.ts';
import { captured } from './dev-notifications.ts';
import type { SignedInUser } from './signed-in-user.ts';

export interface AppBrowserOptions {
  /**
   * Serve the app at http://localhost:<port> with PUBLIC_BASE_URL that origin, as passkeys need: the WebAuthn
   * relying party is PUBLIC_BASE_URL's host, and an IP address such as 127.0.0.1 cannot be one.
   */
  localhost?: boolean;
}

/**
 * Before the file's tests: a browser, the app with its test context, and the app listening on a port (handed to
 * `opened`, which keeps them in the file's variables and may prepare more); after them, both closed.
 */
export function useAppBrowser(
  opened: (session: { harness: ApiHarness; browser: TestBrowser; baseUrl: string }) => unknown,
  options: AppBrowserOptions = {},
): void {
  let harness: ApiHarness | undefined;
  let browser: TestBrowser | undefined;
  beforeAll(async () => {
    browser = await launchTestBrowser();
    if (options.localhost) {
      const port = await freePort();
      const baseUrl = `http://localhost:${port}`;
      harness = await openApiHarness(testConfig({ PUBLIC_BASE_URL: baseUrl }));
      await harness.app.listen({ host: 'localhost', port });
      await opened({ harness, browser, baseUrl });
      return;
    }
    harness = await openApiHarness();
    await opened({ harness, browser, baseUrl: await listenLocally(harness.app) });
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });
}

export function eventually<T>(read: () => Promise<T>, timeout = 60_000) {
  return expect.poll(read, { timeout, interval: 100 });
}

export async function expectAccessible(page: Page, screen: string): Promise<void> {
  expect(await accessibilityViolations(page), screen).toEqual([]);
}

/** The path and query of the page shown. */
export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

export async function waitForPath(page: Page, path: string | RegExp): Promise<void> {
  await eventually(async () => new URL(page.url()).pathname).toMatch(
    typeof path === 'string' ? new RegExp(`^${path.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')}$`) : path,
  );
}

/**
 * The emailed link of the kind (`verify_email`, `invite`, `reset_password`) newest to the address, opened on
 * the test's server: the capture holds the link with PUBLIC_BASE_URL's origin, the path and token are what count.
 */
export async function emailedLink(baseUrl: string, to: string, kind: string): Promise<string> {
  let link: string | null = null;
  await eventually(async () => {
    const found = (await captured(baseUrl, `to=${encodeURIComponent(to)}`)).find(
      (notification) => notification.kind === kind,
    );
    link = found?.signingLink ?? null;
    return link;
  }, 30_000).not.toBeNull();
  const url = new URL(link as unknown as string);
  return `${baseUrl}${url.pathname}${url.search}`;
}

/** The authenticator app's code for the secret the page showed (spaces allowed), at a time. */
export function totpCode(secret: string, at: number = Date.now()): string {
  return new TOTP({
    issuer: 'Sigil',
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret.replace(/\s/g, '')),
  }).generate({ timestamp: at });
}

/**
 * A code not accepted before: the next 30-second step's (the server accepts one step either side, and a code
 * only for a step later than the last it accepted, such as the one the enrolment used).
 */
export function freshTotpCode(secret: string, steps = 1): string {
  return totpCode(secret, Date.now() + steps * 30_000);
}

/** Fills the sign-in form and submits it (the page may then ask for the second step). */
export async function submitSignIn(page: Page, baseUrl: string, email: string, password: string, next = '') {
  if (!new URL(page.url()).pathname.startsWith('/app/sign-in')) {
    await page.goto(`${baseUrl}/app/sign-in${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  }
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in (no second step) and waits for the overview. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await submitSignIn(page, baseUrl, email, password);
  await waitForPath(page, '/app');
  await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^(Welcome|שלום), /);
}

/** The page has loaded what it shows: no "Loading…" status left. */
export async function waitForLoaded(page: Page): Promise<void> {
  await eventually(() =>
    page
      .getByRole('status')
      .filter({ hasText: /^(Loading…|טוען…)$/ })
      .count(),
  ).toBe(0);
}

/**
 * A new page of the size given, the browser in English, signed in as `user` whose language is set first: the app
 * shows in that language (its <html lang>) once signed in.
 */
export async function signedInPage(
  browser: TestBrowser,
  baseUrl: string,
  user: SignedInUser,
  viewport: { width: number; height: number },
  language: 'en' | 'he',
): Promise<Page> {
  await callAs(baseUrl, user, 'PUT', '/api/auth/me/preferences', { language });
  const page = await browser.newPage(viewport, 'en-US');
  await signIn(page, baseUrl, user.email, user.password);
  await eventually(() => page.locator('html').getAttribute('lang')).toBe(language);
  return page;
}

/** Signs out through the user menu and waits for the sign-in page. */
export async function signOut(page: Page): Promise<void> {
  await page.locator('.user-menu > button').click();
  await page.getByRole('button', { name: /^(Sign out|התנתקות)$/ }).click();
  await waitForPath(page, '/app/sign-in');
}
