// Passkeys in the business app (/app) in a real browser (Debian's Chromium driven by playwright-core) with a
// virtual authenticator of the DevTools protocol, against a real Sigil app at http://localhost:<port> whose
// PUBLIC_BASE_URL is that origin (the WebAuthn relying party): a user adds a passkey on the profile page (a name
// is required; the first passkey shows the backup codes; the same authenticator twice is refused by the
// browser, and the page says so), the users list shows two-step verification on, the user signs out and in
// with the password and then "Use a passkey" — after a device without the passkey (cancelled) and a passkey the
// server refuses (not recognised) — and removes it with the password and a backup code. A user whose
// organization requires two-step verification sets it up with a passkey on the set-up page, in Hebrew on a
// 375-pixel phone, cannot remove the last one, and signs in with it. Every screen passes axe-core's WCAG 2.1
// AA rules; screenshots go to test/artifacts/web/ (app-*-passkey-<en|he>-<desktop|phone>.png).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser, Organization, Passkey } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signIn,
  signOut,
  submitSignIn,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { addVirtualAuthenticator } from '../support/virtual-authenticator.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened), { localhost: true });

const focusedId = (page: Page) => page.evaluate('document.activeElement?.id');

/** The ten backup codes shown, once they are. */
async function shownBackupCodes(page: Page): Promise<string[]> {
  const codes = page.getByTestId('backup-codes');
  await eventually(() => codes.locator('li').count()).toBe(10);
  return (await codes.locator('li').allTextContents()).map((code) => code.trim());
}

/** The sign-in form in any language: by its fields' ids. */
async function submitPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.locator('#sign-in-email').fill(email);
  await page.locator('#sign-in-password').fill(password);
  await page.locator('form button[type="submit"]').click();
}

