// The profile's account basics in a real browser (Debian's Chromium driven by playwright-core) against a real
// Sigil app on a port (docs/accounts.md, "Your account"): the name and phone (a number not in international
// form refused beside its field), the password (a wrong current one refused beside it, in English and in
// Hebrew; the change signs out the user's other browser but not this one), and the email address, changed
// through the real link of the email captured for the new address and shown on the profile afterwards. Every
// screen passes axe-core's WCAG 2.1 AA rules; screenshots (English, Hebrew, a 375 px phone) go to
// test/artifacts/web/.
import { describe, expect, it } from 'vitest';
import type { ApiHarness } from '../support/api.ts';
import {
  emailedLink,
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
  waitForLoaded,
} from '../support/app-pages.ts';
import { asUser } from '../support/app-requests.ts';
import { newEmail } from '../support/auth-http.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { newSession, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const NEW_PASSWORD = 'lantern orbit violet staple';

describe('the profile’s account basics', () => {
  it('changes the name and phone, the password and, through the emailed link, the address (English)', async () => {
    const user = await signedInUser(harness, {
      role: 'member',
      email: newEmail('profile'),
      fullName: 'Dana Levi',
    });
    const page = await signedInPage(browser, baseUrl, user, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/profile`);
    await waitForLoaded(page);

    // Name and phone: a local number is refused beside the phone, in the page's words; then saved.
    await page.locator('#identity-fullName').fill('Dana Levi-Cohen');
    await page.locator('#identity-phone').fill('050-1234567');
    await page.getByRole('button', { name: 'Save name and phone' }).click();
    await eventually(() => page.locator('#identity-phone-error').textContent()).toContain(
      'international form',
    );
    await page.locator('#identity-phone').fill('+972 50-123-4567');
    await page.getByRole('button', { name: 'Save name and phone' }).click();
    await eventually(() =>
      page.locator('section[aria-labelledby="identity-title"] [role="status"]').textContent(),
    ).toBe('Saved.');
    const me = (await (
      await asUser(baseUrl, { headers: { cookie: user.cookie } }, 'GET', '/api/auth/me')
    ).json()) as { user: unknown };
    expect(me.user).toMatchObject({ fullName: 'Dana Levi-Cohen', phone: '+972501234567' });

    // Password: the server refuses a wrong current password beside that field.
    const other = await newSession(harness, user.user);
    await page.locator('#password-currentPassword').fill('not my password at all');
    await page.locator('#password-newPassword').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await eventually(() => page.locator('#password-currentPassword-error').textContent()).toBe(
      'The current password is wrong.',
    );
    expect(await page.locator('#password-currentPassword').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'profile, a wrong current password');
    await browser.screenshot(page, 'app-profile-account-password-refused');
    await page.locator('#password-currentPassword').fill(user.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await eventually(() => page.getByText('Your password was changed.').count()).toBe(1);
    // The user's other sessions are signed out (another browser's, and the one the test made the user with);
    // this browser's is not: the profile loads again.
    expect((await asUser(baseUrl, { headers: other }, 'GET', '/api/auth/me')).status).toBe(401);
    expect((await asUser(baseUrl, { headers: { cookie: user.cookie } }, 'GET', '/api/auth/me')).status).toBe(
      401,
    );
    await page.reload();
    await waitForLoaded(page);
    await eventually(() => page.locator('#password-title').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/app/profile');

    // Email: the link goes to the new address; the profile still shows the old one until it is opened.
    const target = newEmail('moved');
    await page.locator('#email-change-newEmail').fill(target);
    await page.locator('#email-change-currentPassword').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Send the confirmation link' }).click();
    await eventually(() => page.getByText(`If ${target} can be used`).count()).toBe(1);
    expect(await page.locator('section[aria-labelledby="email-change-title"]').textContent()).toContain(
      `You sign in with ${user.email}`,
    );
    await expectAccessible(page, 'profile, the email link sent');
    await browser.screenshot(page, 'app-profile-account-en');

    await page.goto(await emailedLink(baseUrl, target, 'email_change'));
    await eventually(() => page.locator('#confirm-email-change-done').textContent()).toContain(
      `Your email address is now ${target}`,
    );
    await expectAccessible(page, 'the email change confirmed');
    await browser.screenshot(page, 'app-profile-account-confirmed');
    await page.goto(`${baseUrl}/app/profile`);
    await waitForLoaded(page);
    await eventually(() =>
      page.locator('section[aria-labelledby="email-change-title"]').textContent(),
    ).toContain(`You sign in with ${target}`);
    await page.close();
  });

  it('says a refusal beside its field in Hebrew on a phone', async () => {
    const user = await signedInUser(harness, {
      role: 'member',
      email: newEmail('profile-he'),
      fullName: 'דנה לוי',
    });
    const page = await signedInPage(browser, baseUrl, user, PHONE, 'he');
    await page.goto(`${baseUrl}/app/profile`);
    await waitForLoaded(page);
    await page.locator('#password-currentPassword').fill('not my password at all');
    await page.locator('#password-newPassword').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'שינוי הסיסמה' }).click();
    await eventually(() => page.locator('#password-currentPassword-error').textContent()).toBe(
      'הסיסמה הנוכחית שגויה.',
    );
    await page.locator('#email-change-newEmail').fill(user.email.toUpperCase());
    await page.locator('#email-change-currentPassword').fill(user.password);
    await page.getByRole('button', { name: 'שליחת קישור לאישור' }).click();
    await eventually(() => page.locator('#email-change-newEmail-error').textContent()).toBe(
      'זו כבר כתובת הדוא"ל שלך.',
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'profile in Hebrew on a phone');
    await page.locator('#password-title').scrollIntoViewIfNeeded();
    await browser.screenshot(page, 'app-profile-account-he-phone');
    await page.close();
  });
});
