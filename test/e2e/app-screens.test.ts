// Every main screen of the business app (/app) in English and in Hebrew (right to left), on a desktop and on a
// 375-pixel phone: no sideways scrolling on the phone, the navigation behind a Menu button there, the Hebrew
// layout mirrored (the navigation on the right), the language chosen in the user menu saved as the user's
// preference (the next sign-in, on another device, is in Hebrew too), and axe-core's WCAG 2.1 AA rules on each
// screen. Screenshots of each go to test/artifacts/web/ (app-<screen>-<language>-<desktop|phone>.png).
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let owner: SignedInUser;
let administrator: SignedInUser;

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

useAppBrowser(async (opened) => {
  ({ harness, browser, baseUrl } = opened);
  // An organization with something on every page: teams, a custom role, invited users, security events.
  owner = await signedInUser(harness, { role: 'owner', fullName: 'Dana Levi' });
  administrator = await signedInUser(harness, {
    role: 'administrator',
    organizationId: owner.organization.id,
    fullName: 'Omer Administrator',
  });
  const sales = (await callAs(baseUrl, owner, 'POST', '/api/teams', { name: 'מכירות' })) as { id: string };
  await callAs(baseUrl, owner, 'POST', '/api/teams', { name: 'Support' });
  const role = (await callAs(baseUrl, owner, 'POST', '/api/roles', {
    name: 'Auditors',
    permissions: ['users:read', 'security:read', 'reports:read'],
  })) as { id: string };
  await callAs(baseUrl, owner, 'POST', '/api/users/invite', {
    fullName: 'נועה כהן',
    email: `noa-${randomUUID().slice(0, 8)}@example.com`,
    roleId: role.id,
    teamId: sales.id,
  });
  await callAs(baseUrl, owner, 'POST', '/api/users/invite', {
    fullName: 'Christopher Alexander Montgomery-Wellington',
    email: `christopher.alexander.montgomery-wellington-${randomUUID().slice(0, 8)}@example.com`,
    roleId: role.id,
  });
});

const SCREENS = [
  { name: 'overview', path: '/app', ready: '[data-testid="overview-organization"]' },
  { name: 'profile', path: '/app/profile', ready: '[data-testid="mfa-status"]' },
  { name: 'users', path: '/app/admin/users', ready: '[data-testid="users"]' },
  { name: 'roles', path: '/app/admin/roles', ready: '[data-testid="roles"]' },
  { name: 'teams', path: '/app/admin/teams', ready: '[data-testid="teams"]' },
  { name: 'settings', path: '/app/admin/settings', ready: 'form.settings' },
  { name: 'security-log', path: '/app/admin/security-log', ready: '[data-testid="security-log"]' },
] as const;

const SIGNED_OUT = [
  { name: 'sign-in', path: '/app/sign-in' },
  { name: 'sign-up', path: '/app/sign-up' },
  { name: 'forgot-password', path: '/app/forgot-password' },
  { name: 'check-email', path: '/app/check-email?email=dana%40example.com' },
] as const;

async function openScreen(page: Page, screen: (typeof SCREENS)[number]): Promise<void> {
  await page.goto(`${baseUrl}${screen.path}`);
  await eventually(() => page.locator(screen.ready).count()).toBe(1);
  await waitForLoaded(page);
}

