// The address book (/app/contacts) in a real browser against a real Sigil app: a sender adds contacts (the
// page's own checks first, then the server's 409 for an email another contact has), searches as they type
// (the address keeps the search), edits one, imports a CSV file — a file with bad rows lists each row and
// column and imports nothing, the corrected file adds and updates — exports the list as CSV (formula cells
// neutralized) and deletes a contact after a confirmation. A read-only member sees the list and the export
// and no control that changes anything. A list that could not be loaded is said inside the shell, in the page's
// language, and loaded again with Try again. The page in Hebrew (right to left) and on a 375-pixel phone, and
// axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/. The contact picker is
// tried on the send page, where it is used (test/e2e/app-send.test.ts).
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import en from '../../web/src/lib/i18n/en.json' with { type: 'json' };
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
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

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

function row(page: Page, name: string) {
  return page.locator(`tr[data-contact="${name}"]`);
}

function rowNames(page: Page): Promise<string[]> {
  return page
    .locator('tr[data-contact]')
    .evaluateAll((rows) =>
      rows.map((element) => (element as unknown as { dataset: { contact: string } }).dataset.contact),
    );
}

async function openContacts(page: Page, query = ''): Promise<void> {
  await page.goto(`${baseUrl}/app/contacts${query}`);
  await eventually(() => page.locator('#contact-search').count()).toBe(1);
  await waitForLoaded(page);
}

/** Chooses a CSV file with this text in the import dialog and submits it. */
async function importFile(page: Page, csv: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Import contacts from a CSV file' });
  await dialog.locator('#import-file').setInputFiles({
    name: 'contacts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv, 'utf8'),
  });
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
}

/** An organization with a sender and a read-only member, and a few contacts made through the API. */
async function organizationWithContacts(): Promise<{ sender: SignedInUser; member: SignedInUser }> {
  const sender = await signedInUser(harness, { role: 'sender', fullName: 'Dana Sender' });
  const member = await signedInUser(harness, {
    role: 'member',
    organizationId: sender.organization.id,
    fullName: 'Mor Member',
  });
  for (const contact of [
    { name: 'נועה כהן', company: 'גלובקס', email: 'noa@globex.example', tags: ['לקוחות'] },
    {
      name: 'Christopher Alexander Montgomery-Wellington',
      company: 'Montgomery-Wellington International Holdings',
      email: 'christopher.alexander.montgomery-wellington@international-holdings.example',
      phone: '+442071234567',
      tags: ['board', 'london', 'long-term partner'],
    },
    { name: 'Yossi Levi', phone: '+972521112222', tags: ['suppliers'] },
  ]) {
    await callAs(baseUrl, sender, 'POST', '/api/contacts', contact);
  }
  return { sender, member };
}

