// The platform backoffice's pages for administrators (/backoffice, docs/backoffice.md, "The backoffice
// pages") in a real browser against a real Sigil app. The first administrator is made as the operator CLI makes
// it (the service, with its domain allowed). A page without a backoffice session goes to the sign-in and comes
// back; the sign-in takes the password (a wrong one is refused in words), then the emailed code (from the
// development capture; a wrong one is refused beside the field). On the administrators page a new
// administrator is added and their first password shown once — they sign in with it in another browser — a
// domain outside the list and removing yourself are refused with the server's message, and removing the new
// administrator ends their session. On the security page your address is shown, allowlist entries covering the
// loopback addresses are added, changed and removed — a change that would exclude you is refused as a lock-out —
// and an email domain is added, renamed and removed while the domain in use is kept. The audit log shows it all
// in words, newest first; signing out ends it. A second test shows every page in Hebrew (right to left) and on a
// 375-pixel phone.
// axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
//
// The database is shared with files running at the same time, and the IP allowlist is one for the whole server:
// this file's entries all cover the loopback addresses every test uses, and whatever of them is left when a
// test ends (a failure half-way) is deleted from the table directly.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { withBackofficeAllowlist } from '../support/backoffice-allowlist.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { captured } from '../support/dev-notifications.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** This run's allowed domain and the description its allowlist entries carry (to find them when cleaning up). */
const RUN = randomUUID().slice(0, 8);
const DOMAIN = `bo-${RUN}.example.test`;
const ENTRY_DESCRIPTION = `Loopback (browser test ${RUN})`;

/**
 * Removes this file's allowlist entries: inside its turn (test/support/backoffice-allowlist.ts) every entry is
 * this file's (the `::1` one has no description); after a test only those with its description.
 */
async function clearEntries(inTurn = false): Promise<void> {
  await harness.ctx.em
    .fork()
    .execute(
      inTurn
        ? 'delete from platform_admin_ip_allowlist'
        : 'delete from platform_admin_ip_allowlist where description = ?',
      inTurn ? [] : [ENTRY_DESCRIPTION],
    );
}

afterEach(() => clearEntries());

interface Admin {
  email: string;
  fullName: string;
  password: string;
}

/** An administrator as the operator CLI makes one: the service, the domain added when not yet allowed. */
async function operatorMadeAdmin(fullName: string): Promise<Admin> {
  const email = `${fullName.split(' ')[0]?.toLowerCase()}-${randomUUID().slice(0, 6)}@${DOMAIN}`;
  const password = `a long password for ${randomUUID()}`;
  await createPlatformAdmin(
    harness.ctx,
    { kind: 'operator_cli' },
    { email, fullName, password, allowDomain: true },
  );
  return { email, fullName, password };
}

/** The newest sign-in code emailed to the address (the development capture keeps it in clear). */
async function emailedCode(email: string, after: string | null = null): Promise<string> {
  let code: string | null = null;
  await eventually(async () => {
    const found = (await captured(baseUrl, `to=${encodeURIComponent(email)}`)).find(
      (notification) => notification.kind === 'platform_admin_code',
    );
    code = found?.otpCode ?? null;
    return code !== null && code !== after;
  }, 30_000).toBe(true);
  return code as unknown as string;
}

/** Step 1 on the sign-in page shown: address and password. */
async function submitPassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Both steps from the sign-in page, ending on `path`. */
async function signIn(page: Page, admin: Admin, path = '/backoffice'): Promise<void> {
  await page.goto(`${baseUrl}/backoffice/sign-in${path === '/backoffice' ? '' : `?next=${path}`}`);
  const before = await latestCode(admin.email);
  await submitPassword(page, admin.email, admin.password);
  await eventually(() => page.getByLabel('Sign-in code').count()).toBe(1);
  await page.getByLabel('Sign-in code').fill(await emailedCode(admin.email, before));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForPath(page, path);
  await waitForLoaded(page);
}

async function latestCode(email: string): Promise<string | null> {
  const found = (await captured(baseUrl, `to=${encodeURIComponent(email)}`)).find(
    (notification) => notification.kind === 'platform_admin_code',
  );
  return found?.otpCode ?? null;
}

