// The signer page (/sign/<token>) in a real browser against a real Sigil app, filling every field where it stands
// on the document: two sequential signers invited by email take every plain field in place with the mouse, led by
// Start and Next (required fields first, then optional ones, in reading order, "3 of 7"), and Finish once the
// required ones are filled, with no Save step anywhere; a signer adopts a drawn signature once and puts it in three
// fields with a click each, adopts typed initials, uploads a stamp, a PDF and an image from their fields, and the
// final PDF holds them; a Hebrew signer on a touch phone is led right to left, adopts a typed Hebrew signature and
// taps it into three fields, types a date in the field's DD/MM/YYYY; a 375-pixel phone in both languages zooms a
// focused field to a readable size. axe-core's WCAG 2.1 AA rules pass on every state (ready, mid-way, the adopt
// dialog, an upload's sheet, completed). Screenshots go to test/artifacts/web/. The link's other states (approve,
// view, decline, cancelled, expired, unknown, one-time code, consent) are in signer-page-states.test.ts.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { DESKTOP, PHONE, pageWidth } from '../support/browser.ts';
import { captured } from '../support/dev-notifications.ts';
import { encodePng } from '../support/png.ts';
import {
  apiSha256,
  closeSignerPages,
  documentShown,
  downloadedSha256,
  envelopeStatus,
  eventually,
  expectAccessible,
  finalPdf,
  focusedField,
  imageLoaded,
  invitedLink,
  issuedLink,
  openSignerPages,
  type SignerPages,
  saved,
  sendEnvelope,
  sendToClient,
  TERMS,
  uniqueEmail,
} from '../support/signer-pages.ts';

let pages: SignerPages;

function newPage(viewport = DESKTOP, locale = 'en-US', touch = false): Promise<Page> {
  return pages.browser.newPage(viewport, locale, { touch });
}

function screenshot(page: Page, name: string): Promise<void> {
  return pages.browser.screenshot(page, name);
}

/** Draws a wavy line across a canvas with the mouse. */
async function drawOn(page: Page, canvas: ReturnType<Page['locator']>): Promise<void> {
  const area = await canvas.boundingBox();
  if (!area) throw new Error('no pad');
  await page.mouse.move(area.x + 30, area.y + area.height * 0.6);
  await page.mouse.down();
  for (let step = 1; step <= 24; step += 1) {
    await page.mouse.move(area.x + 30 + step * 12, area.y + area.height * (0.5 + 0.25 * Math.sin(step / 2)), {
      steps: 2,
    });
  }
  await page.mouse.up();
}

beforeAll(async () => {
  pages = await openSignerPages();
});

afterAll(async () => {
  await closeSignerPages(pages);
});

