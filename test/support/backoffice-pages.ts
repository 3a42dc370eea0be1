// What the browser tests of the backoffice's organization and provider pages share: an administrator made as
// the operator CLI makes one (the domain allowed), the sign-in through the pages with the password and the
// code emailed to the development capture, a page already signed in (a session started by the service, its
// cookie given to the browser: for the screens in other languages and sizes), and the backoffice's
// navigation.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { BackofficeRole } from '../../domain/backoffice-roles.ts';
import { startBackofficeSession } from '../../services/backoffice/backoffice-sessions.ts';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import { eventually, waitForLoaded, waitForPath } from './app-pages.ts';
import { BACKOFFICE_COOKIE } from './backoffice.ts';
import type { TestBrowser } from './browser.ts';
import { captured } from './dev-notifications.ts';
import type { HasOrm } from './signed-in-user.ts';

export interface BackofficeAdmin {
  email: string;
  fullName: string;
  password: string;
}

/** A new administrator at `domain` (allowed as the operator CLI allows it), with a password of their own. */
export async function operatorMadeAdmin(
  harness: HasOrm,
  domain: string,
  fullName: string,
): Promise<BackofficeAdmin> {
  const email = `${fullName.split(' ')[0]?.toLowerCase()}-${randomUUID().slice(0, 6)}@${domain}`;
  const password = `a long password for ${randomUUID()}`;
  await createPlatformAdmin(
    { em: harness.ctx.orm.em.fork() },
    { kind: 'operator_cli' },
    { email, fullName, password, allowDomain: true },
  );
  return { email, fullName, password };
}

async function latestCode(baseUrl: string, email: string): Promise<string | null> {
  const found = (await captured(baseUrl, `to=${encodeURIComponent(email)}`)).find(
    (notification) => notification.kind === 'platform_admin_code',
  );
  return found?.otpCode ?? null;
}

/** Signs in through the sign-in page (the password, then the emailed code) and waits for `path` to load. */
export async function signInToBackoffice(
  page: Page,
  baseUrl: string,
  admin: BackofficeAdmin,
  path: string,
): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await waitForPath(page, '/backoffice/sign-in');
  const before = await latestCode(baseUrl, admin.email);
  await page.getByLabel('Email address').fill(admin.email);
  await page.getByLabel('Password', { exact: true }).fill(admin.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await eventually(() => page.getByLabel('Sign-in code').count()).toBe(1);
  let code: string | null = null;
  await eventually(async () => {
    code = await latestCode(baseUrl, admin.email);
    return code !== null && code !== before;
  }, 30_000).toBe(true);
  await page.getByLabel('Sign-in code').fill(code as unknown as string);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForPath(page, path);
  await waitForLoaded(page);
}

/** A page of the given size whose browser holds a new administrator's backoffice session (of `role`). */
export async function signedInBackofficePage(
  browser: TestBrowser,
  harness: HasOrm,
  baseUrl: string,
  viewport: { width: number; height: number },
  domain: string,
  role: BackofficeRole = 'administrator',
): Promise<Page> {
  const { admin } = await createPlatformAdmin(
    { em: harness.ctx.orm.em.fork() },
    { kind: 'operator_cli' },
    {
      email: `screens-${randomUUID().slice(0, 6)}@${domain}`,
      fullName: 'Screens Admin',
      allowDomain: true,
      role,
    },
  );
  const { token } = await startBackofficeSession(
    { em: harness.ctx.orm.em.fork() },
    { admin, ipAddress: '127.0.0.1', userAgent: null },
  );
  const page = await browser.newPage(viewport);
  await page.context().addCookies([{ name: BACKOFFICE_COOKIE, value: token, url: baseUrl }]);
  return page;
}

export function backofficeNav(page: Page) {
  return page.getByRole('navigation', { name: /^(Backoffice|ממשק הניהול)$/ });
}

/** Text without the bidirectional isolates the pages put around names and addresses inside a sentence. */
export function plain(text: string | null): string {
  return (text ?? '').replace(/[\u2066-\u2069]/g, '');
}