async function box(page: Page, selector: string) {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not shown`);
  return found;
}

describe('the business app on every screen, in English and Hebrew, on a desktop and a phone', () => {
  it('switches to Hebrew from the user menu, saves it as the preference, and mirrors every screen', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await page.getByRole('button', { name: 'Dana Levi' }).click();
    const menu = page.locator('#user-menu-panel');
    await expectAccessible(page, 'user menu');
    await browser.screenshot(page, 'app-user-menu-en-desktop');
    await menu.getByRole('button', { name: 'עברית' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('שלום, Dana Levi');
    // Saved for the user: the database has it, and Escape closes the menu, focus back on its button.
    await eventually(async () => {
      const user = await harness.ctx.orm.em.fork().findOneOrFail(AppUser, { id: owner.user.id });
      return user.language;
    }).toBe('he');
    await page.keyboard.press('Escape');
    expect(await menu.count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-expanded")')).toBe('false');

    for (const screen of SCREENS) {
      await openScreen(page, screen);
      expect(await page.locator('html').getAttribute('dir'), screen.name).toBe('rtl');
      // Right to left: the navigation is at the right of the page's content.
      const nav = await box(page, '#app-nav');
      const content = await box(page, '.content');
      expect(nav.x, screen.name).toBeGreaterThan(content.x);
      expect(await pageWidth(page), screen.name).toBeLessThanOrEqual(DESKTOP.width);
      await expectAccessible(page, `${screen.name} in Hebrew`);
      await browser.screenshot(page, `app-${screen.name}-he-desktop`);
    }
    // The security log's details are Hebrew words, never the raw keys (`role: Auditors · permissions: …`).
    await openScreen(page, SCREENS[6]);
    const log = page.getByTestId('security-log');
    expect(await log.locator('tr[data-event="role.created"]').textContent()).toMatch(
      /התפקיד "\u2068?Auditors\u2069?".*הרשאות: /,
    );
    expect(await log.textContent()).not.toMatch(/role: |permissions: |team: |method: /);
    // The dialogs too.
    await openScreen(page, SCREENS[3]);
    await page.getByRole('button', { name: 'תפקיד חדש' }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(1);
    await expectAccessible(page, 'role form in Hebrew');
    await browser.screenshot(page, 'app-role-form-he-desktop');

    // Another device: the sign-in page in English, and once signed in, the user's Hebrew.
    const other = await browser.newPage(DESKTOP, 'en-US');
    await other.goto(`${baseUrl}/app/sign-in`);
    await eventually(() => other.locator('html').getAttribute('dir')).toBe('ltr');
    await other.getByLabel('Email address').fill(owner.email);
    await other.getByLabel('Password', { exact: true }).fill(owner.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await waitForPath(other, '/app');
    await eventually(() => other.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await other.getByRole('heading', { level: 1 }).textContent()).toBe('שלום, Dana Levi');
  });

  it('fits a 375-pixel phone in English and Hebrew, with the navigation behind a Menu button', async () => {
    await callAs(baseUrl, owner, 'PUT', '/api/auth/me/preferences', { language: 'he' });
    for (const [language, user] of [
      ['en', administrator],
      ['he', owner],
    ] as const) {
      // The sign-in page in the browser's English; the app then in the user's language.
      const phone = await browser.newPage(PHONE, 'en-US');
      await signIn(phone, baseUrl, user.email, user.password);
      await eventually(() => phone.locator('html').getAttribute('lang')).toBe(language);
      // The navigation is behind the Menu button.
      const toggle = phone.locator('.menu-toggle');
      expect(await phone.locator('#app-nav').isVisible()).toBe(false);
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      expect(await phone.locator('#app-nav').isVisible()).toBe(true);
      await expectAccessible(phone, `menu (${language})`);
      await browser.screenshot(phone, `app-menu-${language}-phone`);
      await phone
        .locator('#app-nav')
        .getByRole('link', { name: language === 'he' ? 'משתמשים' : 'Users' })
        .click();
      await waitForPath(phone, '/app/admin/users');
      expect(await phone.locator('#app-nav').isVisible()).toBe(false);

      for (const screen of SCREENS) {
        await openScreen(phone, screen);
        expect(await pageWidth(phone), `${screen.name} (${language})`).toBeLessThanOrEqual(PHONE.width);
        await expectAccessible(phone, `${screen.name} on a phone (${language})`);
        await browser.screenshot(phone, `app-${screen.name}-${language}-phone`);
      }
      // An address in the security log wraps only between its parts (after the @, before a dot, after a
      // hyphen), never inside one: each part's text stays on one line, and the longest address does wrap.
      await openScreen(phone, SCREENS[6]);
      const wrapping =
        (await phone.evaluate(`[...document.querySelectorAll('[data-testid="security-log"] .email-address')]
        .map((address) => ({
          lines: new Set([...address.childNodes].flatMap((node) => {
            const range = document.createRange();
            range.selectNodeContents(node);
            return [...range.getClientRects()].map((rect) => Math.round(rect.top));
          })).size,
          broken: [...address.childNodes].filter((node) => {
            if (node.nodeType !== Node.TEXT_NODE) return false;
            const range = document.createRange();
            range.selectNodeContents(node);
            return range.getClientRects().length > 1;
          }).map((node) => node.textContent),
        }))`)) as { lines: number; broken: string[] }[];
      expect(wrapping.length).toBeGreaterThan(3);
      expect(wrapping.flatMap((address) => address.broken)).toEqual([]);
      expect(Math.max(...wrapping.map((address) => address.lines))).toBeGreaterThan(1);
      // The invitation dialog fits too.
      await openScreen(phone, SCREENS[2]);
      await phone.getByRole('button', { name: language === 'he' ? 'הזמנת משתמש' : 'Invite a user' }).click();
      await eventually(() => phone.getByRole('dialog').count()).toBe(1);
      expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(phone, `invitation on a phone (${language})`);
      await browser.screenshot(phone, `app-users-invite-${language}-phone`);
    }
  });

  it('is usable with the keyboard alone: sign-in, the user menu, a form and a dialog', async () => {
    const page = await browser.newPage(DESKTOP);
    /** Presses Tab until the element with the id has the focus (at most 25 times). */
    async function tabTo(id: string): Promise<void> {
      for (let presses = 0; presses < 25; presses += 1) {
        if ((await page.evaluate('document.activeElement?.id')) === id) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached #${id}`);
    }
    // The old address of the sign-in page (in emails) leads to it.
    await page.goto(`${baseUrl}/app/login`);
    await waitForPath(page, '/app/sign-in');
    await tabTo('sign-in-email');
    await page.keyboard.type(administrator.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(administrator.password);
    await page.keyboard.press('Enter');
    await waitForPath(page, '/app');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Welcome, Omer Administrator',
    );

    // The user menu opens with Enter and closes with Escape, giving the focus back to its button.
    await page.locator('.user-menu > button').focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#user-menu-panel').count()).toBe(1);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Your profile');
    await page.keyboard.press('Escape');
    expect(await page.locator('#user-menu-panel').count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.closest(".user-menu") !== null')).toBe(true);

    // A team made with the keyboard: Enter submits the form.
    await page.goto(`${baseUrl}/app/admin/teams`);
    await eventually(() => page.getByTestId('teams').count()).toBe(1);
    await tabTo('team-new');
    await page.keyboard.type('Keyboard team');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('tr[data-team="Keyboard team"]').count()).toBe(1);
    // A dialog: the focus moves into it, Escape closes it and the focus returns to the button that opened it.
    const rename = page.getByRole('button', { name: 'Rename: Keyboard team' });
    await rename.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename the team Keyboard team' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('team-rename');
    await page.keyboard.press('Escape');
    await eventually(() => dialog.isVisible()).toBe(false);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Rename: Keyboard team',
    );
  });

  it('shows the signed-out pages on a phone and a desktop, in English and Hebrew', async () => {
    for (const [viewport, device] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      for (const language of ['en', 'he'] as const) {
        const page = await browser.newPage(viewport, language === 'he' ? 'he-IL' : 'en-US');
        for (const screen of SIGNED_OUT) {
          await page.goto(`${baseUrl}${screen.path}`);
          await eventually(() => page.locator('.auth-card h1').count()).toBe(1);
          expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
          expect(await pageWidth(page), `${screen.name} ${device} ${language}`).toBeLessThanOrEqual(
            viewport.width,
          );
          await expectAccessible(page, `${screen.name} (${device}, ${language})`);
          await browser.screenshot(page, `app-${screen.name}-${language}-${device}`);
        }
      }
    }
  });
});
