// Three of the business app's everyday chores in a real browser against a real Sigil app (issue 33, part F):
// the documents list exported as CSV — the view in the address (a search) and the whole list, the downloaded
// file's rows read back, formulas defused; an archived template restored, and another deleted after a
// confirmation — refused inside the dialog while a draft uses it, gone once the draft is deleted; the
// organization's languages changed on the settings page — a default outside the supported languages refused
// beside its field, then Hebrew alone saved. Each screen in English and Hebrew (right to left) and on a
// 375-pixel phone, axe-core's WCAG 2.1 AA rules on each; screenshots go to test/artifacts/web/.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
  waitForLoaded,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const VIEWS = [
  ['en', DESKTOP, 'desktop'],
  ['he', DESKTOP, 'desktop'],
  ['en', PHONE, 'phone'],
  ['he', PHONE, 'phone'],
] as const;

async function draft(owner: SignedInUser, templateId: string, title: string): Promise<string> {
  const envelope = await createEnvelope(
    harness.ctx,
    { organizationId: owner.organization.id, templateId, title, recipients: TWO_SIGNERS },
    { userId: owner.user.id, teamId: null },
  );
  return envelope.id;
}

/** Clicks the page's export link and answers the downloaded file's name and rows. */
async function exportRows(page: Page, label: string): Promise<{ name: string; rows: string[][] }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: label }).click(),
  ]);
  const text = await readFile(await download.path(), 'utf8');
  return { name: download.suggestedFilename(), rows: parse(text, { bom: true }) as string[][] };
}

async function renameTemplate(owner: SignedInUser, id: string, name: string): Promise<void> {
  await callAs(baseUrl, owner, 'PUT', `/api/templates/${id}/name`, { name });
}

