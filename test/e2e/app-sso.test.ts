// Single sign-on in a real browser (Debian's Chromium driven by playwright-core) against a real Sigil app on a
// localhost port and a real OpenID provider (oidc-provider with its own login and consent pages) started here
// (docs/sso.md): an owner sets the provider up on Administration → Single sign-on (just-in-time accounts as
// Sender), then a new person at the allowed domain chooses "Sign in with SSO" on the sign-in page, goes
// through the provider's pages and lands in the app signed in, with an account made for them; a forged state
// on the callback page is refused in words. Sigil's screens pass axe-core's WCAG 2.1 AA rules; screenshots
// (English, Hebrew, a 375 px phone) go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { AppUser, Role } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import { eventually, expectAccessible, signIn, useAppBrowser, waitForLoaded } from '../support/app-pages.ts';
import { asUser } from '../support/app-requests.ts';
import { DESKTOP, PHONE, type TestBrowser } from '../support/browser.ts';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let provider: TestProvider;

useAppBrowser(
  async (opened) => {
    ({ harness, browser, baseUrl } = opened);
    provider = await startTestProvider({ redirectUri: `${baseUrl}/app/sso/callback`, devInteractions: true });
  },
  { localhost: true },
);
afterAll(async () => {
  await provider?.close();
});

/** The user signed in on a new page in `language` (this app's origin is its own port, not APP_ORIGIN). */
async function pageAs(user: SignedInUser, viewport: typeof DESKTOP, language: 'en' | 'he') {
  const answer = await asUser(
    baseUrl,
    { headers: { cookie: user.cookie, origin: baseUrl } },
    'PUT',
    '/api/auth/me/preferences',
    {
      language,
    },
  );
  expect(answer.status).toBe(200);
  const page = await browser.newPage(viewport, 'en-US');
  await signIn(page, baseUrl, user.email, user.password);
  await eventually(() => page.locator('html').getAttribute('lang')).toBe(language);
  return page;
}

describe('single sign-on in the browser', () => {
  it('is set up by an owner, then signs a new person in through the provider’s pages (English)', async () => {
    const domain = `sso-${randomUUID().slice(0, 8)}.test`;
    const owner = await signedInUser(harness, {
      role: 'owner',
      email: `owner@${domain}`,
      fullName: 'Dana Levi',
    });
    const page = await pageAs(owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/admin/sso`);
    await waitForLoaded(page);
    expect(await page.locator('#sso-redirect').inputValue()).toBe(`${baseUrl}/app/sso/callback`);
    await page.locator('#sso-issuer').fill(provider.issuer);
    await page.locator('#sso-clientId').fill(provider.clientId);
    await page.locator('#sso-clientSecret').fill(provider.clientSecret);
    await page.locator('#sso-allowedDomains').fill(domain);
    await page.locator('#sso-jitEnabled').check();
    const sender = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Role, { organizationId: owner.organization.id, builtIn: 'sender' });
    await page.locator('#sso-jitRoleId').selectOption(sender.id);
    await page.getByRole('button', { name: 'Save single sign-on' }).click();
    await eventually(() => page.locator('#sso-saved').textContent()).toBe('Single sign-on saved.');
    expect(await page.locator('#sso-clientSecret').inputValue()).toBe('');
    await expectAccessible(page, 'single sign-on settings');
    await browser.screenshot(page, 'app-sso-settings-en');
    await page.close();

    const visitor = await browser.newPage(DESKTOP, 'en-US');
    await visitor.goto(`${baseUrl}/app/sign-in`);
    await visitor.getByRole('link', { name: 'Sign in with SSO' }).click();
    await eventually(async () => new URL(visitor.url()).pathname).toBe('/app/sso');
    await expectAccessible(visitor, 'sign in with SSO');
    await browser.screenshot(visitor, 'app-sso-start-en');
    const email = `noa@${domain}`;
    await visitor.locator('#sso-email').fill(email);
    await visitor.getByRole('button', { name: 'Continue' }).click();
    // The provider's own pages: any login (the address) and password, then consent.
    await eventually(async () => new URL(visitor.url()).origin).toBe(provider.issuer);
    await visitor.locator('input[name="login"]').fill(email);
    await visitor.locator('input[name="password"]').fill('anything');
    await visitor.getByRole('button', { name: 'Sign-in' }).click();
    await visitor.getByRole('button', { name: 'Continue' }).click();
    await eventually(async () => new URL(visitor.url()).pathname, 30_000).toBe('/app');
    const cookie = (await visitor.context().cookies(baseUrl)).find((c) => c.name === 'sigil_session');
    expect(cookie?.value).toBeTruthy();
    const me = (await (
      await asUser(baseUrl, { headers: { cookie: `sigil_session=${cookie?.value}` } }, 'GET', '/api/auth/me')
    ).json()) as { user: { email: string } };
    expect(me.user.email).toBe(email);
    const made = await harness.ctx.orm.em.fork().findOneOrFail(AppUser, { email });
    expect(made.roleId).toBe(sender.id);
    await visitor.close();
  });

  it('shows the settings and the sign-in in Hebrew on a phone, and a forged return refused in words', async () => {
    const domain = `sso-${randomUUID().slice(0, 8)}.test`;
    const owner = await signedInUser(harness, {
      role: 'owner',
      email: `owner@${domain}`,
      fullName: 'דנה לוי',
    });
    const page = await pageAs(owner, PHONE, 'he');
    await page.goto(`${baseUrl}/app/admin/sso`);
    await waitForLoaded(page);
    await eventually(() => page.locator('h1').textContent()).toContain('כניסה יחידה');
    await expectAccessible(page, 'single sign-on settings, Hebrew, phone');
    await browser.screenshot(page, 'app-sso-settings-he-phone');
    await page.close();

    const visitor = await browser.newPage(PHONE, 'he-IL');
    await visitor.goto(`${baseUrl}/app/sso`);
    await eventually(() => visitor.locator('h1').textContent()).toContain('כניסה עם SSO');
    await expectAccessible(visitor, 'sign in with SSO, Hebrew, phone');
    await browser.screenshot(visitor, 'app-sso-start-he-phone');
    await visitor.goto(`${baseUrl}/app/sso/callback?state=forged-state&code=forged`);
    await eventually(() => visitor.locator('#sso-callback-error').textContent()).toContain('התחילו מחדש');
    await expectAccessible(visitor, 'a forged single sign-on return');
    await browser.screenshot(visitor, 'app-sso-callback-refused-phone');
    await visitor.close();
  });
});