describe('passkeys in the business app', () => {
  it('adds a passkey on the profile, signs in with the password and the passkey, and removes it', async () => {
    const user = await signedInUser(harness, { role: 'owner', fullName: 'Pia Passkey' });
    const page = await browser.newPage(DESKTOP);
    const authenticator = await addVirtualAuthenticator(page);
    await signIn(page, baseUrl, user.email, user.password);

    await page.goto(`${baseUrl}/app/profile`);
    const passkeys = page.getByTestId('passkeys');
    await eventually(() => passkeys.textContent()).toContain('You have no passkeys yet.');
    expect(await page.getByTestId('mfa-status').textContent()).toContain('Off');
    // Both ways are offered while two-step verification is off.
    expect(await page.getByRole('button', { name: 'Set up an authenticator app' }).count()).toBe(1);

    // A passkey needs a name, checked in the page.
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await eventually(() => page.locator('#add-passkey-name-error').textContent()).toContain(
      'Give the passkey a name',
    );
    expect(await focusedId(page)).toBe('add-passkey-name');
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();

    // The first second factor: the backup codes, shown once, as for an app.
    const backupCodes = await shownBackupCodes(page);
    expect(await authenticator.credentials()).toHaveLength(1);
    expect(await page.locator('#two-step .app-success').textContent()).toContain(
      'Two-step verification is on.',
    );
    await expectAccessible(page, 'profile: backup codes of the first passkey');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await eventually(() => page.getByTestId('mfa-status').textContent()).toContain('On');
    expect(await page.locator('#two-step').textContent()).toContain(
      'Signing in asks for one of your passkeys.',
    );
    expect(await page.locator('#two-step').textContent()).toContain('You have 10 backup codes left.');
    const row = passkeys.locator('tbody tr[data-passkey="Work laptop"]');
    await eventually(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('Not used yet');

    // The same authenticator again: the browser refuses it (the options exclude it), and the page says why.
    await page.getByLabel('Name of the new passkey').fill('Same laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await eventually(() => page.locator('#add-passkey-error').textContent()).toContain(
      'already holds one of your passkeys',
    );
    expect(await passkeys.locator('tbody tr').count()).toBe(1);
    await expectAccessible(page, 'profile with a passkey');
    await browser.screenshot(page, 'app-profile-passkey-en-desktop');

    // The users list counts a passkey as two-step verification.
    await page.goto(`${baseUrl}/app/admin/users`);
    const userRow = page.locator(`tr[data-user="${user.email}"]`);
    await eventually(() => userRow.count()).toBe(1);
    expect(await userRow.locator('td[data-label="Two-step verification"]').textContent()).toContain('On');

    // Signed out, the password is not enough: the second step offers the passkey first (no app), and a backup
    // code.
    await signOut(page);
    await submitSignIn(page, baseUrl, user.email, user.password);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Two-step verification',
    );
    expect(await focusedId(page)).toBe('sign-in-passkey');
    expect(await page.getByLabel('Backup code').count()).toBe(1);
    expect(await page.getByLabel('Six-digit code').count()).toBe(0);
    await expectAccessible(page, 'second step with a passkey');
    await browser.screenshot(page, 'app-sign-in-passkey-en-desktop');
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });

    // A device without the passkey: the browser gives up, and the page says so.
    const held = await authenticator.takeCredentials();
    await usePasskey.click();
    await eventually(() => page.locator('#sign-in-passkey-error').textContent()).toContain(
      'No passkey was used',
    );
    expect(await usePasskey.getAttribute('aria-describedby')).toBe('sign-in-passkey-error');
    await authenticator.giveCredentials(held);

    // A passkey the server refuses (a signature counter behind the stored one: a cloned authenticator).
    await harness.ctx.em.nativeUpdate(Passkey, { userId: user.user.id }, { counter: 1_000_000 });
    await usePasskey.click();
    await eventually(() => page.locator('#sign-in-passkey-error').textContent()).toContain(
      'That passkey was not recognised',
    );
    await expectAccessible(page, 'second step with a refused passkey');
    await browser.screenshot(page, 'app-sign-in-passkey-refused-en-desktop');
    await harness.ctx.em.nativeUpdate(Passkey, { userId: user.user.id }, { counter: 0 });

    await usePasskey.click();
    await waitForPath(page, '/app');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Welcome, Pia Passkey',
    );

    // Removing it needs the password and, without an app, a backup code.
    await page.goto(`${baseUrl}/app/profile`);
    await eventually(() => row.count()).toBe(1);
    expect(await row.textContent()).not.toContain('Not used yet');
    await page.getByRole('button', { name: 'Remove: Work laptop' }).click();
    expect(await focusedId(page)).toBe('remove-passkey-password');
    expect(await passkeys.textContent()).toContain('It is your only second step');
    await page.getByLabel('Your password').fill(user.password);
    const code = page.getByLabel('One of your backup codes');
    await code.fill('123456');
    await page.getByRole('button', { name: 'Remove the passkey' }).click();
    await eventually(() => page.locator('#remove-passkey-code-error').textContent()).toContain(
      'Enter a backup code',
    );
    await expectAccessible(page, 'removing a passkey');
    await browser.screenshot(page, 'app-profile-passkey-remove-en-desktop');
    await code.fill(backupCodes[0] ?? '');
    await page.getByRole('button', { name: 'Remove the passkey' }).click();
    await eventually(() => page.locator('#two-step .app-success').textContent()).toBe(
      'The passkey “Work laptop” is removed.',
    );
    expect(await focusedId(page)).toBe('two-step-title');
    await eventually(() => page.getByTestId('mfa-status').textContent()).toContain('Off');
    expect(await passkeys.textContent()).toContain('You have no passkeys yet.');
    expect(await harness.ctx.em.count(Passkey, { userId: user.user.id })).toBe(0);

    // The password alone signs in again.
    await signOut(page);
    await signIn(page, baseUrl, user.email, user.password);
  });

  it('sets up required two-step verification with a passkey, in Hebrew on a phone, and keeps the last one', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    await harness.ctx.em.nativeUpdate(Organization, { id: owner.organization.id }, { mfaRequired: true });
    const member = await signedInUser(harness, {
      role: 'member',
      organizationId: owner.organization.id,
      fullName: 'נועה לוי',
    });
    await harness.ctx.em.nativeUpdate(AppUser, { id: member.user.id }, { language: 'he' });
    const phone = await browser.newPage(PHONE, 'he-IL');
    await addVirtualAuthenticator(phone);

    await submitPassword(phone, member.email, member.password);
    await waitForPath(phone, '/app/setup-mfa');
    expect(await phone.evaluate('document.documentElement.dir')).toBe('rtl');
    // Either way will do: an authenticator app or a passkey.
    await eventually(() => phone.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'אפליקציית אימות',
      'מפתח גישה',
    ]);
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'set-up page (Hebrew)');
    await browser.screenshot(phone, 'app-setup-mfa-passkey-he-phone');

    await phone.getByLabel('שם מפתח הגישה החדש').fill('הטלפון שלי');
    await phone.getByRole('button', { name: 'הוספת מפתח גישה' }).click();
    await shownBackupCodes(phone);
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await browser.screenshot(phone, 'app-setup-mfa-passkey-codes-he-phone');
    await phone.getByRole('button', { name: 'שמרתי אותם' }).click();
    await waitForPath(phone, '/app');
    await eventually(() => phone.getByRole('heading', { level: 1 }).textContent()).toBe('שלום, נועה לוי');

    // The profile lists it; as the last second factor of an organization that requires one, it stays.
    await phone.goto(`${baseUrl}/app/profile`);
    const passkeys = phone.getByTestId('passkeys');
    await eventually(() => passkeys.locator('tbody tr[data-passkey="הטלפון שלי"]').count()).toBe(1);
    expect(await passkeys.getByRole('button', { name: /^הסרה/ }).count()).toBe(0);
    expect(await passkeys.textContent()).toContain('הארגון שלך מחייב אימות דו-שלבי');
    expect(await phone.getByRole('button', { name: 'כיבוי אימות דו-שלבי' }).count()).toBe(0);
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'profile with a passkey (Hebrew)');
    await browser.screenshot(phone, 'app-profile-passkey-he-phone');

    // The next sign-in asks for it, in Hebrew.
    await signOut(phone);
    await submitPassword(phone, member.email, member.password);
    const usePasskey = phone.getByRole('button', { name: 'שימוש במפתח גישה' });
    await eventually(() => usePasskey.count()).toBe(1);
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'second step with a passkey (Hebrew)');
    await browser.screenshot(phone, 'app-sign-in-passkey-he-phone');
    await usePasskey.click();
    await waitForPath(phone, '/app');
    await eventually(() => phone.getByRole('heading', { level: 1 }).textContent()).toBe('שלום, נועה לוי');
  });
});
