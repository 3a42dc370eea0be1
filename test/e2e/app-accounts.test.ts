// The business app's account pages (/app) in a real browser (Debian's Chromium driven by playwright-core)
// against a real Sigil app on a port: a signed-out visitor is sent to sign in; a new organization registers,
// verifies its email address with the link from the development capture, signs in, sets up two-step
// verification with the secret the page shows (codes computed with otpauth, as a phone app would), saves the
// backup codes, signs out and signs in again with a code — a wrong one refused first — and then with a backup
// code; new backup codes and turning it off need the password and a code. An organization that requires
// two-step verification sends a user without it to the set-up page, and nowhere else, until it is done. A
// forgotten password is reset with the emailed link. Every screen passes axe-core's WCAG 2.1 AA rules;
// screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ApiHarness } from '../support/api.ts';
import {
  emailedLink,
  eventually,
  expectAccessible,
  freshTotpCode,
  pathOf,
  signIn,
  signOut,
  submitSignIn,
  totpCode,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const PASSWORD = 'violet staple orbit lantern';

/** Sets up two-step verification on the page shown (profile or set-up page); returns the secret and codes. */
async function enrolTotp(
  page: Page,
  screenshot?: string,
): Promise<{ secret: string; backupCodes: string[] }> {
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secretText = page.getByTestId('totp-secret');
  await eventually(() => secretText.count()).toBe(1);
  const secret = ((await secretText.textContent()) ?? '').replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  // The QR code is an image of the server's SVG (a data: URL), not markup inserted into the page.
  const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
  await eventually(() =>
    qr.evaluate((image: { naturalWidth: number }) => image.naturalWidth),
  ).toBeGreaterThan(0);

  // A code in the wrong form is refused in the page; a wrong code by the server, beside the field.
  const code = page.getByLabel('Six-digit code');
  await code.fill('12345');
  await page.getByRole('button', { name: 'Turn on' }).click();
  await eventually(() => page.locator('#totp-code-error').textContent()).toContain('six digits');
  expect(await code.getAttribute('aria-invalid')).toBe('true');
  const wrong = String((Number(totpCode(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  await code.fill(wrong);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await eventually(() => page.locator('#totp-code-error').textContent()).toContain('does not match');
  await expectAccessible(page, 'enrolment');
  if (screenshot) await browser.screenshot(page, `${screenshot}-scan`);

  await code.fill(totpCode(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByTestId('backup-codes');
  await eventually(() => codes.count()).toBe(1);
  const backupCodes = (await codes.locator('li').allTextContents()).map((text) => text.trim());
  expect(backupCodes).toHaveLength(10);
  for (const backup of backupCodes) expect(backup).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
  expect(await codes.textContent()).toContain('shown only this once');
  // Focus moved to the codes' heading, and the download is a text file of them.
  expect(await page.evaluate('document.activeElement?.id')).toBe('backup-codes-title');
  const download = codes.getByRole('link', { name: 'Download' });
  expect(await download.getAttribute('download')).toBe('sigil-backup-codes.txt');
  expect(await download.getAttribute('href')).toMatch(/^blob:/);
  await expectAccessible(page, 'backup codes');
  if (screenshot) await browser.screenshot(page, `${screenshot}-backup-codes`);
  await codes.getByRole('button', { name: 'I have saved them' }).click();
  return { secret, backupCodes };
}

describe('the business app: registration, sign-in and two-step verification', () => {
  it('registers, verifies the email address, signs in, sets up two-step verification and signs in with a code and a backup code', async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const organization = `Acme ${randomUUID().slice(0, 6)}`;
    const page = await browser.newPage(DESKTOP);

    // A signed-out visitor of a signed-in page is sent to sign in, and comes back after.
    await page.goto(`${baseUrl}/app/profile`);
    await waitForPath(page, '/app/sign-in');
    expect(pathOf(page)).toBe('/app/sign-in?next=%2Fapp%2Fprofile');
    await expectAccessible(page, 'sign-in');
    await browser.screenshot(page, 'app-sign-in-en-desktop');

    await page.getByRole('link', { name: 'Create an organization' }).click();
    await waitForPath(page, '/app/sign-up');
    await expectAccessible(page, 'sign-up');
    // The password rules are shown; a short password is refused before anything is sent.
    expect(await page.locator('#sign-up-password-rules').textContent()).toContain('At least 10 characters');
    await page.getByLabel('Organization name').fill(organization);
    await page.getByLabel('Full name').fill('Dana Owner');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() => page.locator('#sign-up-password-error').textContent()).toContain('at least 10');
    expect(await page.evaluate('document.activeElement?.id')).toBe('sign-up-password');
    expect(await page.locator('#sign-up-error').textContent()).toContain('need your attention');
    await expectAccessible(page, 'sign-up with errors');
    await browser.screenshot(page, 'app-sign-up-en-desktop');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    await waitForPath(page, '/app/check-email');
    expect(await page.locator('.auth-card').textContent()).toContain(email);
    await expectAccessible(page, 'check your email');
    await page.getByRole('button', { name: 'Send the link again' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain('new link is on its way');

    // Signing in before verifying is refused with the server's message and a way to a new link.
    await submitSignIn(page, baseUrl, email, PASSWORD);
    await eventually(() => page.locator('#sign-in-error').textContent()).toContain(
      'Confirm your email address',
    );
    expect(await page.getByRole('link', { name: 'Send the verification link again' }).count()).toBe(1);

    await page.goto(await emailedLink(baseUrl, email, 'verify_email'));
    await eventually(() => page.locator('.auth-card').textContent()).toContain(
      'Your email address is verified',
    );
    await expectAccessible(page, 'email verified');
    // The same link again no longer works: the server's message is shown.
    await page.reload();
    await eventually(() => page.locator('#verify-email-error').textContent()).toContain(
      'could not be verified',
    );
    await page.getByRole('link', { name: 'Sign in' }).last().click();

    // A wrong password: the server's message, announced.
    await submitSignIn(page, baseUrl, email, 'not the password at all');
    await eventually(() => page.locator('#sign-in-error').textContent()).toContain(
      'Email or password is wrong',
    );
    await submitSignIn(page, baseUrl, email, PASSWORD);
    await waitForPath(page, '/app');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Welcome, Dana Owner');
    expect(await page.getByTestId('overview-organization').textContent()).toBe(organization);
    expect(await page.getByTestId('overview-role').textContent()).toBe('Owner');
    const nav = page.getByRole('navigation', { name: 'Business app' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Documents',
      'Templates',
      'Contacts',
      'Reports',
      'Integrations',
      'Your profile',
      'My stamps',
      'Users',
      'Roles',
      'Teams',
      'Settings',
      'Single sign-on',
      'Security log',
      'Billing',
    ]);
    await expectAccessible(page, 'overview');
    await browser.screenshot(page, 'app-overview-en-desktop');

    // Two-step verification from the profile.
    await nav.getByRole('link', { name: 'Your profile' }).click();
    await waitForPath(page, '/app/profile');
    expect(await page.getByTestId('mfa-status').textContent()).toContain('Off');
    await expectAccessible(page, 'profile');
    const { secret, backupCodes } = await enrolTotp(page, 'app-profile-en-desktop');
    await eventually(() => page.getByTestId('mfa-status').textContent()).toContain('On');
    expect(await page.locator('#two-step').textContent()).toContain('You have 10 backup codes left.');
    await browser.screenshot(page, 'app-profile-en-desktop');

    // Sign out, then sign in: the second step asks for a code.
    await signOut(page);
    await page.goto(`${baseUrl}/app`);
    await waitForPath(page, '/app/sign-in');
    await submitSignIn(page, baseUrl, email, PASSWORD);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Two-step verification',
    );
    expect(await page.evaluate('document.activeElement?.id')).toBe('sign-in-code');
    await expectAccessible(page, 'second step');
    await browser.screenshot(page, 'app-sign-in-code-en-desktop');
    const codeInput = page.getByLabel('Six-digit code');
    const wrong = String((Number(freshTotpCode(secret)) + 1) % 1_000_000).padStart(6, '0');
    await codeInput.fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() => page.locator('#sign-in-code-error').textContent()).toContain(
      'That code is not right',
    );
    expect(await codeInput.getAttribute('aria-invalid')).toBe('true');
    await codeInput.fill(freshTotpCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await waitForPath(page, '/app');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Welcome, Dana Owner');

    // Signed out again, a backup code works once instead of the app's code.
    await signOut(page);
    await submitSignIn(page, baseUrl, email, PASSWORD);
    await page.getByRole('button', { name: 'Use a backup code instead' }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('sign-in-backup');
    await page.getByLabel('Backup code').fill(backupCodes[0] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await waitForPath(page, '/app');
    await page.goto(`${baseUrl}/app/profile`);
    await eventually(() => page.locator('#two-step').textContent()).toContain(
      'You have 9 backup codes left.',
    );

    // New backup codes need the password and a code: a wrong password is refused with the server's message.
    await page.getByRole('button', { name: 'Make new backup codes' }).click();
    expect(await page.evaluate('document.activeElement?.id')).toBe('regenerate-password');
    await page.getByLabel('Your password').fill('wrong password here');
    await page.getByLabel('Code from your authenticator app, or a backup code').fill(freshTotpCode(secret));
    await page.getByRole('button', { name: 'Make new codes' }).click();
    await eventually(() => page.locator('#regenerate-error').textContent()).toContain(
      'The password or the code is not right',
    );
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByLabel('Code from your authenticator app, or a backup code').fill(backupCodes[1] ?? '');
    await page.getByRole('button', { name: 'Make new codes' }).click();
    await eventually(() => page.getByTestId('backup-codes').locator('li').count()).toBe(10);
    const renewed = await page.getByTestId('backup-codes').locator('li').allTextContents();
    expect(renewed.map((code) => code.trim())).not.toContain(backupCodes[2]);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await eventually(() => page.locator('#two-step').textContent()).toContain(
      'You have 10 backup codes left.',
    );

    // Turning it off needs the password and a current code.
    await page.getByRole('button', { name: 'Turn off two-step verification' }).click();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page
      .getByLabel('Code from your authenticator app, or a backup code')
      .fill(renewed[0]?.trim() ?? '');
    await page.getByRole('button', { name: 'Turn off', exact: true }).click();
    await eventually(() => page.getByTestId('mfa-status').textContent()).toContain('Off');
    expect(await page.locator('#two-step').textContent()).toContain('Two-step verification is off.');

    // The security log shows what happened, newest first.
    await page.goto(`${baseUrl}/app/admin/security-log`);
    const log = page.getByTestId('security-log');
    await eventually(() => log.locator('tbody tr').count()).toBeGreaterThan(5);
    const events = await log
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event')));
    expect(events[0]).toBe('user.mfa_disabled');
    expect(events).toEqual(
      expect.arrayContaining([
        'user.registered',
        'user.email_verified',
        'user.signed_in',
        'user.mfa_enabled',
        'user.mfa_failed',
        'user.backup_codes_regenerated',
      ]),
    );
    // Each event's details in words, never the raw keys: the first sign-in was with the password alone.
    expect(await log.locator('tr[data-event="user.signed_in"]').last().textContent()).toContain(
      'Signed in with a password',
    );
    const failures = await log.locator('tr[data-event="user.mfa_failed"]').allTextContents();
    expect(failures.join('\n')).toContain('A wrong code from the authenticator app');
    expect(failures.join('\n')).toContain('While signing in');
    expect(await log.textContent()).not.toMatch(/method:|backupCodes:|attemptsLeft:|organizationName:/);
    await expectAccessible(page, 'security log');
  });

  it('sends a user of an organization that requires two-step verification to set it up first, and nowhere else', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Noa Owner' });
    const member = await signedInUser(harness, {
      role: 'member',
      organizationId: owner.organization.id,
      fullName: 'Mor Member',
    });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);

    // The settings page: a value the server refuses shows its message beside the field.
    await page.goto(`${baseUrl}/app/admin/settings`);
    const timeout = page.getByLabel('Sign out after inactivity (minutes)');
    await eventually(() => timeout.inputValue()).toBe('60');
    await expectAccessible(page, 'settings');
    await timeout.fill('2');
    // A retention's refusal (the server names it `retention.completedDays`) shows beside its own field too.
    const completed = page.getByLabel('Completed documents (days)');
    await completed.fill('5000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-sessionTimeoutMinutes-error').textContent()).toContain(
      'at least 5',
    );
    expect(await timeout.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[id="settings-retention.completedDays-error"]').textContent()).toBe(
      'Enter at most 3650.',
    );
    expect(await completed.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe('settings-sessionTimeoutMinutes');
    await expectAccessible(page, 'settings with an error');
    await browser.screenshot(page, 'app-settings-error-en-desktop');
    await timeout.fill('30');
    await completed.fill('');
    await page.getByLabel('Require two-step verification for every user').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    // Saved; the owner, who has no second factor either, sets one up before anything else from this step on,
    // like every session of the organization (issue 30).
    await waitForPath(page, '/app/setup-mfa');
    expect(await page.locator('.app-notice').textContent()).toContain('Your organization requires');
    const [saved] = await harness.ctx.orm.em
      .fork()
      .execute<{ mfa_required: boolean }[]>('select mfa_required from organization where id = ?', [
        owner.organization.id,
      ]);
    expect(saved?.mfa_required).toBe(true);

    const phone = await browser.newPage(PHONE);
    await submitSignIn(phone, baseUrl, member.email, member.password);
    await waitForPath(phone, '/app/setup-mfa');
    expect(await phone.locator('.app-notice').textContent()).toContain('Your organization requires');
    // No navigation, and every other page leads back here.
    expect(await phone.getByRole('navigation', { name: 'Business app' }).count()).toBe(0);
    await phone.goto(`${baseUrl}/app/admin/users`);
    await waitForPath(phone, '/app/setup-mfa');
    await phone.goto(`${baseUrl}/app`);
    await waitForPath(phone, '/app/setup-mfa');
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'set-up page');
    await browser.screenshot(phone, 'app-setup-mfa-en-phone');
    await enrolTotp(phone, 'app-setup-mfa-en-phone');
    await waitForPath(phone, '/app');
    await eventually(() => phone.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Welcome, Mor Member',
    );
    // Now the app is open; turning it off is not offered (the organization requires it).
    await phone.goto(`${baseUrl}/app/profile`);
    await eventually(() => phone.getByTestId('mfa-status').textContent()).toContain('On');
    expect(await phone.getByRole('button', { name: 'Turn off two-step verification' }).count()).toBe(0);
    expect(await phone.locator('#two-step').textContent()).toContain('cannot be turned off');
  });

  it('resets a forgotten password with the emailed link, showing whose account it is', async () => {
    const user = await signedInUser(harness, { role: 'sender', fullName: 'Tal Sender' });
    const page = await browser.newPage(DESKTOP);
    await page.goto(`${baseUrl}/app/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await waitForPath(page, '/app/forgot-password');
    await page.getByLabel('Email address').fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await eventually(() => page.locator('#forgot-sent').textContent()).toContain('is on its way');
    await expectAccessible(page, 'forgot password');

    await page.goto(await emailedLink(baseUrl, user.email, 'reset_password'));
    await eventually(() => page.locator('.auth-card').textContent()).toContain('Tal Sender');
    expect(await page.locator('.auth-card').textContent()).toContain(user.email);
    await expectAccessible(page, 'reset password');
    await page.getByLabel('New password').fill('brand new lantern password');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await eventually(() => page.locator('#reset-done').textContent()).toContain('Your password is changed');
    await page.getByRole('link', { name: 'Sign in' }).last().click();
    await signIn(page, baseUrl, user.email, 'brand new lantern password');

    // A link that was used says so, with the server's message.
    await page.goto(await emailedLink(baseUrl, user.email, 'reset_password'));
    await eventually(() => page.locator('#reset-error').textContent()).toContain('This link no longer works');
  });
});