describe('the business app: contacts', () => {
  it('adds, searches, edits, imports, exports and deletes contacts', async () => {
    const sender = await signedInUser(harness, { role: 'sender', fullName: 'Avi Sender' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    const nav = page.getByRole('navigation', { name: 'Business app' });
    await nav.getByRole('link', { name: 'Contacts' }).click();
    await waitForPath(page, '/app/contacts');
    await eventually(() =>
      page.getByText('There are no contacts yet. Add one, or import a CSV file.').count(),
    ).toBe(1);
    await expectAccessible(page, 'empty contacts');

    // Add: the page's own checks first (a name; an email or a phone), focus on the first field refused.
    await page.getByRole('button', { name: 'Add a contact' }).click();
    const form = page.getByRole('dialog', { name: 'Add a contact' });
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => form.locator('#contact-name-error').textContent()).toBe('Enter a name.');
    expect(await form.locator('#contact-email-error').textContent()).toBe(
      'Enter an email address or a phone number.',
    );
    expect(await page.evaluate('document.activeElement?.id')).toBe('contact-name');
    await form.getByLabel('Name').fill('Dana Levi');
    await form.getByLabel('Company (optional)').fill('Acme Ltd');
    await form.getByLabel('Email address').fill('Dana@Acme.example');
    await form.getByLabel('Phone').fill('050 123');
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => form.locator('#contact-phone-error').textContent()).toContain(
      'international form',
    );
    await form.getByLabel('Phone').fill('+972 50-123-4567');
    await form.getByLabel('Tags (optional)').fill('vip, suppliers');
    await expectAccessible(page, 'add contact');
    await browser.screenshot(page, 'app-contacts-add-en-desktop');
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => row(page, 'Dana Levi').count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toBe('Dana Levi was added to your contacts.');
    const dana = await row(page, 'Dana Levi').textContent();
    expect(dana).toContain('dana@acme.example');
    expect(dana).toContain('+972501234567');
    expect(dana).toContain('Acme Ltd');
    expect(dana).toContain('vip');

    // The same address again: the server's 409, shown at the email field.
    await page.getByRole('button', { name: 'Add a contact' }).click();
    await form.getByLabel('Name').fill('Dana Again');
    await form.getByLabel('Email address').fill('dana@ACME.example');
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => form.locator('#contact-email-error').textContent()).toContain(
      'already has the email dana@acme.example',
    );
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Import: a file with problems lists them and imports nothing.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const importDialog = page.getByRole('dialog', { name: 'Import contacts from a CSV file' });
    await importDialog.getByRole('button', { name: 'Import', exact: true }).click();
    await eventually(() => importDialog.locator('#import-error').textContent()).toContain(
      'Choose a CSV file.',
    );
    await importFile(
      page,
      'name,company,email,phone,tags\nOmer Katz,Initech,omer@initech.example,,\nNo Address,,,,\nBad Mail,,not-an-email,,\n',
    );
    const problems = importDialog.getByTestId('import-problems');
    await eventually(() => problems.locator('li').count()).toBe(2);
    expect(await importDialog.locator('#import-error').textContent()).toContain('Nothing was imported.');
    expect(await problems.locator('li').allTextContents()).toEqual([
      'Row 3, email: email or phone is required',
      'Row 4, email: email must be an email address',
    ]);
    await expectAccessible(page, 'import problems');
    await browser.screenshot(page, 'app-contacts-import-en-desktop');
    // The corrected file: two new contacts, and Dana (known by her email) updated.
    await importFile(
      page,
      '\uFEFFname,company,email,phone,tags\r\n' +
        'Omer Katz,Initech,omer@initech.example,,\r\n' +
        'Rina Shapiro,"Shapiro, Partners",,+972 54 999 8888,legal\r\n' +
        'Dana Levi,Acme Holdings,DANA@acme.example,+972501234567,vip;suppliers\r\n',
    );
    await eventually(() => page.locator('.app-success').textContent()).toBe(
      'Imported 3 rows: 2 added, 1 updated, 0 unchanged.',
    );
    expect(await importDialog.isVisible()).toBe(false);
    expect(await rowNames(page)).toEqual(['Dana Levi', 'Omer Katz', 'Rina Shapiro']);
    expect(await row(page, 'Dana Levi').textContent()).toContain('Acme Holdings');

    // Search as you type: every word, any field; the address keeps the search.
    await page.getByLabel('Search contacts').fill('shapiro legal');
    await eventually(() => rowNames(page)).toEqual(['Rina Shapiro']);
    expect(await page.getByTestId('contacts-summary').textContent()).toContain(
      'One contact matches “shapiro legal”.',
    );
    expect(new URL(page.url()).searchParams.get('search')).toBe('shapiro legal');
    await page.getByLabel('Search contacts').fill('054-999');
    await eventually(() => rowNames(page)).toEqual(['Rina Shapiro']);
    await page.getByLabel('Search contacts').fill('nobody at all');
    await eventually(() => page.getByTestId('contacts-summary').textContent()).toContain(
      'No contact matches “nobody at all”.',
    );
    expect(await page.locator('tr[data-contact]').count()).toBe(0);
    await page.getByLabel('Search contacts').fill('');
    await eventually(() => rowNames(page)).toEqual(['Dana Levi', 'Omer Katz', 'Rina Shapiro']);
    expect(await page.getByTestId('contacts-summary').textContent()).toContain('3 contacts');
    // A reload with ?search= shows that search.
    await openContacts(page, '?search=initech');
    await eventually(() => rowNames(page)).toEqual(['Omer Katz']);
    expect(await page.getByLabel('Search contacts').inputValue()).toBe('initech');
    await openContacts(page);

    // Edit: the dialog holds the contact; a PUT replaces it.
    await page.getByRole('button', { name: 'Edit: Omer Katz' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Omer Katz' });
    expect(await edit.getByLabel('Email address').inputValue()).toBe('omer@initech.example');
    await edit.getByLabel('Name').fill('=Omer Katz');
    await edit.getByLabel('Tags (optional)').fill('-engineering, @partners');
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(() => row(page, '=Omer Katz').count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toBe('The changes to =Omer Katz were saved.');

    // Export: the list as CSV, with the cells a spreadsheet would run as formulas neutralized.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^contacts-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile(await download.path(), 'utf8');
    expect(csv.slice(1).split('\r\n')).toEqual([
      'name,company,email,phone,tags',
      "'=Omer Katz,Initech,omer@initech.example,,'-engineering; @partners",
      "Dana Levi,Acme Holdings,dana@acme.example,'+972501234567,vip; suppliers",
      `Rina Shapiro,"Shapiro, Partners",,'+972549998888,legal`,
      '',
    ]);

    // Delete after a confirmation.
    await page.getByRole('button', { name: 'Delete: Rina Shapiro' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this contact?' });
    expect(await confirm.textContent()).toContain('Rina Shapiro will be removed from your contacts.');
    await expectAccessible(page, 'delete contact');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => rowNames(page)).toEqual(['=Omer Katz', 'Dana Levi']);
    expect(await page.locator('.app-success').textContent()).toBe(
      'Rina Shapiro was deleted from your contacts.',
    );
    await expectAccessible(page, 'contacts');
    await browser.screenshot(page, 'app-contacts-en-desktop');
  });

  it('shows a read-only member the list and the export, and nothing that changes it', async () => {
    const { member } = await organizationWithContacts();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, member.email, member.password);
    await page
      .getByRole('navigation', { name: 'Business app' })
      .getByRole('link', { name: 'Contacts' })
      .click();
    await waitForPath(page, '/app/contacts');
    await eventually(() => page.locator('tr[data-contact]').count()).toBe(3);
    expect(await page.getByRole('link', { name: 'Export CSV' }).count()).toBe(1);
    for (const name of ['Add a contact', 'Import CSV']) {
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await page.getByRole('button', { name: /^(Edit|Delete): / }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    await expectAccessible(page, 'contacts, read only');
    await browser.screenshot(page, 'app-contacts-read-only-en-desktop');
  });

  it('says inside the shell that the list could not be loaded, and loads it with Try again', async () => {
    const { sender } = await organizationWithContacts();
    for (const [language, words] of [
      ['en', en],
      ['he', he],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, sender, DESKTOP, language);
      // The list's request fails as a dropped connection does: no server answer at all.
      const list = (url: URL) => url.pathname === '/api/contacts';
      await page.route(list, (route) => route.abort('connectionreset'));
      await page.goto(`${baseUrl}/app/contacts`);
      const failed = page.getByRole('alert').filter({ hasText: words['workspace.unreachable'] });
      await eventually(() => failed.count()).toBe(1);
      expect(await failed.textContent()).toContain(words['workspace.loadFailed']);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words['error.generic.title']);
      // The shell stays around it: the navigation and the user menu.
      expect(await page.getByRole('navigation', { name: words['workspace.nav.label'] }).count()).toBe(1);
      expect(await page.locator('.user-menu').count()).toBe(1);
      await expectAccessible(page, `contacts not loaded (${language})`);
      await browser.screenshot(page, `app-contacts-unreachable-${language}-desktop`);
      await page.unroute(list);
      await page.getByRole('button', { name: words['workspace.retry'] }).click();
      await eventually(() => page.locator('tr[data-contact]').count()).toBe(3);
      expect(await page.getByRole('alert').filter({ hasText: words['workspace.unreachable'] }).count()).toBe(
        0,
      );
      await page.close();
    }
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    const { sender } = await organizationWithContacts();
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, sender, viewport, language);
      await openContacts(page);
      await eventually(() => page.locator('tr[data-contact]').count()).toBe(3);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('אנשי קשר');
        expect(await page.getByTestId('contacts-summary').textContent()).toContain('3 אנשי קשר');
      }
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `contacts (${language}, ${device})`);
      await browser.screenshot(page, `app-contacts-${language}-${device}`);

      // The add dialog, filled in, fits and passes too.
      await page.getByRole('button', { name: language === 'he' ? 'הוספת איש קשר' : 'Add a contact' }).click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      await page.locator('#contact-name').fill(language === 'he' ? 'אבי לוי' : 'Avi Levi');
      await page.locator('#contact-email').fill('avi@example.com');
      await page.locator('#contact-phone').fill('+972 50 765 4321');
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `add contact (${language}, ${device})`);
      await browser.screenshot(page, `app-contacts-add-${language}-${device}`);
      await page.locator('#contact-title').press('Escape');
    }
  });
});
