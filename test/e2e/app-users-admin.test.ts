// The users page's search, filters, order and pages, and an administrator's two actions on a user, in a real
// browser against a real Sigil app (docs/administration.md, "The users list", "Resetting two-step
// verification"): 120 users in three pages kept in the address, a search and a status filter that narrow them,
// an invitation resent and a user's two-step verification reset, each after its confirmation (the emails
// captured, the user's second factors gone). English, Hebrew (right to left) and a 375 px phone; every screen
// passes axe-core's WCAG 2.1 AA rules; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser, MfaBackupCode } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  pathOf,
  signedInPage,
  useAppBrowser,
  waitForLoaded,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { captured } from '../support/dev-notifications.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const em = () => harness.ctx.orm.em.fork();
const rows = (page: Page) => page.locator('tr[data-user]');

/** `count` active users of the owner's organization named `Person 000`… (written directly: a page's worth). */
async function manyUsers(owner: SignedInUser, count: number): Promise<void> {
  const fork = em();
  for (let index = 0; index < count; index += 1) {
    fork.create(AppUser, {
      id: randomUUID(),
      organizationId: owner.organization.id,
      email: `person-${index}-${randomUUID().slice(0, 6)}@example.com`,
      fullName: `Person ${String(index).padStart(3, '0')}`,
      passwordHash: null,
      status: 'active',
      emailVerifiedAt: new Date(),
      roleId: owner.role.id,
      teamId: null,
      language: 'en',
      totpSecretEncrypted: null,
      totpPendingSecretEncrypted: null,
      totpEnabledAt: null,
      invitedAt: null,
      invitedBy: null,
      lastLoginAt: null,
      deletedAt: null,
    });
  }
  await fork.flush();
}

async function openUsers(page: Page, query = ''): Promise<void> {
  await page.goto(`${baseUrl}/app/admin/users${query}`);
  await eventually(() => page.getByTestId('users').count()).toBe(1);
  await waitForLoaded(page);
}

describe('the users page: search, filters, pages and the administrator’s actions', () => {
  it('pages, searches and filters through the address, resends an invitation and resets two-step verification', async () => {
    const owner = await signedInUser(harness, { role: 'owner', plan: 'Enterprise', fullName: 'Avi Owner' });
    await manyUsers(owner, 118);
    const dana = await signedInUser(harness, {
      role: 'sender',
      organizationId: owner.organization.id,
      fullName: 'Dana Levi',
    });
    await em().nativeUpdate(
      AppUser,
      { id: dana.user.id },
      { totpEnabledAt: new Date(), totpSecretEncrypted: 'v1:x' },
    );
    const fork = em();
    fork.create(MfaBackupCode, { id: randomUUID(), userId: dana.user.id, codeHash: 'hash', usedAt: null });
    await fork.flush();
    const invitedEmail = `noa-${randomUUID().slice(0, 6)}@example.com`;
    await callAs(baseUrl, owner, 'POST', '/api/users/invite', {
      fullName: 'Noa Invited',
      email: invitedEmail,
      roleId: dana.role.id,
    });

    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await openUsers(page);
    // 121 users: three pages of 50, by name.
    await eventually(() => page.getByTestId('users-summary').textContent()).toContain(
      '121 users · page 1 of 3',
    );
    expect(await rows(page).count()).toBe(50);
    await expectAccessible(page, 'users page 1');
    await browser.screenshot(page, 'app-users-admin-list-en-desktop');
    await page
      .getByRole('navigation', { name: 'Pages of users' })
      .getByRole('link', { name: 'Next page' })
      .click();
    await eventually(async () => pathOf(page)).toBe('/app/admin/users?page=2');
    await eventually(() => page.getByTestId('users-summary').textContent()).toContain('page 2 of 3');
    await page.getByRole('link', { name: 'Next page' }).click();
    await eventually(() => rows(page).count()).toBe(21);

    // A search goes to the address and back to page 1.
    await page.getByLabel('Search users').fill('levi');
    await page.getByLabel('Search users').press('Enter');
    await eventually(async () => pathOf(page)).toBe('/app/admin/users?search=levi');
    await eventually(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute('data-user')).toBe(dana.email);
    await page.getByLabel('Search users').fill('');
    await page.getByLabel('Search users').press('Enter');
    await page.getByLabel('Status').selectOption('invited');
    await eventually(async () => pathOf(page)).toBe('/app/admin/users?status=invited');
    await eventually(() => rows(page).count()).toBe(1);

    // Resend the invitation, after its confirmation.
    await rows(page).first().getByRole('button', { name: 'Resend invitation' }).click();
    const resend = page.getByRole('dialog', { name: 'Send the invitation again?' });
    await eventually(() => resend.textContent()).toContain(invitedEmail);
    await expectAccessible(page, 'resend confirmation');
    await resend.getByRole('button', { name: 'Resend invitation' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      `The invitation was sent to ${invitedEmail} again.`,
    );
    await eventually(
      async () =>
        (await captured(baseUrl, `to=${encodeURIComponent(invitedEmail)}`)).filter(
          (sent) => sent.kind === 'invite',
        ).length,
    ).toBe(2);

    // Reset Dana's two-step verification, after its confirmation.
    await openUsers(page, '?search=dana');
    const row = page.locator(`tr[data-user="${dana.email}"]`);
    await row.getByRole('button', { name: 'Reset two-step verification: Dana Levi' }).click();
    const reset = page.getByRole('dialog', { name: 'Reset two-step verification?' });
    await expectAccessible(page, 'reset confirmation');
    await browser.screenshot(page, 'app-users-admin-reset-en-desktop');
    await reset.getByRole('button', { name: 'Reset two-step verification' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      'Two-step verification of Dana Levi was reset',
    );
    await eventually(() => row.textContent()).toContain('Off');
    expect(await row.getByRole('button', { name: /Reset two-step verification/ }).count()).toBe(0);
    expect((await em().findOneOrFail(AppUser, { id: dana.user.id })).totpEnabledAt).toBeNull();
    expect(await em().count(MfaBackupCode, { userId: dana.user.id })).toBe(0);
    await eventually(async () =>
      (await captured(baseUrl, `to=${encodeURIComponent(dana.email)}`)).some(
        (sent) => sent.kind === 'mfa_reset',
      ),
    ).toBe(true);
    await page.close();

    // Hebrew, right to left, and a 375 px phone.
    for (const [language, viewport, name] of [
      ['he', DESKTOP, 'app-users-admin-list-he-desktop'],
      ['en', PHONE, 'app-users-admin-list-en-phone'],
      ['he', PHONE, 'app-users-admin-list-he-phone'],
    ] as const) {
      const shown = await signedInPage(browser, baseUrl, owner, viewport, language);
      await openUsers(shown, '?page=2');
      await eventually(() => rows(shown).count()).toBe(50);
      if (language === 'he') {
        expect(await shown.locator('html').getAttribute('dir')).toBe('rtl');
        await eventually(() => shown.getByTestId('users-summary').textContent()).toContain('עמוד 2 מתוך 3');
      }
      if (viewport === PHONE) expect(await pageWidth(shown)).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(shown, name);
      await browser.screenshot(shown, name);
      await shown.close();
    }
  });
});
