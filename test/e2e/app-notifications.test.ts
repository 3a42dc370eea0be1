// Sender notifications in the business app (docs/notifications.md, "Sender notifications"), in a real browser
// against a real app: a sender whose envelopes were completed and declined sees the unread count on the shell's
// bell, opens the list (the decline's reason shown), follows one to its document page — the count goes down —
// and marks the rest read; the profile's "Notification emails" saves a kind switched off and the daily digest.
// English on a desktop, Hebrew (right to left) on a 375-pixel phone, axe-core's WCAG 2.1 AA rules on every
// screen; screenshots in test/artifacts/web/ (app-notifications-*.png).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { completedDocument, documentFixture, documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => {
  ({ harness, browser, baseUrl } = opened);
});

/** A sender with a completed envelope and a declined one (in that order), each told of. */
async function senderWithNews(
  fullName: string,
): Promise<{ user: SignedInUser; completed: string; declined: string }> {
  const user = await signedInUser(harness, { role: 'sender', fullName });
  const organizationId = user.organization.id;
  const templateId = await documentTemplate(harness.ctx, organizationId);
  const sender = { userId: user.user.id, teamId: null };
  const completed = await completedDocument(harness.ctx, organizationId, templateId, {
    title: 'Services agreement',
    sender,
  });
  const declined = await documentFixture(harness.ctx, organizationId, templateId, {
    title: 'Price quote',
    sender,
    send: true,
  });
  await declineRecipient(harness.ctx, organizationId, declined.id, declined.recipientIds[0] as string, {
    reason: 'The price is wrong',
  });
  await eventually(
    async () => (await findEnvelope(harness.ctx, organizationId, declined.id)).envelope.status,
  ).toBe('Declined');
  await eventually(
    async () => (await callAs(baseUrl, user, 'GET', '/api/me/notifications')).unreadCount as number,
  ).toBe(2);
  return { user, completed: completed.id, declined: declined.id };
}

const bell = (page: Page) => page.getByTestId('notification-bell');
const count = (page: Page) => page.getByTestId('notification-count');

describe('the notification bell', () => {
  it('shows the unread count, the list, and the count going down as they are read (English, desktop)', async () => {
    const { user, completed, declined } = await senderWithNews('Dana Sender');
    const page = await signedInPage(browser, baseUrl, user, DESKTOP, 'en');
    await eventually(() => count(page).textContent()).toContain('2 unread');

    const toggle = bell(page).getByRole('button', { name: /^Notifications/ });
    await toggle.click();
    const panel = page.getByRole('region', { name: 'Notifications' });
    await eventually(() => panel.getByRole('link').count()).toBe(2);
    const links = panel.getByRole('link');
    // Newest first: the decline, with its reason.
    expect(await links.nth(0).textContent()).toContain('Price quote');
    expect(await links.nth(0).textContent()).toContain('The price is wrong');
    expect(await links.nth(1).textContent()).toContain('Services agreement');
    await expectAccessible(page, 'notification list, English');
    await browser.screenshot(page, 'app-notifications-list-en-desktop');

    await links.nth(1).click();
    await waitForPath(page, `/app/documents/${completed}`);
    await eventually(() => count(page).textContent()).toContain('1 unread');

    await toggle.click();
    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await eventually(() => count(page).count()).toBe(0);
    const after = await callAs(baseUrl, user, 'GET', '/api/me/notifications');
    expect(after.unreadCount).toBe(0);
    expect(after.notifications.map((item: { envelope: { id: string } }) => item.envelope.id)).toEqual([
      declined,
      completed,
    ]);
    // Escape closes the list, the focus back on the bell.
    await page.keyboard.press('Escape');
    await eventually(() => panel.count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-controls")')).toBe(
      'notification-panel',
    );
    await page.close();
  });

  it('the profile saves which notifications are emailed and the daily digest', async () => {
    const user = await signedInUser(harness, { role: 'member', fullName: 'Noa Member' });
    const page = await signedInPage(browser, baseUrl, user, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/profile`);
    const section = page.getByRole('region', { name: 'Notification emails' });
    await eventually(() => section.getByRole('checkbox').count()).toBe(7);
    expect(await section.getByRole('checkbox', { name: 'Declined' }).isChecked()).toBe(true);
    await section.getByRole('checkbox', { name: 'Declined' }).uncheck();
    await section.getByRole('checkbox', { name: 'One daily summary instead of an email each' }).check();
    await section.getByRole('button', { name: 'Save' }).click();
    await eventually(() => section.getByRole('status').textContent()).toBe(
      'Your notification emails are saved.',
    );
    await expectAccessible(page, 'profile, notification emails');
    await browser.screenshot(page, 'app-notifications-profile-en-desktop');
    expect(await callAs(baseUrl, user, 'GET', '/api/me/notification-preferences')).toEqual({
      email: {
        completed: true,
        declined: false,
        cancelled: true,
        expired: true,
        expiring_soon: true,
        delivery_failed: true,
      },
      dailyDigest: true,
    });
    await page.close();
  });

  it('the settings page chooses which administrators are told (settings:manage)', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olga Owner' });
    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/admin/settings`);
    const section = page.getByRole('region', { name: 'Notifications to administrators' });
    await eventually(() => section.getByRole('radio', { name: 'Nobody else' }).isChecked()).toBe(true);
    await section.getByRole('radio', { name: 'The administrators of the document’s team' }).check();
    await section.getByRole('button', { name: 'Save' }).click();
    await eventually(() => section.getByRole('status').textContent()).toBe(
      'Saved: who is told of documents.',
    );
    await section.scrollIntoViewIfNeeded();
    await expectAccessible(page, 'settings, notifications to administrators');
    await browser.screenshot(page, 'app-notifications-settings-en-desktop');
    expect(await callAs(baseUrl, owner, 'GET', '/api/organization/notification-settings')).toEqual({
      notifyAdministrators: 'team',
    });
    await page.close();
  });

  it('in Hebrew on a 375-pixel phone', async () => {
    const { user } = await senderWithNews('דנה שולחת');
    const page = await signedInPage(browser, baseUrl, user, PHONE, 'he');
    await eventually(() => count(page).textContent()).toContain('2');
    await bell(page)
      .getByRole('button', { name: /^התראות/ })
      .click();
    const panel = page.getByRole('region', { name: 'התראות' });
    await eventually(() => panel.getByRole('link').count()).toBe(2);
    expect(await panel.getByRole('link').nth(0).textContent()).toContain('נדחה');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'notification list, Hebrew, phone');
    await browser.screenshot(page, 'app-notifications-list-he-phone');
    await page.goto(`${baseUrl}/app/profile`);
    await eventually(() =>
      page.getByRole('region', { name: 'התראות בדוא"ל' }).getByRole('checkbox').count(),
    ).toBe(7);
    await page.getByRole('region', { name: 'התראות בדוא"ל' }).scrollIntoViewIfNeeded();
    await expectAccessible(page, 'profile, Hebrew, phone');
    await browser.screenshot(page, 'app-notifications-profile-he-phone');
    await page.close();
  });
});
