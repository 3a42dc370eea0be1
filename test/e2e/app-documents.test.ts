// The documents pages (/app/documents and /app/documents/<id>, docs/documents.md) in a real browser against a real
// Sigil app, Temporal workflows and worker: a sender lists their team's envelopes, counts per tab, changes tabs,
// searches and filters (the address keeps them), opens an envelope still being signed, sees the workflow's live
// view, gets a ManualLink recipient's signing link and copies it, and watches the envelope change — a status,
// a recipient, the timeline — without reloading while the recipients sign through the signer API; then
// downloads the signed PDF. A read-only member sees no action. A finished envelope is archived from its page,
// found under the archived tab, restored, and deleted after a confirmation that names the retention period;
// the list says so and the page is not found afterwards. The pages in Hebrew (right to left) and on a
// 375-pixel phone, axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import type { EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  pathOf,
  signedInPage,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { asUser, callAs, signThroughApi } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { completedDocument, type DocumentFixture, documentFixture } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let owner: SignedInUser;
let sender: SignedInUser;
let member: SignedInUser;
let organizationId: string;
let templateId: string;
let team: string;
let senderRef: EnvelopeSender;

useAppBrowser(async (opened) => {
  ({ harness, browser, baseUrl } = opened);
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  team = (await callAs<{ id: string }>(baseUrl, owner, 'POST', '/api/teams', { name: 'Sales' })).id;
  sender = await signedInUser(harness, { role: 'sender', organizationId, fullName: 'Avi Sender' });
  member = await signedInUser(harness, { role: 'member', organizationId, fullName: 'Mor Member' });
  for (const user of [sender, member]) {
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: user.user.id }, { teamId: team });
  }
  senderRef = { userId: sender.user.id, teamId: team };
  // Envelopes of the sender's team in several tabs (the ones the tests act on are made by each test).
  await documentFixture(harness.ctx, organizationId, templateId, {
    title: 'Draft price quote',
    sender: senderRef,
  });
  await completedDocument(harness.ctx, organizationId, templateId, {
    title: 'Signed lease 2026',
    sender: senderRef,
  });
  await documentFixture(harness.ctx, organizationId, templateId, {
    title: 'הסכם שירותים עם לקוח חדש',
    sender: senderRef,
    send: true,
  });
});

function rowTitles(page: Page): Promise<string[]> {
  return page.locator('tr[data-document] td:first-child a').allTextContents();
}

async function openList(page: Page, query = ''): Promise<void> {
  await page.goto(`${baseUrl}/app/documents${query}`);
  await eventually(() => page.locator('nav.tabs a').count()).toBe(9);
  await waitForLoaded(page);
}

function recipientRow(page: Page, name: string) {
  return page.locator(`tr[data-recipient="${name}"]`);
}

/** The buttons of the envelope page's actions bar, by their names. */
function actionButtons(page: Page): Promise<string[]> {
  return page
    .locator('.toolbar button')
    .allTextContents()
    .then((names) => names.map((name) => name.trim()));
}

