// The signer page's signatures and uploads in a real browser against a real Sigil app: a signer adopts a drawn
// signature once and puts it in three fields with a click each, adopts typed initials, uploads a stamp, a PDF and
// an image from their fields, and the final PDF holds them; a Hebrew signer on a touch phone is led right to left,
// adopts a typed Hebrew signature and taps it into three fields, and picks a date in the calendar in Hebrew (the
// week from Sunday, the keyboard's moves right to left), written in the field's DD/MM/YYYY. axe-core's WCAG 2.1
// AA rules pass on every state. The plain fields, two signers and a phone's zoom are in signer-page.test.ts.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { addDays, addMonths, calendarWords, today } from '../../web/src/lib/signer/calendar.ts';
import { formatDate } from '../../web/src/lib/signer/dates.ts';
import { PHONE, pageWidth } from '../support/browser.ts';
import { encodePng } from '../support/png.ts';
import {
  closeSignerPages,
  documentShown,
  envelopeStatus,
  eventually,
  expectAccessible,
  finalPdf,
  focusedField,
  imageLoaded,
  newSignerPage,
  openSignerPages,
  type SignerPages,
  saved,
  screenshot,
  sendToClient,
} from '../support/signer-pages.ts';

let pages: SignerPages;

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

describe('the signer page: signatures, uploads and a Hebrew phone', () => {
  it('adopts a drawn signature once and puts it in three fields, typed initials, and uploads from their fields', async () => {
    const envelope = await sendToClient(pages, pages.templates.signatures, 'Signature agreement');
    const page = await newSignerPage(pages);
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
    await screenshot(pages, page, 'signer-adopt-drawn-en-desktop');
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
    await screenshot(pages, page, 'signer-upload-sheet-en-desktop');
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
    await screenshot(pages, page, 'signer-signature-filled-en');
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

  it('leads a Hebrew signer on a touch phone right to left, taps a typed Hebrew signature into three fields and picks a date in the calendar', async () => {
    const envelope = await sendToClient(pages, pages.templates.rows, 'הסכם שורות', {
      fullName: 'דנה לוי',
      language: 'he',
    });
    const page = await newSignerPage(pages, PHONE, 'he-IL', true);
    await page.goto(envelope.url);
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await documentShown(page);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(pages, page, 'signer-ready-he-phone');
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
    await screenshot(pages, page, 'signer-adopt-typed-he-phone');
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
    // The date picked in the calendar, in Hebrew: the week from Sunday, today chosen to begin with; a month on
    // (PageDown) and a day on (ArrowLeft: forward, right to left), then Enter writes it in DD/MM/YYYY.
    const date = page.getByLabel('תאריך', { exact: true });
    expect(await date.getAttribute('placeholder')).toBe('יי/חח/שששש');
    await page.getByRole('button', { name: 'בחירת תאריך' }).tap();
    const calendar = page.getByRole('dialog', { name: 'בחירת תאריך' });
    await eventually(() => calendar.isVisible()).toBe(true);
    const start = today();
    const picked = addDays(addMonths(start, 1), 1);
    const words = calendarWords('he', start, 0);
    expect(await calendar.locator('h2').textContent()).toBe(words.title);
    expect(await calendar.locator('th').first().textContent()).toBe(words.weekdays[0]);
    await eventually(() => page.evaluate('document.activeElement?.dataset.date')).toBe(start);
    await screenshot(pages, page, 'signer-date-picker-he-phone');
    await expectAccessible(page);
    await page.keyboard.press('PageDown');
    expect(await calendar.locator('h2').textContent()).toBe(
      calendarWords('he', addMonths(start, 1), 0).title,
    );
    await page.keyboard.press('ArrowLeft');
    await eventually(() => page.evaluate('document.activeElement?.dataset.date')).toBe(picked);
    await page.keyboard.press('Enter');
    await eventually(() => calendar.isVisible()).toBe(false);
    expect(await date.inputValue()).toBe(formatDate(picked, 'DD/MM/YYYY'));
    await page.getByLabel('טקסט 1').tap();
    await page.keyboard.type('שלום');
    await saved(page);
    await screenshot(pages, page, 'signer-midway-he-phone');
    await expectAccessible(page);
    await page.getByLabel('אני מסכים/ה').tap();
    await page.getByRole('button', { name: 'סיום' }).tap();
    await eventually(() => page.locator('h1').textContent()).toBe('תודה, סיימת');
    await screenshot(pages, page, 'signer-completed-he-phone');
    await expectAccessible(page);
    await expect.poll(() => envelopeStatus(pages, envelope.id), { interval: 500 }).toBe('Completed');
    const final = await finalPdf(pages, envelope.id);
    expect(final.text).toContain(formatDate(picked, 'DD/MM/YYYY'));
  });
});