describe('the signer page', () => {
  it('leads two sequential signers through every plain field in place, required first, and finishes without a Save step', async () => {
    const clientEmail = uniqueEmail('dana');
    const providerEmail = uniqueEmail('sam');
    const envelope = await sendEnvelope(
      pages,
      'Services agreement',
      { email: clientEmail, deliveryChannel: 'Email' },
      { email: providerEmail, deliveryChannel: 'Email' },
    );
    const page = await newPage();
    await page.goto(await invitedLink(pages, clientEmail));
    await eventually(() => page.locator('h1').textContent()).toBe('Services agreement');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('.meta').textContent()).toContain('Dana Levi');
    expect(await page.getByTestId('recipient-status').textContent()).toBe('Opened');
    expect(await page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting for you');
    // Every field stands on the page: Read-only text shown as it is, the others as their inputs.
    await documentShown(page);
    expect(await page.locator('.pages [data-field-type="Read-only text"] .readonly').textContent()).toBe(
      TERMS,
    );
    expect(await page.locator('.pages [data-field-id]').count()).toBe(11);
    const finish = page.getByRole('button', { name: 'Finish' });
    expect(await finish.isDisabled()).toBe(true);
    // Before completion the signer can download the document they are asked to sign; no delegation here.
    expect(await page.getByRole('link', { name: 'Download the original' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Assign to someone else' }).count()).toBe(0);
    await screenshot(page, 'signer-ready-en-desktop');
    await expectAccessible(page);

    // Start and Next: the required fields first, then the optional ones, in reading order.
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await eventually(() => focusedField(page)).toBe('Client name');
    expect(await page.getByTestId('guide-position').textContent()).toBe('1 of 10');
    const order: string[] = [];
    for (let step = 0; step < 4; step += 1) {
      await page.getByRole('button', { name: 'Next', exact: true }).click();
      await eventually(() => focusedField(page)).not.toBe(order.at(-1) ?? 'Client name');
      order.push(await focusedField(page));
    }
    expect(order).toEqual(['Start date', 'Company', 'Notes', 'Client email']);
    expect(await page.getByTestId('guide-position').textContent()).toBe('5 of 10');

    // A refused value keeps the server's message beside its field; a date that is not one, the page's own.
    const email = page.getByLabel('Client email');
    await email.click();
    await page.keyboard.type('not-an-address');
    await email.blur();
    const emailError = page.locator('[data-field-type="Email"] .error');
    await eventually(() => emailError.isVisible()).toBe(true);
    expect(await emailError.textContent()).toMatch(/Client email/);
    const date = page.getByLabel('Start date');
    expect(await date.getAttribute('placeholder')).toBe('DD/MM/YYYY');
    await date.fill('31/02/2026');
    await date.blur();
    await eventually(() => page.locator('[data-field-type="Date"] .error').textContent()).toContain(
      'Write it as DD/MM/YYYY',
    );
    await screenshot(page, 'signer-field-error-en');

    // Filled where they stand, with the mouse.
    for (const [label, text] of [
      ['Client name', 'Dana Levi'],
      ['Company', 'Levi Design'],
      ['Client email', 'dana@example.com'],
      ['Client phone', '+972501234567'],
      ['Client ID', '123456782'],
    ] as const) {
      await page.getByLabel(label).click();
      await page.getByLabel(label).fill(text);
    }
    await page.getByLabel('Notes').fill('First line\nSecond line');
    await date.fill('01/12/2026');
    await page.getByLabel('Agree to terms').click();
    await page.getByRole('radio', { name: 'Pro' }).click();
    await page.getByLabel('City').selectOption('Eilat');
    await page.getByLabel('Client ID').blur();
    await saved(page);
    expect(await emailError.count()).toBe(0);
    // Finish is there as soon as the required fields are filled.
    await eventually(() => finish.isDisabled()).toBe(false);
    expect(await page.getByTestId('awaiting').textContent()).toContain('No fields are waiting');
    await screenshot(page, 'signer-midway-en-desktop');
    await expectAccessible(page);

    // A reload keeps every value: they come back from the server (the date in the field's format).
    await page.reload();
    await eventually(() => page.getByLabel('Client name').inputValue()).toBe('Dana Levi');
    expect(await page.getByLabel('Notes').inputValue()).toBe('First line\nSecond line');
    expect(await page.getByLabel('Start date').inputValue()).toBe('01/12/2026');
    expect(await page.getByLabel('Client email').inputValue()).toBe('dana@example.com');
    expect(await page.getByLabel('Agree to terms').isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'Pro' }).isChecked()).toBe(true);
    expect(await page.getByLabel('City').inputValue()).toBe('Eilat');
    expect(await page.getByTestId('recipient-status').textContent()).toBe('In progress');

    // Finish without the consent ticked says so at the box; then, by keyboard, it completes.
    await finish.click();
    await eventually(() => page.locator('#consent-missing').isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('consent-box');
    await page.keyboard.press('Space');
    expect(await captured(pages.baseUrl, `kind=invitation&to=${encodeURIComponent(providerEmail)}`)).toEqual(
      [],
    );
    await finish.focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await page.locator('.state').textContent()).toContain('When everyone has finished');
    await screenshot(page, 'signer-completed-en');
    await expectAccessible(page);
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');

    // The second signer, in turn now: the invitation goes out.
    const second = await newPage();
    await second.goto(await invitedLink(pages, providerEmail));
    await eventually(() => second.locator('h1').textContent()).toBe('Services agreement');
    await second.getByLabel('Provider name').fill('Sam Cohen');
    await second.getByLabel('Provider name').blur();
    await second.getByLabel('I agree').check();
    await second.getByRole('button', { name: 'Finish' }).click();
    await eventually(() => second.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await second.locator('.state').textContent()).toContain('You were the last one');
    await expect.poll(() => envelopeStatus(pages, envelope.id), { interval: 500 }).toBe('Completed');

    // The first signer's link, completed now, downloads the same signed document and audit trail as /api/v1.
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');
    const signed = page.getByRole('link', { name: 'Download the signed document' });
    await eventually(() => signed.isVisible()).toBe(true);
    expect(await downloadedSha256(page, signed)).toBe(await apiSha256(pages, envelope.id, 'final-pdf'));
    const trail = page.getByRole('link', { name: 'Download the audit trail' });
    expect(await downloadedSha256(page, trail)).toBe(await apiSha256(pages, envelope.id, 'audit-trail'));
    await screenshot(page, 'signer-completed-downloads-en');
    await expectAccessible(page);
  });

  it('adopts a drawn signature once and puts it in three fields, typed initials, and uploads from their fields', async () => {
    const envelope = await sendToClient(pages, pages.templates.signatures, 'Signature agreement');
    const page = await newPage();
    await page.goto(envelope.url);
    await eventually(() => page.locator('h1').textContent()).toBe('Signature agreement');
    expect(await page.getByTestId('awaiting').textContent()).toContain('6 fields are waiting for you');
    await documentShown(page);
    // Fields are where the template put them: Client name at (40, 40) points of an A4 page.
    const sheet = await page.locator('.pages .page').boundingBox();
    const nameBox = await page.locator('.pages [data-field-type="Full name"]').boundingBox();
    if (!sheet || !nameBox) throw new Error('no layout');
    expect(nameBox.x - sheet.x).toBeCloseTo((40 / 595.28) * sheet.width, -1);
    // Fields named only by their type are called so, numbered in reading order.
    const signatures = ['Signature 1', 'Signature 2', 'Signature 3'];
    for (const name of signatures) {
      expect(await page.getByRole('button', { name: `${name}: select to fill` }).count(), name).toBe(1);
    }
    await page.getByLabel('Client name').fill('Dana Levi');

    // The first signature field opens the dialog: drawn with the mouse, with the typed name kept.
    await page.getByRole('button', { name: 'Signature 1: select to fill' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adopt your signature' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel('Full name').inputValue()).toBe('Dana Levi');
    await dialog.getByLabel('Full name').fill('Dana R. Levi');
    await dialog.getByRole('radio', { name: 'Draw' }).check();
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() => dialog.getByRole('alert').textContent()).toContain('Draw inside the box first');
    await drawOn(page, dialog.getByTestId('signature-pad'));
    await screenshot(page, 'signer-adopt-drawn-en-desktop');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() => dialog.isVisible()).toBe(false);
    // One click each for the other two: no dialog again.
    for (const name of signatures.slice(1)) {
      await page.getByRole('button', { name: `${name}: select to fill` }).click();
      expect(await dialog.count()).toBe(0);
    }
    for (const name of signatures) {
      const field = page.getByRole('button', { name: `${name}: filled, select to change` });
      await eventually(() => imageLoaded(field.locator('img'))).toBe(true);
    }

    // Initials, typed in a signature font, with the keyboard.
    await page.getByRole('button', { name: 'Initials: select to fill' }).focus();
    await page.keyboard.press('Enter');
    const initials = page.getByRole('dialog', { name: 'Adopt your initials' });
    await eventually(() => initials.getByLabel('Initials').inputValue()).toBe('DRL');
    await initials.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() =>
      page.getByRole('button', { name: 'Initials: filled, select to change' }).count(),
    ).toBe(1);

    // Uploads open their sheet from the field: the limits, a wrong type refused before sending, then saved.
    await page.getByRole('button', { name: 'Contract copy: select to fill' }).click();
    const upload = page.getByTestId('upload-sheet');
    await eventually(() => upload.isVisible()).toBe(true);
    expect(await upload.textContent()).toContain('PDF, PNG or JPEG, up to 4 MB');
    const input = page.locator('#upload-sheet-input');
    await input.setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('not a pdf'),
    });
    await eventually(() => upload.getByRole('alert').textContent()).toContain('not accepted here');
    await screenshot(page, 'signer-upload-sheet-en-desktop');
    await expectAccessible(page);
    const contractPdf = Buffer.from(await buildDemoPdf('Contract copy'));
    await input.setInputFiles({
      name: 'contract-copy.pdf',
      mimeType: 'application/pdf',
      buffer: contractPdf,
    });
    await eventually(() => upload.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Stamp: select to fill' }).click();
    await input.setInputFiles({
      name: 'stamp.png',
      mimeType: 'image/png',
      buffer: encodePng(48, 24, (x, y) => [180, 20 + x, 40 + y, 255]),
    });
    await page.getByRole('button', { name: 'Photo ID: select to fill' }).click();
    await input.setInputFiles({
      name: 'photo.png',
      mimeType: 'image/png',
      buffer: encodePng(32, 32, (x, y) => [x * 8, y * 8, 128, 255]),
    });
    await saved(page);
    expect(await page.locator('[data-field-type="File upload"]').textContent()).toContain(
      'contract-copy.pdf',
    );
    expect(await page.getByTestId('awaiting').textContent()).toContain('No fields are waiting');
    await screenshot(page, 'signer-signature-filled-en');
    await expectAccessible(page);

    // A reload keeps them: the saved images are fetched back with the link into their fields.
    await page.reload();
    for (const name of [...signatures, 'Initials', 'Stamp', 'Photo ID']) {
      const field = page.getByRole('button', { name: `${name}: filled, select to change` });
      await eventually(() => imageLoaded(field.locator('img'))).toBe(true);
    }
    await page.getByLabel('I agree').check();
    await page.getByRole('button', { name: 'Finish' }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('Thank you, you are done');
    await expect.poll(() => envelopeStatus(pages, envelope.id), { interval: 500 }).toBe('Completed');
    const final = await finalPdf(pages, envelope.id);
    expect(final.text).toContain('Dana Levi');
    expect(final.text).toContain('Dana R. Levi');
    expect(final.text).toContain('DRL');
    expect(final.attachments.get('contract-copy.pdf')).toBe(contractPdf.byteLength);
  });

  it('leads a Hebrew signer on a touch phone right to left, and taps a typed Hebrew signature into three fields', async () => {
    const envelope = await sendToClient(pages, pages.templates.rows, 'הסכם שורות', {
      fullName: 'דנה לוי',
      language: 'he',
    });
    const page = await newPage(PHONE, 'he-IL', true);
    await page.goto(envelope.url);
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await documentShown(page);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'signer-ready-he-phone');
    await expectAccessible(page);

    // Required first (the signatures' row, from its right), then the date, then the texts from the right.
    await page.getByRole('button', { name: 'התחלה', exact: true }).tap();
    const order = [await focusedField(page)];
    for (let step = 0; step < 6; step += 1) {
      await page.getByRole('button', { name: 'הבא', exact: true }).tap();
      await eventually(() => focusedField(page)).not.toBe(order.at(-1));
      order.push(await focusedField(page));
    }
    expect(order).toEqual([
      'חתימה 1: בחרו כדי למלא',
      'חתימה 2: בחרו כדי למלא',
      'חתימה 3: בחרו כדי למלא',
      'תאריך',
      'טקסט 1',
      'טקסט 2',
      'טקסט 3',
    ]);
    const first = await page.getByRole('button', { name: 'חתימה 1: בחרו כדי למלא' }).boundingBox();
    const second = await page.getByRole('button', { name: 'חתימה 2: בחרו כדי למלא' }).boundingBox();
    expect(first && second && first.x > second.x).toBe(true);

    // The first signature field opens the dialog; the typed Hebrew name in a signature font is adopted.
    await page.getByRole('button', { name: 'חתימה 1: בחרו כדי למלא' }).tap();
    const dialog = page.getByRole('dialog', { name: 'אימוץ החתימה שלך' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel('שם מלא').inputValue()).toBe('דנה לוי');
    await screenshot(page, 'signer-adopt-typed-he-phone');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'אימוץ וחתימה' }).tap();
    await eventually(() => dialog.isVisible()).toBe(false);
    for (const name of ['חתימה 2', 'חתימה 3']) {
      await page.getByRole('button', { name: `${name}: בחרו כדי למלא` }).tap();
    }
    for (const name of ['חתימה 1', 'חתימה 2', 'חתימה 3']) {
      const field = page.getByRole('button', { name: `${name}: מולא, בחרו כדי לשנות` });
      await eventually(() => imageLoaded(field.locator('img'))).toBe(true);
    }
    // The date in the field's format, typed with the phone's keyboard; the text by tapping it.
    const date = page.getByLabel('תאריך', { exact: true });
    expect(await date.getAttribute('placeholder')).toBe('יי/חח/שששש');
    await date.tap();
    await page.keyboard.type('05/12/2026');
    await page.getByLabel('טקסט 1').tap();
    await page.keyboard.type('שלום');
    await saved(page);
    await screenshot(page, 'signer-midway-he-phone');
    await expectAccessible(page);
    await page.getByLabel('אני מסכים/ה').tap();
    await page.getByRole('button', { name: 'סיום' }).tap();
    await eventually(() => page.locator('h1').textContent()).toBe('תודה, סיימת');
    await screenshot(page, 'signer-completed-he-phone');
    await expectAccessible(page);
    await expect.poll(() => envelopeStatus(pages, envelope.id), { interval: 500 }).toBe('Completed');
    const final = await finalPdf(pages, envelope.id);
    expect(final.text).toContain('05/12/2026');
  });

  it('fits a 375-pixel phone in both languages and zooms a focused field to a readable size', async () => {
    const envelope = await sendEnvelope(pages, 'Phone-sized agreement with a long title that wraps');
    const client = await issuedLink(pages, envelope, 'Client');
    for (const language of ['en', 'he'] as const) {
      const page = await newPage(PHONE, language === 'he' ? 'he-IL' : 'en-US', true);
      await page.goto(`${client}?lang=${language}`);
      await eventually(() => page.getByTestId('awaiting').isVisible()).toBe(true);
      await documentShown(page);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      await screenshot(page, `signer-ready-${language}-phone`);
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(page);
      // Fit to the width, the name's text is small; focused, the pages zoom until it reads at 12 px or more.
      const field = page.locator('.pages [data-field-type="Full name"]');
      const fontSize = () =>
        field.evaluate((element: { style: { fontSize: string } }) =>
          Number.parseFloat(element.style.fontSize),
        );
      expect(await fontSize()).toBeLessThan(12);
      await page.getByRole('button', { name: language === 'he' ? 'התחלה' : 'Start', exact: true }).tap();
      await eventually(fontSize).toBeGreaterThanOrEqual(12);
      const shown = await field.boundingBox();
      expect(shown && shown.x >= 0 && shown.x + shown.width <= PHONE.width).toBe(true);
      await screenshot(page, `signer-zoomed-${language}-phone`);
    }
  });
});