describe('the business app: documents', () => {
  it('lists, filters and searches the team’s envelopes', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page
      .getByRole('navigation', { name: 'Business app' })
      .getByRole('link', { name: 'Documents' })
      .click();
    await waitForPath(page, '/app/documents');
    await eventually(() => rowTitles(page)).toEqual([
      'הסכם שירותים עם לקוח חדש',
      'Signed lease 2026',
      'Draft price quote',
    ]);
    expect(await page.locator('nav.tabs a[data-tab="completed"] .count').textContent()).toBe('1');
    expect(await page.locator('nav.tabs a[data-tab="drafts"] .count').textContent()).toBe('1');
    await expectAccessible(page, 'documents list');
    await browser.screenshot(page, 'app-documents-en-desktop');

    await page.locator('nav.tabs a[data-tab="completed"]').click();
    await eventually(() => rowTitles(page)).toEqual(['Signed lease 2026']);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('completed');
    expect(await page.locator('nav.tabs a[aria-current="page"]').getAttribute('data-tab')).toBe('completed');
    const row = page.locator('tr[data-document]').first();
    expect(await row.textContent()).toContain('2 of 2 completed');
    expect(await row.textContent()).toContain('Avi Sender');

    await page.locator('nav.tabs a[data-tab="all"]').click();
    await eventually(() => rowTitles(page)).toHaveLength(3);
    await page.getByLabel('Search').fill('QUOTE');
    await eventually(() => rowTitles(page)).toEqual(['Draft price quote']);
    expect(new URL(page.url()).searchParams.get('search')).toBe('QUOTE');
    await page.getByLabel('Search').fill('nobody at all');
    await eventually(() => page.getByText('No envelope matches the search and filters.').count()).toBe(1);
    await page.getByRole('button', { name: 'Clear search and filters' }).click();
    await eventually(() => rowTitles(page)).toHaveLength(3);
    await page.getByLabel('Sender').selectOption({ label: 'Avi Sender' });
    await eventually(async () => new URL(page.url()).searchParams.get('sender')).toBe(sender.user.id);
    expect(await rowTitles(page)).toHaveLength(3);
    // A reload keeps what was chosen.
    await openList(page, `?tab=drafts&sender=${sender.user.id}`);
    await eventually(() => rowTitles(page)).toEqual(['Draft price quote']);
    expect(await page.getByLabel('Sender').inputValue()).toBe(sender.user.id);
  });

  it('follows an envelope while its recipients sign, hands out a link, and downloads the signed PDF', async () => {
    const fixture: DocumentFixture = await documentFixture(harness.ctx, organizationId, templateId, {
      title: 'Services agreement for Acme',
      sender: senderRef,
      send: true,
    });
    const page = await browser.newPage(DESKTOP);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    await signIn(page, baseUrl, sender.email, sender.password);
    await openList(page);
    await page.getByRole('link', { name: 'Services agreement for Acme' }).click();
    await waitForPath(page, `/app/documents/${fixture.id}`);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
    await eventually(() => page.getByTestId('live').textContent()).toContain('Waiting for Dana Levi');
    expect(await page.getByTestId('live').textContent()).toContain('1 of 2');
    expect(await recipientRow(page, 'Sam Cohen').textContent()).toContain('Waiting for their turn');
    expect(await page.getByRole('button', { name: 'Cancel the envelope' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Signed document (PDF)' }).count()).toBe(0);
    // The workflow behind it is for those who read the organization's settings, not for a sender.
    expect(await page.getByTestId('live').getByText('For operators').count()).toBe(0);
    await expectAccessible(page, 'envelope page');
    await browser.screenshot(page, 'app-document-en-desktop');

    // A fresh link for Dana, who gets no message (ManualLink), copied with the button.
    await page.getByRole('button', { name: 'Get signing link: Dana Levi' }).click();
    const linkField = page.getByLabel('Signing link for Dana Levi');
    await eventually(() => linkField.inputValue()).toMatch(/\/sign\/[\w-]{43}$/);
    const link = await linkField.inputValue();
    await page.getByRole('button', { name: 'Copy link' }).click();
    await eventually(() => page.getByText('Link copied.').count()).toBe(1);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link);
    await expectAccessible(page, 'envelope page with a signing link');
    await browser.screenshot(page, 'app-document-link-en-desktop');

    // Dana signs elsewhere: the page shows it without a reload.
    await page.evaluate('window.sigilNoReload = true');
    await signThroughApi(baseUrl, link);
    await eventually(() => recipientRow(page, 'Dana Levi').textContent(), 30_000).toContain('Completed');
    await eventually(() => page.getByTestId('status').textContent()).toContain('Waiting for the next signer');
    await eventually(() => page.getByTestId('timeline').textContent()).toContain('Dana Levi signed');
    await eventually(() => page.getByTestId('live').textContent()).toContain('Waiting for Sam Cohen');
    expect(await page.evaluate('window.sigilNoReload')).toBe(true);

    // Sam signs too: Completed, and the signed PDF can be downloaded.
    await page.getByRole('button', { name: 'Get signing link: Sam Cohen' }).click();
    await eventually(() => page.getByLabel('Signing link for Sam Cohen').inputValue()).toMatch(/\/sign\//);
    const samLink = await page.getByLabel('Signing link for Sam Cohen').inputValue();
    await signThroughApi(baseUrl, samLink);
    await eventually(() => page.getByTestId('status').textContent(), 30_000).toContain('Completed');
    expect(await page.evaluate('window.sigilNoReload')).toBe(true);
    const signed = page.getByRole('link', { name: 'Signed document (PDF)' });
    await eventually(() => signed.count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), signed.click()]);
    expect(download.suggestedFilename()).toBe('Services agreement for Acme (signed).pdf');
    const bytes = await readFile(await download.path());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await page.getByRole('button', { name: 'Cancel the envelope' }).count()).toBe(0);
    // No workflow speaks any more: the page says in words what happened.
    await eventually(() => page.getByTestId('now-line').textContent()).toMatch(
      /^Completed on .+: every recipient has done their part\. The signed document and the audit trail are ready to download\.$/,
    );
    await expectAccessible(page, 'completed envelope page');
    await browser.screenshot(page, 'app-document-completed-en-desktop');
  });

  it('changes the deadline and cancels through dialogs; a read-only member sees no action', async () => {
    const fixture = await documentFixture(harness.ctx, organizationId, templateId, {
      title: 'Supply contract',
      sender: senderRef,
      send: true,
    });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}/app/documents/${fixture.id}`);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
    await page.getByRole('button', { name: 'Change the deadline' }).click();
    const extend = page.getByRole('dialog', { name: 'Change the signing deadline' });
    await extend.getByLabel('New deadline').fill('2001-01-01T10:00');
    await extend.getByRole('button', { name: 'Change the deadline' }).click();
    await eventually(() => extend.locator('#extend-at-error').textContent()).toBe(
      'Choose a date and time in the future.',
    );
    await extend.getByLabel('New deadline').fill('2030-06-30T12:00');
    await expectAccessible(page, 'change the deadline');
    await browser.screenshot(page, 'app-document-extend-en-desktop');
    await extend.getByRole('button', { name: 'Change the deadline' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain('The deadline is now');
    expect(await page.getByTestId('deadline').textContent()).toContain('2030');

    await page.getByRole('button', { name: 'Cancel the envelope' }).click();
    const cancel = page.getByRole('dialog', { name: 'Cancel this envelope?' });
    await cancel.getByLabel('Reason (optional)').fill('Replaced by a new contract');
    await cancel.getByRole('button', { name: 'Cancel the envelope' }).click();
    await eventually(() => page.getByTestId('status').textContent()).toContain('Cancelled');
    expect(await page.getByTestId('timeline').textContent()).toContain('Replaced by a new contract');
    await eventually(() => page.getByTestId('now-line').textContent()).toMatch(
      /^Cancelled on .+: the recipients can no longer open it\.$/,
    );
    expect(await page.getByRole('button', { name: 'Send a reminder' }).count()).toBe(0);

    const readOnly = await browser.newPage(DESKTOP);
    await signIn(readOnly, baseUrl, member.email, member.password);
    await readOnly.goto(`${baseUrl}/app/documents`);
    await eventually(() => readOnly.locator('tr[data-document]').count()).toBeGreaterThan(0);
    const other = await documentFixture(harness.ctx, organizationId, templateId, {
      title: 'Member looks at this',
      sender: senderRef,
      send: true,
    });
    await readOnly.goto(`${baseUrl}/app/documents/${other.id}`);
    await eventually(() => readOnly.getByTestId('status').textContent()).toContain('Sent');
    await eventually(() => readOnly.getByTestId('live').textContent()).toContain('Waiting for Dana Levi');
    expect(await readOnly.getByTestId('live').getByText('For operators').count()).toBe(0);
    // The owner reads the settings: the workflow's id is theirs to see, folded under "For operators".
    const operator = await browser.newPage(DESKTOP);
    await signIn(operator, baseUrl, owner.email, owner.password);
    await operator.goto(`${baseUrl}/app/documents/${other.id}`);
    await eventually(() => operator.getByTestId('live').textContent()).toContain('Waiting for Dana Levi');
    await operator.getByTestId('live').getByText('For operators').click();
    await eventually(() => operator.getByTestId('live').textContent()).toContain(
      envelopeWorkflowId(other.id),
    );
    await operator.close();
    expect(
      await readOnly
        .getByRole('button')
        .filter({ hasText: /reminder|deadline|Cancel the|signing link/ })
        .count(),
    ).toBe(0);
    await expectAccessible(readOnly, 'envelope page, read only');
  });

  it('archives a finished envelope, restores it, and deletes it after confirming', async () => {
    const fixture = await completedDocument(harness.ctx, organizationId, templateId, {
      title: 'Lease to put away',
      sender: senderRef,
    });
    const path = `/app/documents/${fixture.id}`;
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}${path}`);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Completed');
    // Within Documents: its link is current (the page is one of its own), and no other link is.
    const nav = page.getByRole('navigation', { name: 'Business app' });
    expect(await nav.getByRole('link', { name: 'Documents' }).getAttribute('aria-current')).toBe('true');
    expect(await nav.locator('a[aria-current]').allTextContents()).toEqual(['Documents']);
    // A Completed envelope may be archived or deleted, nothing else.
    expect(await actionButtons(page)).toEqual(['Archive', 'Delete']);
    await expectAccessible(page, 'completed envelope page with archive and delete');

    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await eventually(() => page.getByTestId('status').textContent()).toContain('Archived');
    expect(await page.getByRole('status').filter({ hasText: 'The envelope was archived' }).count()).toBe(1);
    await eventually(() => actionButtons(page)).toEqual(['Restore from archive', 'Delete']);
    await eventually(() => page.getByTestId('timeline').textContent()).toContain('Archived');
    expect(pathOf(page)).toBe(path);
    await expectAccessible(page, 'archived envelope page');
    await browser.screenshot(page, 'app-document-archived-en-desktop');

    // It left the active tabs and is under "Archived", whose row opens its page with the Restore button.
    await openList(page);
    await eventually(() => page.locator('nav.tabs a[data-tab="archived"] .count').textContent()).toBe('1');
    expect(await rowTitles(page)).not.toContain('Lease to put away');
    await page.locator('nav.tabs a[data-tab="archived"]').click();
    await eventually(() => rowTitles(page)).toEqual(['Lease to put away']);
    expect(await page.locator('tr[data-document]').first().textContent()).toContain('Archived');
    await page.getByRole('link', { name: 'Lease to put away' }).click();
    await waitForPath(page, path);
    await eventually(() => actionButtons(page)).toEqual(['Restore from archive', 'Delete']);
    await page.getByRole('button', { name: 'Restore from archive' }).click();
    await eventually(() => page.getByTestId('status').textContent()).toContain('Completed');
    expect(await page.locator('.app-success').textContent()).toBe(
      'The envelope was restored from the archive. Its status is Completed again.',
    );
    await eventually(() => actionButtons(page)).toEqual(['Archive', 'Delete']);
    await eventually(() => page.getByTestId('timeline').textContent()).toContain(
      'Brought back from the archive',
    );

    // Archived meanwhile elsewhere (the page's polls answered "unchanged" until then): the server's refusal is
    // shown, and the page then catches up.
    const isThePoll = (url: URL) => url.pathname === `/api/documents/${fixture.id}`;
    await page.route(isThePoll, (route) => route.fulfill({ status: 304 }));
    expect((await asUser(baseUrl, sender, 'POST', `/api/documents/${fixture.id}/archive`)).status).toBe(200);
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await eventually(() => page.locator('.app-messages [role="alert"]').textContent()).toBe(
      'The envelope is already Archived.',
    );
    expect(await page.locator('.app-success').count()).toBe(0);
    await page.unroute(isThePoll);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Archived');
    await eventually(() => actionButtons(page)).toEqual(['Restore from archive', 'Delete']);

    // A read-only member sees the same envelope without any of these buttons.
    const readOnly = await browser.newPage(DESKTOP);
    await signIn(readOnly, baseUrl, member.email, member.password);
    await readOnly.goto(`${baseUrl}${path}`);
    await eventually(() => readOnly.getByTestId('status').textContent()).toContain('Archived');
    expect(await readOnly.locator('.toolbar').count()).toBe(0);
    expect(await readOnly.getByRole('button', { name: /Archive|Restore|Delete/ }).count()).toBe(0);

    // Delete asks first, naming no number of days to a sender, who cannot read the organization's settings.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this envelope?' });
    await eventually(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain(
      'Its files are purged for good after the retention period set by your organization. Download anything you need to keep first.',
    );
    await expectAccessible(page, 'delete an envelope');
    await browser.screenshot(page, 'app-document-delete-en-desktop');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => confirm.isVisible()).toBe(false);
    expect(await page.getByTestId('status').textContent()).toContain('Archived');

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await waitForPath(page, '/app/documents');
    await eventually(() => page.locator('.app-success').textContent()).toMatch(
      /^The envelope “\u2068Lease to put away\u2069” was deleted\. Its files will be purged after .*2\d{3}.*\.$/,
    );
    expect(await rowTitles(page)).not.toContain('Lease to put away');
    expect(await page.locator('nav.tabs a[data-tab="archived"] .count').textContent()).toBe('0');
    await expectAccessible(page, 'documents list after a deletion');
    await browser.screenshot(page, 'app-documents-deleted-en-desktop');
    // The message is said once: going back to the list later does not repeat it.
    await page.locator('nav.tabs a[data-tab="completed"]').click();
    await eventually(() => page.locator('.app-success').count()).toBe(0);

    // Its page, and every route, now answer "not found".
    await page.goto(`${baseUrl}${path}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await page.getByText('There is nothing at this address.').count()).toBe(1);
    expect((await asUser(baseUrl, sender, 'GET', `/api/documents/${fixture.id}`)).status).toBe(404);
  });

  it('names the retention period to a user who reads the settings, and deletes a draft', async () => {
    const updated = await asUser(baseUrl, owner, 'PUT', '/api/organization/settings', {
      retention: { deletedDays: 14 },
    });
    expect(updated.status).toBe(200);
    const draft = await documentFixture(harness.ctx, organizationId, templateId, {
      title: 'Quote nobody needs',
      sender: senderRef,
    });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await page.goto(`${baseUrl}/app/documents/${draft.id}`);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Draft');
    // A Draft is sent or deleted; it is never archived.
    expect(await actionButtons(page)).toEqual(['Send', 'Change the deadline', 'Delete']);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this envelope?' });
    await eventually(() => confirm.textContent()).toContain(
      'Its files are purged for good 14 days after the deletion, the retention period set by your organization.',
    );
    const day = (at: number) =>
      new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(at + 14 * 24 * 60 * 60 * 1000);
    const before = day(Date.now());
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await waitForPath(page, '/app/documents');
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      'The envelope “\u2068Quote nobody needs\u2069” was deleted. Its files will be purged after ',
    );
    // 14 days from now, by the organization's setting (the day before midnight or after).
    const message = (await page.locator('.app-success').textContent()) ?? '';
    expect(
      [before, day(Date.now())].some((date) => message.includes(`after ${date},`)),
      message,
    ).toBe(true);
    expect((await asUser(baseUrl, owner, 'GET', `/api/documents/${draft.id}`)).status).toBe(404);
    await asUser(baseUrl, owner, 'PUT', '/api/organization/settings', { retention: { deletedDays: null } });
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    const fixture = await documentFixture(harness.ctx, organizationId, templateId, {
      title: 'חוזה שכירות — דירה ברחוב הרצל 12, תל אביב',
      sender: senderRef,
      send: true,
    });
    const archived = await completedDocument(harness.ctx, organizationId, templateId, {
      title: 'ייפוי כוח לשנת 2025 — ארכיון',
      sender: senderRef,
    });
    expect((await asUser(baseUrl, sender, 'POST', `/api/documents/${archived.id}/archive`)).status).toBe(200);
    const LABELS = {
      en: { restore: 'Restore from archive', delete: 'Delete', dialog: 'Delete this envelope?' },
      he: { restore: 'שחזור מהארכיון', delete: 'מחיקה', dialog: 'למחוק את המעטפה?' },
    };
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, sender, viewport, language);
      await openList(page);
      await eventually(() => page.locator('tr[data-document]').count()).toBeGreaterThan(3);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('מסמכים');
      }
      expect(await pageWidth(page), `list ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `documents list (${language}, ${device})`);
      await browser.screenshot(page, `app-documents-${language}-${device}`);

      await page.goto(`${baseUrl}/app/documents/${fixture.id}`);
      await eventually(() => page.getByTestId('live').textContent()).toMatch(/Dana Levi/);
      if (language === 'he') {
        expect(await page.getByTestId('status').textContent()).toContain('נשלחה');
      }
      expect(await pageWidth(page), `envelope ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `envelope page (${language}, ${device})`);
      await browser.screenshot(page, `app-document-${language}-${device}`);

      // An archived envelope: Restore and Delete.
      const labels = LABELS[language];
      await page.goto(`${baseUrl}/app/documents/${archived.id}`);
      await eventually(() => actionButtons(page)).toEqual([labels.restore, labels.delete]);
      if (language === 'he') {
        expect(await page.getByTestId('status').textContent()).toContain('בארכיון');
      }
      expect(await pageWidth(page), `archived ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `archived envelope page (${language}, ${device})`);
      await browser.screenshot(page, `app-document-archived-${language}-${device}`);

      // A draft deleted after the confirmation; the list says so.
      const draft = await documentFixture(harness.ctx, organizationId, templateId, {
        title: `טיוטה למחיקה ${language} ${device}`,
        sender: senderRef,
      });
      await page.goto(`${baseUrl}/app/documents/${draft.id}`);
      await eventually(() => actionButtons(page)).toContain(labels.delete);
      await page.getByRole('button', { name: labels.delete, exact: true }).click();
      const confirm = page.getByRole('dialog', { name: labels.dialog });
      await eventually(() => confirm.isVisible()).toBe(true);
      if (language === 'he') {
        expect(await confirm.textContent()).toContain('בתום תקופת השמירה שהארגון שלך קבע');
      }
      expect(await pageWidth(page), `delete ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `delete an envelope (${language}, ${device})`);
      await browser.screenshot(page, `app-document-delete-${language}-${device}`);
      await confirm.getByRole('button', { name: labels.delete, exact: true }).click();
      await waitForPath(page, '/app/documents');
      // The title keeps its own direction inside the sentence (isolated).
      await eventually(() => page.locator('.app-success').textContent()).toContain(
        `\u2068טיוטה למחיקה ${language} ${device}\u2069`,
      );
      if (language === 'he') {
        expect(await page.locator('.app-success').textContent()).toMatch(/^המעטפה „\u2068.*\u2069” נמחקה\. /);
      }
      expect(await pageWidth(page), `deleted ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `documents list after a deletion (${language}, ${device})`);
      await browser.screenshot(page, `app-documents-deleted-${language}-${device}`);
    }
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: sender.user.id }, { language: 'en' });
  });
});