/** Text without the bidirectional isolates the pages put around addresses and domains inside a sentence. */
function plain(text: string | null): string {
  return (text ?? '').replace(/[\u2066-\u2069]/g, '');
}

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Backoffice' });
}

function adminRow(page: Page, email: string) {
  return page.locator(`tr[data-admin="${email}"]`);
}

async function goTo(page: Page, link: string, path: string): Promise<void> {
  await nav(page).getByRole('link', { name: link }).click();
  await waitForPath(page, path);
  await waitForLoaded(page);
}

describe('the backoffice pages for administrators', () => {
  it('signs in with password and code, manages administrators, the allowlist and the domains, and logs it all', async () => {
    const first = await operatorMadeAdmin('Dana Levi');
    const page = await browser.newPage(DESKTOP);

    // No session: the sign-in, which comes back to the page asked for.
    await page.goto(`${baseUrl}/backoffice/admins`);
    await waitForPath(page, '/backoffice/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/backoffice/admins');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sign in to the backoffice',
    );
    await expectAccessible(page, 'sign-in');
    await browser.screenshot(page, 'backoffice-sign-in-en-desktop');

    // A wrong password: refused in words, no code sent.
    await submitPassword(page, first.email, 'not the password at all');
    await eventually(() => page.getByTestId('sign-in-error').textContent()).toContain(
      'The email address or the password is wrong.',
    );
    expect(await latestCode(first.email)).toBeNull();
    expect(await page.evaluate('document.activeElement?.id')).toBe('sign-in-error');

    // The right one: the code step, with the address and the code field a phone fills from the email.
    await page.getByLabel('Password', { exact: true }).fill(first.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const codeField = page.getByLabel('Sign-in code');
    await eventually(() => codeField.count()).toBe(1);
    expect(await page.getByTestId('code-sent').textContent()).toContain(first.email);
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    expect(await page.evaluate('document.activeElement?.id')).toBe('sign-in-code');
    const code = await emailedCode(first.email);
    expect(code).toMatch(/^\d{6}$/);

    // Too short: the page says so; a wrong code: the server refuses it, beside the field.
    await codeField.fill('123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.locator('#sign-in-code-error').textContent()).toBe(
      'Enter the 6 digits of the code.',
    );
    await codeField.fill(code === '000000' ? '000001' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.locator('#sign-in-code-error').textContent()).toContain(
      'The code is wrong, has expired, or was tried too often.',
    );
    expect(await codeField.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'sign-in code refused');
    await browser.screenshot(page, 'backoffice-sign-in-code-en-desktop');

    // The right code: signed in, on the page asked for, in the backoffice's own frame.
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForPath(page, '/backoffice/admins');
    await eventually(() => adminRow(page, first.email).count()).toBe(1);
    expect(await page.getByTestId('backoffice-name').textContent()).toContain('Sigil backoffice');
    expect(await page.getByTestId('signed-in-admin').textContent()).toContain('Dana Levi');
    expect(await nav(page).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Organizations',
      'Plans',
      'Envelopes',
      'Providers',
      'Notification templates',
      'Secure signatures',
      'Administrators',
      'Security',
      'Audit log',
    ]);
    expect(await page.getByRole('navigation', { name: 'Business app' }).count()).toBe(0);
    expect(await adminRow(page, first.email).textContent()).toContain('You');
    expect(await adminRow(page, first.email).textContent()).toContain('from 127.0.0.1');

    // Add an administrator: the first password, shown once, to hand over in person.
    const second = {
      email: `noa-${randomUUID().slice(0, 6)}@${DOMAIN}`,
      fullName: 'Noa Cohen',
      password: '',
    };
    await page.getByRole('button', { name: 'Add an administrator' }).click();
    const add = page.getByRole('dialog', { name: 'Add an administrator' });
    expect(await add.locator('#admin-email-hint').textContent()).toContain(DOMAIN);
    await add.getByRole('button', { name: 'Add' }).click();
    await eventually(() => add.locator('#admin-fullName-error').textContent()).toBe('Enter a full name.');
    // An address outside the allowed domains: the server's message.
    const outside = `partner-${RUN}.example.test`;
    await add.getByLabel('Full name').fill('Outside Person');
    await add.getByLabel('Email address').fill(`someone@${outside}`);
    await add.getByRole('button', { name: 'Add' }).click();
    await eventually(() => add.locator('#admin-error').textContent()).toContain(
      `${outside} is not an allowed email domain`,
    );
    await expectAccessible(page, 'add administrator refused');
    await browser.screenshot(page, 'backoffice-admins-add-en-desktop');
    await add.getByLabel('Full name').fill(second.fullName);
    await add.getByLabel('Email address').fill(second.email);
    await add.getByRole('button', { name: 'Add' }).click();
    const shown = page.getByTestId('admin-password');
    await eventually(() => shown.count()).toBe(1);
    expect(await shown.getByRole('heading').textContent()).toBe('First password of Noa Cohen');
    expect(await shown.textContent()).toContain('Hand this password over in person');
    expect(await shown.getByTestId('admin-password-email').textContent()).toBe(second.email);
    second.password = await shown.locator('#admin-password-value').inputValue();
    expect(second.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await adminRow(page, second.email).textContent()).toContain('Never');
    await expectAccessible(page, 'first password shown once');
    await browser.screenshot(page, 'backoffice-admins-password-en-desktop');
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    expect(await shown.count()).toBe(0);

    // The new administrator signs in with it, in a browser of their own.
    const other = await browser.newPage(DESKTOP);
    await signIn(other, second);
    await eventually(() => other.getByRole('heading', { level: 1 }).textContent()).toBe('Backoffice');
    await page.reload();
    await eventually(() => adminRow(page, second.email).textContent()).toContain('from 127.0.0.1');

    // Removing yourself is refused with the server's message.
    await adminRow(page, first.email).getByRole('button', { name: 'Remove: Dana Levi' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove this administrator?' });
    await remove.getByRole('button', { name: 'Remove' }).click();
    await eventually(() => remove.locator('.app-alert').textContent()).toContain(
      'You cannot remove yourself',
    );
    await expectAccessible(page, 'remove yourself refused');
    await remove.getByRole('button', { name: 'Cancel' }).click();

    // Removing the new administrator: gone, and their session with them.
    await adminRow(page, second.email).getByRole('button', { name: 'Remove: Noa Cohen' }).click();
    expect(await remove.textContent()).toContain(`Noa Cohen (${second.email})`);
    await remove.getByRole('button', { name: 'Remove' }).click();
    await eventually(() => adminRow(page, second.email).count()).toBe(0);
    expect(await page.locator('.app-success').textContent()).toBe('Noa Cohen was removed.');
    await expectAccessible(page, 'administrators');
    await browser.screenshot(page, 'backoffice-admins-en-desktop');
    await other
      .getByRole('navigation', { name: 'Backoffice' })
      .getByRole('link', { name: 'Security' })
      .click();
    await waitForPath(other, '/backoffice/sign-in');

    await withBackofficeAllowlist(async () => {
      try {
        // Security: your address, the rules, and the allowlist (empty: the files that change it take turns,
        // test/support/backoffice-allowlist.ts).
        await goTo(page, 'Security', '/backoffice/security');
        expect(await page.getByTestId('your-address').textContent()).toBe('127.0.0.1');
        const rules = await page.getByTestId('rules').textContent();
        expect(rules).toContain('15 minutes');
        expect(rules).toContain('8 hours');
        expect(rules).toContain('6 digits');
        expect(rules).toContain('10 minutes');
        expect(rules).toContain('5 wrong attempts');
        const entry = (value: string) => page.locator(`tr[data-entry="${value}"]`);
        const entryDialog = page.getByRole('dialog', {
          name: /^(Add an entry to the IP allowlist|Change the entry)/,
        });

        // Add two entries covering the loopback addresses (IPv4 and IPv6); an invalid one is refused by the field.
        await page.getByRole('button', { name: 'Add an entry' }).click();
        await entryDialog.getByLabel('Address or range').fill('127.0.0.0/33');
        await entryDialog.getByRole('button', { name: 'Save' }).click();
        await eventually(() => entryDialog.locator('#entry-entry-error').textContent()).toContain('prefix');
        await entryDialog.getByLabel('Address or range').fill('127.0.0.0/16');
        await entryDialog.getByLabel('Description (optional)').fill(ENTRY_DESCRIPTION);
        await entryDialog.getByRole('button', { name: 'Save' }).click();
        await eventually(() => entry('127.0.0.0/16').count()).toBe(1);
        expect(plain(await page.locator('.app-success').textContent())).toBe(
          '127.0.0.0/16 was added to the allowlist.',
        );
        await page.getByRole('button', { name: 'Add an entry' }).click();
        await entryDialog.getByLabel('Address or range').fill('::1');
        await entryDialog.getByLabel('Description (optional)').fill(ENTRY_DESCRIPTION);
        await entryDialog.getByRole('button', { name: 'Save' }).click();
        await eventually(() => entry('::1').count()).toBe(1);
        expect(await entry('127.0.0.0/16').textContent()).toContain(ENTRY_DESCRIPTION);

        // A change that would leave this browser's 127.0.0.1 outside the list: the lock-out, in words.
        await entry('127.0.0.0/16').getByRole('button', { name: 'Edit: 127.0.0.0/16' }).click();
        expect(await entryDialog.getByLabel('Address or range').inputValue()).toBe('127.0.0.0/16');
        await entryDialog.getByLabel('Address or range').fill('192.0.2.0/24');
        await entryDialog.getByRole('button', { name: 'Save' }).click();
        await eventually(async () => plain(await entryDialog.locator('#entry-error').textContent())).toBe(
          'Refused: this would lock you out. Your address 127.0.0.1 would not be on the list afterwards. Add an entry that covers it first.',
        );
        await expectAccessible(page, 'allowlist lock-out refused');
        await browser.screenshot(page, 'backoffice-security-lockout-en-desktop');
        // A change that keeps it in is saved.
        await entryDialog.getByLabel('Address or range').fill('127.0.0.0/12');
        await entryDialog.getByRole('button', { name: 'Save' }).click();
        await eventually(() => entry('127.0.0.0/12').count()).toBe(1);
        expect(await entry('127.0.0.0/16').count()).toBe(0);
        expect(await entry('192.0.2.0/24').count()).toBe(0);
        await expectAccessible(page, 'security with allowlist');
        await browser.screenshot(page, 'backoffice-security-en-desktop');

        // Removing the entry that covers you while another remains: the lock-out again, in the confirmation.
        const removeEntry = page.getByRole('dialog', { name: 'Remove this entry?' });
        await entry('127.0.0.0/12').getByRole('button', { name: 'Remove: 127.0.0.0/12' }).click();
        await removeEntry.getByRole('button', { name: 'Remove' }).click();
        await eventually(async () => plain(await removeEntry.locator('.app-alert').textContent())).toContain(
          'this would lock you out. Your address 127.0.0.1',
        );
        await removeEntry.getByRole('button', { name: 'Cancel' }).click();
        // The IPv6 one, then the other.
        await entry('::1').getByRole('button', { name: 'Remove: ::1' }).click();
        await removeEntry.getByRole('button', { name: 'Remove' }).click();
        await eventually(() => entry('::1').count()).toBe(0);
        await entry('127.0.0.0/12').getByRole('button', { name: 'Remove: 127.0.0.0/12' }).click();
        await removeEntry.getByRole('button', { name: 'Remove' }).click();
        await eventually(() => entry('127.0.0.0/12').count()).toBe(0);
        expect(plain(await page.locator('.app-success').first().textContent())).toBe(
          '127.0.0.0/12 was removed from the allowlist.',
        );
      } finally {
        await clearEntries(true);
      }
    });

    // Allowed domains: add one, rename it, remove it; the domain administrators have is kept.
    const domain = (value: string) => page.locator(`tr[data-domain="${value}"]`);
    const domainDialog = page.getByRole('dialog', { name: /^(Allow an email domain|Change the domain)/ });
    expect(await domain(DOMAIN).textContent()).toContain('1 administrator');
    await page.getByRole('button', { name: 'Add a domain' }).click();
    await domainDialog.getByLabel('Domain').fill('https://example.com/');
    await domainDialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => domainDialog.locator('#domain-domain-error').textContent()).toContain('no @');
    await domainDialog.getByLabel('Domain').fill(outside.toUpperCase());
    await domainDialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => domain(outside).count()).toBe(1);
    expect(await domain(outside).textContent()).toContain('No administrators');
    await domain(outside)
      .getByRole('button', { name: `Edit: ${outside}` })
      .click();
    await domainDialog.getByLabel('Domain').fill(`renamed-${outside}`);
    await domainDialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => domain(`renamed-${outside}`).count()).toBe(1);
    const removeDomain = page.getByRole('dialog', { name: 'Remove this domain?' });
    await domain(DOMAIN)
      .getByRole('button', { name: `Remove: ${DOMAIN}` })
      .click();
    await removeDomain.getByRole('button', { name: 'Remove' }).click();
    await eventually(async () => plain(await removeDomain.locator('.app-alert').textContent())).toBe(
      `Refused: administrators have addresses at ${DOMAIN}. Remove them first.`,
    );
    await expectAccessible(page, 'domain in use refused');
    await browser.screenshot(page, 'backoffice-security-domain-in-use-en-desktop');
    await removeDomain.getByRole('button', { name: 'Cancel' }).click();
    await domain(`renamed-${outside}`)
      .getByRole('button', { name: `Remove: renamed-${outside}` })
      .click();
    await removeDomain.getByRole('button', { name: 'Remove' }).click();
    await eventually(() => domain(`renamed-${outside}`).count()).toBe(0);
    expect(await domain(DOMAIN).count()).toBe(1);

    // The audit log: all of it, in words, newest first (other files write to it too: rows are found by text).
    await goTo(page, 'Audit log', '/backoffice/audit-log');
    const log = page.getByTestId('audit-log');
    await eventually(() => log.locator('tbody tr').count()).toBeGreaterThan(5);
    const rowOf = (action: string, text: string) => {
      const rows = log.locator(`tr[data-action="${action}"]`);
      // An administrator added or removed: by the target (the actor's address is in the row too).
      if (action.startsWith('platform_admin.')) {
        return rows.filter({ has: page.getByTestId('event-target').filter({ hasText: text }) });
      }
      // This file's allowlist entries: by their description too (other files' entries may be the same ranges).
      const matching = rows.filter({ hasText: text });
      return action.startsWith('ip_allowlist.') ? matching.filter({ hasText: ENTRY_DESCRIPTION }) : matching;
    };
    const expected: [string, string, string][] = [
      ['allowed_domain.removed', `renamed-${outside}`, 'Email domain removed'],
      ['allowed_domain.changed', `${outside} → renamed-${outside}`, 'Email domain changed'],
      ['allowed_domain.created', outside, 'Email domain allowed'],
      ['ip_allowlist.entry_removed', '127.0.0.0/12', 'Allowlist entry removed'],
      ['ip_allowlist.entry_removed', '::1', 'Allowlist entry removed'],
      [
        'ip_allowlist.entry_changed',
        `127.0.0.0/16 (${ENTRY_DESCRIPTION}) → 127.0.0.0/12 (${ENTRY_DESCRIPTION})`,
        'Allowlist entry changed',
      ],
      ['ip_allowlist.entry_added', '::1', 'Allowlist entry added'],
      ['ip_allowlist.entry_added', '127.0.0.0/16', 'Allowlist entry added'],
      ['platform_admin.removed', second.email, 'Administrator removed'],
      ['platform_admin.created', second.email, 'Administrator added'],
      ['sign_in.succeeded', first.email, 'Signed in'],
      ['sign_in.code_refused', first.email, 'Wrong code'],
      ['sign_in.code_sent', first.email, 'Sign-in code emailed'],
      ['sign_in.password_refused', first.email, 'Wrong email or password'],
      ['platform_admin.created', first.email, 'Operator (command line)'],
    ];
    // Older pages on demand, until the first administrator's creation (the oldest of them) is shown.
    const more = page.getByRole('button', { name: 'Load more' });
    while ((await rowOf('platform_admin.created', first.email).count()) === 0 && (await more.count()) > 0) {
      const rows = await log.locator('tbody tr').count();
      await more.click();
      await eventually(() => log.locator('tbody tr').count()).toBeGreaterThan(rows);
    }
    const positions: number[] = [];
    for (const [action, text, words] of expected) {
      const row = rowOf(action, text);
      expect(await row.count(), `${action} ${text}`).toBeGreaterThan(0);
      expect(await row.first().textContent(), action).toContain(words);
      positions.push(Number((await row.first().getAttribute('id'))?.replace('event-', '')));
    }
    // Newest first: each expected row comes before the older ones.
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(await rowOf('sign_in.succeeded', first.email).first().textContent()).toContain('127.0.0.1');
    await expectAccessible(page, 'audit log');
    await browser.screenshot(page, 'backoffice-audit-log-en-desktop');

    // The overview, then sign-out: back to the sign-in, and the pages need signing in again.
    await goTo(page, 'Overview', '/backoffice');
    expect(await page.getByTestId('backoffice-areas').getByRole('link').allTextContents()).toEqual([
      'Organizations',
      'Providers',
      'Notification templates',
      'Secure signatures',
      'Administrators',
      'Security',
      'Audit log',
    ]);
    await expectAccessible(page, 'overview');
    await browser.screenshot(page, 'backoffice-overview-en-desktop');
    // Sign out is in the administrator's menu (the kit's Shell, as the business app's).
    await page.getByTestId('signed-in-admin').getByRole('button').first().click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await waitForPath(page, '/backoffice/sign-in');
    await page.goto(`${baseUrl}/backoffice/security`);
    await waitForPath(page, '/backoffice/sign-in');
  });

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    const admin = await operatorMadeAdmin('Yael Shapiro');
    const signedIn = await browser.newPage(DESKTOP);
    await signIn(signedIn, admin);
    const cookies = await signedIn.context().cookies();

    const pages: [string, string, string][] = [
      ['/backoffice', 'overview', 'ממשק הניהול'],
      ['/backoffice/admins', 'admins', 'מנהלי מערכת'],
      ['/backoffice/security', 'security', 'אבטחה'],
      ['/backoffice/audit-log', 'audit-log', 'יומן ביקורת'],
    ];
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
    ] as const) {
      // The sign-in page, signed out.
      const visitor = await browser.newPage(viewport);
      await visitor.goto(`${baseUrl}/backoffice/sign-in?lang=${language}`);
      await eventually(() => visitor.locator('html').getAttribute('dir')).toBe(
        language === 'he' ? 'rtl' : 'ltr',
      );
      await eventually(() => visitor.getByRole('heading', { level: 1 }).textContent()).toBe(
        language === 'he' ? 'כניסה לממשק הניהול' : 'Sign in to the backoffice',
      );
      expect(await pageWidth(visitor), `sign-in ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(visitor, `sign-in (${language}, ${device})`);
      await browser.screenshot(visitor, `backoffice-sign-in-${language}-${device}`);

      // Each signed-in page, with the session of the browser above.
      const page = await browser.newPage(viewport);
      await page.context().addCookies(cookies);
      for (const [path, name, hebrewTitle] of pages) {
        await page.goto(`${baseUrl}${path}?lang=${language}`);
        await waitForPath(page, path);
        await waitForLoaded(page);
        await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
        if (language === 'he') {
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(hebrewTitle);
          expect(await page.getByTestId('backoffice-name').textContent()).toContain('ממשק הניהול של Sigil');
        }
        expect(await pageWidth(page), `${name} ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
        await expectAccessible(page, `${name} (${language}, ${device})`);
        await browser.screenshot(page, `backoffice-${name}-${language}-${device}`);
        // On a phone the navigation is behind the menu button.
        if (device === 'phone' && name === 'overview') {
          expect(await page.locator('#backoffice-nav').isVisible()).toBe(false);
          await page.getByRole('button', { name: 'Menu' }).click();
          await eventually(() => page.locator('#backoffice-nav').isVisible()).toBe(true);
          expect(await page.locator('#backoffice-nav a').count()).toBe(10);
          expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
          await expectAccessible(page, `menu (${language}, ${device})`);
          await browser.screenshot(page, `backoffice-menu-${language}-${device}`);
        }
      }
    }
  }, 360_000);
});