describe('the business app: export, archived templates, languages', () => {
  it('exports the documents list as CSV: the view in the address, then every envelope', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Orly Owner' });
    const templateId = await documentTemplate(harness.ctx, owner.organization.id);
    await draft(owner, templateId, 'Lease Alpha');
    await draft(owner, templateId, '=Formula title');
    await draft(owner, templateId, 'Lease Beta');

    for (const [language, viewport, device] of VIEWS) {
      const page = await signedInPage(browser, baseUrl, owner, viewport, language);
      await page.goto(`${baseUrl}/app/documents?search=lease`);
      await waitForLoaded(page);
      await eventually(() => page.locator('tbody tr, [data-testid="document-card"]').count()).toBeGreaterThan(
        0,
      );
      const label = language === 'he' ? he['documents.export'] : 'Export CSV';
      const searched = await exportRows(page, label);
      expect(searched.name).toMatch(/^documents-\d{4}-\d{2}-\d{2}\.csv$/);
      expect(searched.rows.map((row) => row.slice(0, 4))).toEqual([
        ['title', 'status', 'template', 'sender'],
        ['Lease Beta', 'Draft', expect.any(String), 'Orly Owner'],
        ['Lease Alpha', 'Draft', expect.any(String), 'Orly Owner'],
      ]);
      expect(searched.rows[1]?.[4]).toBe(
        'Dana Levi <dana@example.com> (Pending); Sam Cohen <sam@example.com> (Pending)',
      );
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `documents export (${language}, ${device})`);
      await browser.screenshot(page, `app-documents-export-${language}-${device}`);
      if (language === 'en' && device === 'desktop') {
        // The whole list: the formula title defused.
        await page.goto(`${baseUrl}/app/documents`);
        await waitForLoaded(page);
        const all = await exportRows(page, label);
        expect(all.rows.map((row) => row[0])).toEqual([
          'title',
          'Lease Beta',
          "'=Formula title",
          'Lease Alpha',
        ]);
      }
      await page.close();
    }
  });

  it('restores an archived template and deletes another after a confirmation, refused while a draft uses it', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const restorable = await documentTemplate(harness.ctx, owner.organization.id);
    const used = await documentTemplate(harness.ctx, owner.organization.id);
    await renameTemplate(owner, restorable, 'Archived lease');
    await renameTemplate(owner, used, 'Used agreement');
    const draftId = await draft(owner, used, 'Still a draft');
    for (const id of [restorable, used]) await callAs(baseUrl, owner, 'POST', `/api/templates/${id}/archive`);

    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/templates`);
    await waitForLoaded(page);
    await page.locator('#template-status').selectOption('archived');
    await eventually(() => page.locator('tr[data-template]').count()).toBe(2);
    expect(await page.url()).toContain('status=archived');
    expect(await page.locator('tr[data-template="Archived lease"]').textContent()).toContain('Archived');
    // An archived template does not open: its name is not a link.
    expect(await page.locator('tr[data-template="Archived lease"] a').count()).toBe(0);
    await expectAccessible(page, 'archived templates');
    await browser.screenshot(page, 'app-templates-archived-en-desktop');

    await page.getByRole('button', { name: 'Restore: Archived lease' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toBe(
      'Archived lease was restored: it is listed and can be sent again.',
    );
    expect(await page.locator('tr[data-template]').count()).toBe(1);

    await page.getByRole('button', { name: 'Delete: Used agreement' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this template for good?' });
    expect(await confirm.textContent()).toContain('cannot be restored');
    await expectAccessible(page, 'delete template');
    await browser.screenshot(page, 'app-templates-delete-en-desktop');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => confirm.textContent()).toContain('1 envelope that is not finished');
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    // The draft deleted, the template can go.
    await callAs(baseUrl, owner, 'POST', `/api/documents/${draftId}/delete`);
    await page.getByRole('button', { name: 'Delete: Used agreement' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toBe('Used agreement was deleted.');
    expect(await page.locator('tr[data-template]').count()).toBe(0);

    // The restored one is back in the list of active templates, and opens.
    await page.locator('#template-status').selectOption('');
    await eventually(() =>
      page.locator(`tr[data-template="Archived lease"] a[href="/app/templates/${restorable}"]`).count(),
    ).toBe(1);
    expect(await page.locator('tr[data-template="Used agreement"]').count()).toBe(0);
    await page.close();

    // The archived list in Hebrew and on a phone.
    const more = await documentTemplate(harness.ctx, owner.organization.id);
    await renameTemplate(owner, more, 'חוזה שכירות');
    await callAs(baseUrl, owner, 'POST', `/api/templates/${more}/archive`);
    for (const [language, viewport, device] of VIEWS.slice(1)) {
      const view = await signedInPage(browser, baseUrl, owner, viewport, language);
      await view.goto(`${baseUrl}/app/templates?status=archived`);
      await waitForLoaded(view);
      await eventually(() => view.locator('[data-template="חוזה שכירות"]').count()).toBe(1);
      expect(await view.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      expect(await pageWidth(view), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(view, `archived templates (${language}, ${device})`);
      await browser.screenshot(view, `app-templates-archived-${language}-${device}`);
      await view.close();
    }
  });

  it("changes the organization's languages on the settings page", async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/admin/settings`);
    await waitForLoaded(page);
    const languages = page.getByRole('group', { name: 'Supported languages' });
    expect(await page.getByLabel('Default language').inputValue()).toBe('en');
    expect(await languages.getByLabel('English').isChecked()).toBe(true);
    expect(await languages.getByLabel('עברית').isChecked()).toBe(true);

    // Only Hebrew while English stays the default: refused beside the default, nothing saved.
    await languages.getByLabel('English').uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-defaultLanguage-error').textContent()).toContain(
      'supported languages',
    );
    await expectAccessible(page, 'languages refused');
    expect((await callAs(baseUrl, owner, 'GET', '/api/organization/settings')).supportedLanguages).toEqual([
      'en',
      'he',
    ]);

    // Hebrew the default too: saved.
    await page.getByLabel('Default language').selectOption('he');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-saved').textContent()).toContain('saved');
    expect(await callAs(baseUrl, owner, 'GET', '/api/organization/settings')).toMatchObject({
      defaultLanguage: 'he',
      supportedLanguages: ['he'],
    });
    await page.reload();
    await waitForLoaded(page);
    expect(await page.getByLabel('Default language').inputValue()).toBe('he');
    expect(
      await page.getByRole('group', { name: 'Supported languages' }).getByLabel('English').isChecked(),
    ).toBe(false);
    await page.close();

    for (const [language, viewport, device] of VIEWS) {
      const view = await signedInPage(browser, baseUrl, owner, viewport, language);
      await view.goto(`${baseUrl}/app/admin/settings`);
      await waitForLoaded(view);
      const group = view.getByRole('group', {
        name: language === 'he' ? he['admin.settings.supportedLanguages'] : 'Supported languages',
      });
      await group.scrollIntoViewIfNeeded();
      expect(await pageWidth(view), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(view, `settings languages (${language}, ${device})`);
      await browser.screenshot(view, `app-settings-languages-${language}-${device}`);
      await view.close();
    }
  });
});
