// Reminder and deadline settings in a real browser against a real Sigil app and Temporal worker
// (docs/envelope-lifecycle.md, "Reminders and deadline warnings"): the send page starts from the organization's
// defaults, a sender sets automatic reminders and the "expiring soon" warning, sends, and sees them on the
// envelope's page; there they change them while the envelope is open (the workflow's Update), a refused value is
// said beside its field, and the page shows the change and its timeline event. The page in Hebrew on a 375-pixel
// phone; axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { describe, expect, it } from 'vitest';
import { Envelope } from '../../db/entities/index.ts';
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
import { documentTemplate } from '../support/documents.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

describe('the business app: reminders and deadline', () => {
  it("the organization's defaults on the settings page: shown, saved, refused out of bounds beside the field", async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    await callAs(baseUrl, owner, 'PUT', '/api/auth/me/preferences', { language: 'en' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await page.goto(`${baseUrl}/app/admin/settings`);
    await waitForLoaded(page);
    const interval = page.getByLabel('Automatic reminder every (days)');
    await eventually(() => interval.count()).toBe(1);
    expect(await interval.inputValue()).toBe('');
    expect(await page.getByLabel('At most (reminders)').inputValue()).toBe('3');
    expect(await page.getByLabel('Extension after expiry (days)').inputValue()).toBe('30');
    await interval.fill('2');
    await page.getByLabel('Warn recipients before the deadline (days)').fill('400');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-expiringSoonDays-error').textContent()).toMatch(/365/);
    await browser.screenshot(page, 'app-settings-deadlines-refused-en-desktop');
    await page.getByLabel('Warn recipients before the deadline (days)').fill('3');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-saved').textContent()).toContain(
      'The settings are saved.',
    );
    expect(await callAs(baseUrl, owner, 'GET', '/api/organization/settings')).toMatchObject({
      reminderIntervalDays: 2,
      expiringSoonDays: 3,
    });
    await expectAccessible(page, 'settings with reminders and deadlines');
    await browser.screenshot(page, 'app-settings-deadlines-en-desktop');

    await callAs(baseUrl, owner, 'PUT', '/api/auth/me/preferences', { language: 'he' });
    const phone = await browser.newPage(PHONE);
    await signIn(phone, baseUrl, owner.email, owner.password);
    await phone.goto(`${baseUrl}/app/admin/settings`);
    await waitForLoaded(phone);
    const hebrew = phone.getByLabel('התראה לנמענים לפני המועד האחרון (ימים)');
    await eventually(() => hebrew.inputValue()).toBe('3');
    await hebrew.scrollIntoViewIfNeeded();
    expect(await pageWidth(phone)).toBeLessThanOrEqual(375);
    await expectAccessible(phone, 'settings in Hebrew on a phone');
    await browser.screenshot(phone, 'app-settings-deadlines-he-phone');
  });

  it('sets reminders on the send page, sees them on the envelope page and changes them while it is open', async () => {
    const sender = await signedInUser(harness, { role: 'owner', fullName: 'Avi Sender' });
    await callAs(baseUrl, sender, 'PUT', '/api/auth/me/preferences', { language: 'en' });
    // The organization's defaults: a warning 2 days before the deadline.
    await callAs(baseUrl, sender, 'PUT', '/api/organization/settings', { expiringSoonDays: 2 });
    const templateId = await documentTemplate(harness.ctx, sender.organization.id);

    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}/app/send?template=${templateId}`);
    await waitForPath(page, '/app/send');
    await waitForLoaded(page);
    await eventually(() => page.locator('#send-template').inputValue()).toBe(templateId);
    await page.getByRole('combobox', { name: 'Name (Client)' }).fill('Dana Levi');
    await page.getByTestId('recipient-Client').getByLabel('Email address').fill('dana@example.com');
    await page.getByRole('combobox', { name: 'Name (Provider)' }).fill('Sam Cohen');
    await page.getByTestId('recipient-Provider').getByLabel('Email address').fill('sam@example.com');

    // The four start from the organization's settings.
    expect(await page.locator('#send-reminderIntervalDays').inputValue()).toBe('');
    expect(await page.locator('#send-maxAutomaticReminders').inputValue()).toBe('3');
    expect(await page.locator('#send-expiringSoonDays').inputValue()).toBe('2');
    expect(await page.locator('#send-expiredExtensionGraceDays').inputValue()).toBe('30');
    await page.locator('#send-reminderIntervalDays').fill('3');
    await page.locator('#send-maxAutomaticReminders').fill('2');
    await page.locator('#send-expiringSoonDays').fill('4');
    await expectAccessible(page, 'send page with reminders');
    await browser.screenshot(page, 'app-send-reminders-en-desktop');

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await waitForPath(page, /^\/app\/documents\/[0-9a-f-]{36}$/);
    const envelopeId = new URL(page.url()).pathname.split('/').pop() as string;
    await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
    await eventually(() => page.getByTestId('settings-reminders').textContent()).toContain(
      'Every 3 days, at most 2',
    );
    expect(await page.getByTestId('settings-expiring-soon').textContent()).toContain('4 days before');
    expect(await page.getByTestId('settings-grace').textContent()).toContain('Within 30 days');
    // The workflow's live view: when the warning goes out, four days before the deadline.
    await eventually(() => page.getByTestId('expiry-warning').count(), 30_000).toBe(1);
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
    expect(row.deadlineSettings).toEqual({
      reminderIntervalDays: 3,
      maxAutomaticReminders: 2,
      expiringSoonDays: 4,
      expiredExtensionGraceDays: 30,
    });

    // Changed while it is open: a refused value beside its field, then the change and its timeline event.
    await page.getByRole('button', { name: 'Change reminders' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reminders and deadline' });
    await eventually(() => dialog.count()).toBe(1);
    await dialog.getByLabel('At most (reminders)').fill('60');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() =>
      dialog.locator('#deadline-settings-maxAutomaticReminders-error').textContent(),
    ).toMatch(/50/);
    await expectAccessible(page, 'envelope settings dialog, refused');
    await browser.screenshot(page, 'app-document-settings-refused-en-desktop');
    await dialog.getByLabel('At most (reminders)').fill('5');
    await dialog.getByLabel('Automatic reminder every (days)').fill('7');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.getByTestId('settings-reminders').textContent()).toContain(
      'Every 7 days, at most 5',
    );
    await eventually(() =>
      page.getByText('The reminder and deadline settings were changed', { exact: true }).count(),
    ).toBeGreaterThan(0);
    await expectAccessible(page, 'envelope page with changed settings');
    await browser.screenshot(page, 'app-document-settings-en-desktop');

    // In Hebrew, right to left, on a phone.
    await callAs(baseUrl, sender, 'PUT', '/api/auth/me/preferences', { language: 'he' });
    const phone = await browser.newPage(PHONE);
    await signIn(phone, baseUrl, sender.email, sender.password);
    await phone.goto(`${baseUrl}/app/documents/${envelopeId}`);
    await waitForLoaded(phone);
    await eventually(() => phone.getByTestId('settings-reminders').textContent()).toContain('כל 7 ימים');
    expect(await phone.evaluate('document.documentElement.dir')).toBe('rtl');
    expect(await pageWidth(phone)).toBeLessThanOrEqual(375);
    await expectAccessible(phone, 'envelope page in Hebrew on a phone');
    await browser.screenshot(phone, 'app-document-settings-he-phone');
    await phone.goto(`${baseUrl}/app/send?template=${templateId}`);
    await waitForLoaded(phone);
    await eventually(() => phone.locator('#send-expiringSoonDays').count()).toBe(1);
    await phone.locator('#send-expiringSoonDays').scrollIntoViewIfNeeded();
    expect(await pageWidth(phone)).toBeLessThanOrEqual(375);
    await browser.screenshot(phone, 'app-send-reminders-he-phone');
  });
});
