// The templates list and the template builder (/app/templates, /app/templates/{id}) in a real browser against a
// real app (docs/templates.md): a sender uploads a PDF from the list, and in the builder drags a Signature and
// a Date for one role and a Dropdown for another from the palette onto the page — at zoom 75% and 150% —,
// moves one with the keyboard, sets the Dropdown's options, undoes and redoes, is refused publishing with the
// reasons beside the field, fixes it and publishes. The stored coordinates are where the pointer dropped the
// fields at either zoom, and the final PDF (pdf/render-final-pdf.ts) draws each value inside its box, as
// pdf.js reads it back. The list duplicates, filters and archives. Hebrew lays the builder out right to left
// (the PDF stays left to right); a 375-pixel phone gets the read-only builder with its message; every screen
// passes axe-core's WCAG 2.1 AA rules; screenshots go to test/artifacts/web/ (app-templates-*.png).
import { degrees, PDFDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TemplateDetail } from '../../domain/template-builder.ts';
import { renderFinalPdf } from '../../pdf/render-final-pdf.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  signIn,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => {
  ({ harness, browser, baseUrl } = opened);
});

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

/**
 * The lease: page 1 A4 upright; page 2 A4 turned a quarter clockwise with a crop box inside its media box, so it
 * is displayed 760 × 500 points with its origin away from the media box's — the space fields are placed in.
 */
async function leasePdf(): Promise<Uint8Array> {
  const document = await PDFDocument.load(await buildDemoPdf('Lease agreement', 2), {
    updateMetadata: false,
  });
  const turned = document.getPage(1);
  turned.setCropBox(40, 50, 500, 760);
  turned.setRotation(degrees(90));
  return document.save();
}

/** The builder has drawn every page at the zoom it shows. */
async function pagesDrawn(page: Page, zoom: number): Promise<void> {
  await eventually(() =>
    page.evaluate(
      `[...document.querySelectorAll('.pages canvas')].every((canvas) => canvas.dataset.rendered === '${zoom}')`,
    ),
  ).toBe(true);
}

async function setZoom(page: Page, zoom: number): Promise<void> {
  await page.locator('#zoom').selectOption(String(zoom));
  await pagesDrawn(page, zoom);
}

/** The screen point of a point of page 1 (PDF points from its top-left corner) at the zoom shown. */
async function screenPoint(page: Page, pageNumber: number, x: number, y: number, zoom: number) {
  const figure = page.locator(`.pages .page[data-page="${pageNumber}"]`);
  // The pages scroll in their own area: bring the point to the middle of what it shows of them.
  await page.evaluate(`(() => {
    const area = document.querySelector('.canvas-area');
    const page = document.querySelector('.pages .page[data-page="${pageNumber}"]').getBoundingClientRect();
    const shown = area.getBoundingClientRect();
    const top = Math.max(shown.top, 0);
    const bottom = Math.min(shown.bottom, window.innerHeight);
    area.scrollBy(page.left + ${x * zoom} - (shown.left + shown.right) / 2, page.top + ${y * zoom} - (top + bottom) / 2);
  })()`);
  const box = await figure.boundingBox();
  if (!box) throw new Error('the page is not shown');
  return { x: box.x + x * zoom, y: box.y + y * zoom };
}

/** Drags a palette item with the mouse and drops it with the pointer at (x, y) points of the page. */
async function dragFromPalette(
  page: Page,
  type: string,
  pageNumber: number,
  x: number,
  y: number,
  zoom: number,
) {
  const item = page.locator(`.palette-item[data-type="${type}"]`);
  await item.scrollIntoViewIfNeeded();
  const to = await screenPoint(page, pageNumber, x, y, zoom);
  const from = await item.boundingBox();
  if (!from) throw new Error(`no palette item ${type}`);
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 20, from.y + from.height / 2 + 5, { steps: 4 });
  await page.mouse.move(to.x, to.y, { steps: 12 });
  // Mid-drag the page shows the new field under the pointer, its top-left corner there, and on top of
  // everything else at that point (the preview lets the pointer through; it is asked with its hit-testing on).
  const preview = page.locator(`.page[data-page="${pageNumber}"] .drop-preview[data-type="${type}"]`);
  await eventually(() => preview.count()).toBe(1);
  const shown = await preview.boundingBox();
  if (!shown) throw new Error('the drop preview has no box');
  expect(Math.abs(shown.x - to.x)).toBeLessThan(1.5);
  expect(Math.abs(shown.y - to.y)).toBeLessThan(1.5);
  expect(await topmostIsPreview(page, to.x + 3, to.y + 3)).toBe(true);
  await page.mouse.up();
  await eventually(() => page.locator('.drop-preview').count()).toBe(0);
  return to;
}

/** Whether the drop preview is what a person sees at (x, y) of the screen. */
function topmostIsPreview(page: Page, x: number, y: number): Promise<boolean> {
  return page.evaluate(`(() => {
    const preview = document.querySelector('.drop-preview');
    if (!preview) return false;
    preview.style.pointerEvents = 'auto';
    const hit = document.elementFromPoint(${x}, ${y});
    preview.style.pointerEvents = '';
    return Boolean(hit && preview.contains(hit));
  })()`);
}

/** The fields as the builder shows them: their label, type and box in points, read from the page. */
async function detailOf(user: SignedInUser, id: string): Promise<TemplateDetail> {
  return callAs<TemplateDetail>(baseUrl, user, 'GET', `/api/templates/${id}`);
}

/** A field's place as the builder's inspector shows it (the field selected first). */
async function inspected(page: Page, type: string) {
  await page.locator(`.field[data-type="${type}"]`).first().focus();
  await page.keyboard.press('Enter');
  await eventually(() => page.locator('#inspector-title').textContent()).not.toBe('Field settings');
  return {
    x: Number(await page.locator('#field-x').inputValue()),
    y: Number(await page.locator('#field-y').inputValue()),
  };
}

function field(detail: TemplateDetail, type: string) {
  const found = detail.fields.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no ${type} field`);
  return found;
}

/** Each text item of a PDF with its origin in display space (points from the page's top-left corner). */
async function textPositions(bytes: Uint8Array) {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const items: { page: number; str: string; x: number; y: number; width: number }[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const pdfPage = await pdf.getPage(number);
    const viewport = pdfPage.getViewport({ scale: 1 });
    for (const item of (await pdfPage.getTextContent()).items) {
      if (!('str' in item)) continue;
      const text = item as TextItem;
      const [x, y] = viewport.convertToViewportPoint(text.transform[4], text.transform[5]);
      items.push({ page: number, str: text.str, x, y, width: text.width });
    }
  }
  await task.destroy();
  return items;
}

describe('the template builder', () => {
  it('uploads a PDF, places fields by dragging at two zooms, moves one by keyboard, undoes, publishes where the PDF draws them', async () => {
    const sender = await signedInUser(harness, { role: 'sender', fullName: 'Dana Levi' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.locator('#app-nav').getByRole('link', { name: 'Templates' }).click();
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Templates');
    await eventually(() => page.getByText('There are no templates yet.').count()).toBe(1);
    await expectAccessible(page, 'templates, none');
    await browser.screenshot(page, 'app-templates-empty-en-desktop');

    // New template: a PDF is required, a file that is not a PDF is refused at the file.
    await page.getByRole('button', { name: 'New template' }).click();
    const dialog = page.getByRole('dialog', { name: 'New template from a PDF' });
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Create and open the builder' }).click();
    await eventually(() => dialog.getByText('Choose a PDF file.').count()).toBe(1);
    await page
      .locator('#template-pdf')
      .setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('not a pdf') });
    await page.getByRole('textbox', { name: 'Name' }).fill('Lease agreement');
    await dialog.getByRole('button', { name: 'Create and open the builder' }).click();
    await eventually(() => dialog.locator('#template-pdf-error').textContent()).toMatch(/PDF/);
    expect(await page.locator('#template-pdf').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#template-pdf').setInputFiles({
      name: 'lease.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(await leasePdf()),
    });
    await expectAccessible(page, 'new template');
    await dialog.getByRole('button', { name: 'Create and open the builder' }).click();
    await waitForPath(page, /^\/app\/templates\/[0-9a-f-]{36}$/);
    const templateId = new URL(page.url()).pathname.split('/').pop() as string;
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Lease agreement');
    // The pages open as wide as their area.
    await eventually(() => page.locator('.pages canvas[data-rendered]').count()).toBe(2);
    const fitted = Number(await page.locator('.pages').getAttribute('data-zoom'));
    const area = await page.locator('.canvas-area').boundingBox();
    expect(fitted * 595.28).toBeLessThanOrEqual(area?.width ?? 0);
    expect(fitted * 595.28).toBeGreaterThan((area?.width ?? 0) - 60);

    // Two roles: the first one is there already; rename it, add the second.
    const firstRole = page.locator('.roles li').first();
    await firstRole.getByLabel('Name').fill('Tenant');
    await firstRole.getByLabel('Name').press('Tab');
    await page.getByRole('button', { name: 'Add a role' }).click();
    const secondRole = page.locator('.roles li').nth(1);
    await secondRole.getByLabel('Name').fill('Landlord');
    await secondRole.getByLabel('Name').press('Tab');
    await eventually(() => page.locator('#active-role option').allTextContents()).toEqual([
      'Tenant',
      'Landlord',
    ]);

    // At 75%: a Signature and a Date for the Tenant, dropped with the pointer.
    await setZoom(page, 0.75);
    await page.locator('#active-role').selectOption({ label: 'Tenant' });
    await dragFromPalette(page, 'Signature', 1, 60, 640, 0.75);
    await eventually(() => page.locator('.field[data-type="Signature"]').count()).toBe(1);
    await dragFromPalette(page, 'Date', 1, 300, 660, 0.75);
    await eventually(() => page.locator('.field[data-type="Date"]').count()).toBe(1);
    // At 150%: a Dropdown for the Landlord.
    await setZoom(page, 1.5);
    await page.locator('#active-role').selectOption({ label: 'Landlord' });
    await dragFromPalette(page, 'Dropdown', 1, 80, 300, 1.5);
    await eventually(() => page.locator('.field[data-type="Dropdown"]').count()).toBe(1);
    // And a Text for the Tenant on page 2, turned a quarter and cropped, at 75%.
    await setZoom(page, 0.75);
    await page.locator('#active-role').selectOption({ label: 'Tenant' });
    await dragFromPalette(page, 'Text', 2, 100, 200, 0.75);
    await eventually(() => page.locator('.page[data-page="2"] .field[data-type="Text"]').count()).toBe(1);
    await setZoom(page, 1.5);
    await expectAccessible(page, 'builder with fields');

    // The Date moves by keyboard: three points right, ten down (Shift).
    const date = page.locator('.field[data-type="Date"]');
    await date.focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#inspector-title').textContent()).toBe('Date field');
    const dropped = {
      x: Number(await page.locator('#field-x').inputValue()),
      y: Number(await page.locator('#field-y').inputValue()),
    };
    for (let step = 0; step < 3; step += 1) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const keyed = (value: number) => String(Math.round(value * 100) / 100);
    await eventually(() => page.locator('#field-x').inputValue()).toBe(keyed(dropped.x + 3));
    expect(await page.locator('#field-y').inputValue()).toBe(keyed(dropped.y + 10));
    // Ctrl+Z takes the last step back, Ctrl+Shift+Z does it again.
    await page.keyboard.press('Control+z');
    await eventually(() => page.locator('#field-y').inputValue()).toBe(keyed(dropped.y));
    await page.keyboard.press('Control+Shift+z');
    await eventually(() => page.locator('#field-y').inputValue()).toBe(keyed(dropped.y + 10));

    // The Dropdown's options, then Undo and Redo with the buttons.
    await page.locator('.field[data-type="Dropdown"]').click();
    await eventually(() => page.locator('#inspector-title').textContent()).toBe('Dropdown field');
    await page.locator('#field-options').fill('None\nOne space\nTwo spaces');
    await page.locator('#field-label').click();
    await page.locator('#field-label').fill('Parking');
    await page.locator('#field-label').press('Tab');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await eventually(() => page.locator('#field-label').inputValue()).toBe('Dropdown');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await eventually(() => page.locator('#field-options').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await eventually(() => page.locator('#field-options').inputValue()).toBe('None\nOne space\nTwo spaces');
    expect(await page.locator('#field-label').inputValue()).toBe('Parking');

    // Publishing is refused while the Landlord, who has the Dropdown, only views: the reasons are listed and
    // shown beside the field and the role.
    await secondRole.getByLabel('Recipient type').selectOption('Viewer');
    await page.getByRole('button', { name: 'Publish' }).click();
    await eventually(() => page.locator('#publish-problems').textContent()).toMatch(
      /To fix before publishing/,
    );
    await eventually(() =>
      page.getByRole('alert').filter({ hasText: 'cannot be published yet' }).count(),
    ).toBe(1);
    expect(await page.locator('.field.problem').count()).toBe(1);
    expect(await page.locator('.field.problem').getAttribute('data-type')).toBe('Dropdown');
    await page.locator('.problems-panel').getByRole('button', { name: 'Parking' }).click();
    await eventually(() => page.locator('#field-problems').textContent()).toMatch(/Viewer by default/);
    await expectAccessible(page, 'publishing refused');
    await browser.screenshot(page, 'app-templates-builder-refused-en-desktop');
    await secondRole.getByLabel('Recipient type').selectOption('Signer');
    await page.getByRole('button', { name: 'Publish' }).click();
    await eventually(() =>
      page.getByText('Published: version 1 is the one documents are sent with.').count(),
    ).toBe(1);
    expect(await page.locator('.problems-panel').count()).toBe(0);
    await browser.screenshot(page, 'app-templates-builder-en-desktop');

    // What was stored: where the pointer dropped each field, at either zoom (the keyboard's move added).
    const stored = await detailOf(sender, templateId);
    expect(stored.status).toBe('Published');
    expect(stored.roles.map((role) => [role.name, role.defaultRecipientType])).toEqual([
      ['Tenant', 'Signer'],
      ['Landlord', 'Signer'],
    ]);
    const signature = field(stored, 'Signature');
    const dateField = field(stored, 'Date');
    const dropdown = field(stored, 'Dropdown');
    for (const [placed, x, y] of [
      [signature, 60, 640],
      [dateField, 303, 670], // dropped at (300, 660), then moved by the keyboard
      [dropdown, 80, 300],
      [field(stored, 'Text'), 100, 200],
    ] as const) {
      expect(Math.abs(placed.x - x), `${placed.type} x ${placed.x}`).toBeLessThan(1.5);
      expect(Math.abs(placed.y - y), `${placed.type} y ${placed.y}`).toBeLessThan(1.5);
    }
    expect([signature.role, dateField.role, dropdown.role]).toEqual(['Tenant', 'Tenant', 'Landlord']);
    expect(stored.pages).toEqual([
      { width: 595.28, height: 841.89 },
      { width: 760, height: 500 },
    ]);
    expect(field(stored, 'Text').page).toBe(2);
    expect(dropdown).toMatchObject({ label: 'Parking', options: ['None', 'One space', 'Two spaces'] });

    // The builder shows each stored box at its place at any zoom: points times the zoom from the page's corner.
    for (const zoom of [0.75, 1.5]) {
      await setZoom(page, zoom);
      const pageBox = await page.locator('.pages .page[data-page="1"]').boundingBox();
      const shown = await page.locator('.field[data-type="Dropdown"]').boundingBox();
      expect(pageBox && shown).toBeTruthy();
      if (!pageBox || !shown) continue;
      expect(Math.abs(shown.x - pageBox.x - dropdown.x * zoom)).toBeLessThan(1);
      expect(Math.abs(shown.y - pageBox.y - dropdown.y * zoom)).toBeLessThan(1);
      expect(Math.abs(shown.width - dropdown.width * zoom)).toBeLessThan(1);
    }

    // The final PDF draws values inside those boxes (pdf.js reads the text's origin back).
    const finalPdf = await renderFinalPdf({
      basePdf: await leasePdf(),
      envelopeId: 'builder-test',
      completedAt: new Date('2026-05-01T10:00:00Z'),
      fields: stored.fields.map((placed) => ({
        type: placed.type,
        page: placed.page,
        x: placed.x,
        y: placed.y,
        width: placed.width,
        height: placed.height,
        value:
          placed.type === 'Dropdown'
            ? 'Two spaces'
            : placed.type === 'Date'
              ? '2026-05-01'
              : placed.type === 'Text'
                ? 'Turned page'
                : null,
      })),
    });
    const items = await textPositions(finalPdf);
    for (const [placed, text] of [
      [dropdown, 'Two spaces'],
      [dateField, '2026-05-01'],
      [field(stored, 'Text'), 'Turned page'],
    ] as const) {
      const item = items.find((candidate) => candidate.str === text);
      expect(item, text).toBeDefined();
      expect(item?.page).toBe(placed.page);
      expect(item?.x).toBeGreaterThanOrEqual(placed.x);
      expect((item?.x ?? 0) + (item?.width ?? 0)).toBeLessThanOrEqual(placed.x + placed.width);
      expect(item?.y).toBeGreaterThan(placed.y);
      expect(item?.y).toBeLessThanOrEqual(placed.y + placed.height);
    }

    // Several fields at once: Shift-click selects a second one; their tops are aligned.
    await setZoom(page, 1);
    await page.locator('.field[data-type="Signature"]').click();
    await page.locator('.field[data-type="Date"]').click({ modifiers: ['Shift'] });
    await eventually(() => page.getByText('2 fields selected').count()).toBe(1);
    await page.getByRole('button', { name: 'Align top' }).click();
    // A rubber band from an empty corner of the page over the Signature and the Date selects exactly them.
    await page.locator('.field[data-type="Dropdown"]').click();
    const corner = await screenPoint(page, 1, 20, 560, 1);
    const across = { x: corner.x + 400, y: corner.y + 170 };
    await page.mouse.move(corner.x, corner.y);
    await page.mouse.down();
    await page.mouse.move(across.x, across.y, { steps: 10 });
    await page.mouse.up();
    await eventually(() => page.getByText('2 fields selected').count()).toBe(1);
    expect(
      await page
        .locator('.field.selected')
        .evaluateAll((fields) => fields.map((f) => f.getAttribute('data-type'))),
    ).toEqual(['Signature', 'Date']);
    // Dragged with the pointer, the Dropdown snaps its left edge onto the Signature's (a guide shows it).
    const signatureX = (await inspected(page, 'Signature')).x;
    const dropdownX = (await inspected(page, 'Dropdown')).x;
    await screenPoint(page, 1, dropdownX, 300, 1);
    const dropdownBox = await page.locator('.field[data-type="Dropdown"]').boundingBox();
    if (!dropdownBox) throw new Error('no dropdown');
    const grab = { x: dropdownBox.x + 10, y: dropdownBox.y + dropdownBox.height / 2 };
    await page.mouse.move(grab.x, grab.y);
    await page.mouse.down();
    await page.mouse.move(grab.x - 10, grab.y + 2, { steps: 4 });
    await page.mouse.move(grab.x - (dropdownX - signatureX) + 2.5, grab.y, { steps: 6 });
    await eventually(() => page.locator('.guide.x').count()).toBeGreaterThan(0);
    await page.mouse.up();
    await eventually(() => inspected(page, 'Dropdown').then((shown) => shown.x)).toBe(signatureX);
    expect(await page.locator('.guide').count()).toBe(0);
    // Resized with the pointer by its right edge: 40 pixels at 100% are 40 points.
    await inspected(page, 'Date');
    const dateWidth = Number(await page.locator('#field-width').inputValue());
    const before = await page.locator('.field[data-type="Date"]').boundingBox();
    if (!before) throw new Error('no date');
    const edge = { x: before.x + before.width - 2, y: before.y + before.height / 2 };
    await page.mouse.move(edge.x, edge.y);
    await page.mouse.down();
    await page.mouse.move(edge.x + 20, edge.y, { steps: 5 });
    await page.mouse.move(edge.x + 40, edge.y, { steps: 5 });
    await page.mouse.up();
    await eventually(async () => Number(await page.locator('#field-width').inputValue())).toBeGreaterThan(
      dateWidth + 38,
    );
    expect(Number(await page.locator('#field-width').inputValue())).toBeLessThan(dateWidth + 42);
    // Copied to the other page, at the same place.
    await page.locator('.field[data-type="Signature"]').click();
    await page.getByRole('button', { name: 'Copy to pages…' }).click();
    const copyDialog = page.getByRole('dialog', { name: 'Copy the field to other pages' });
    await eventually(() => copyDialog.isVisible()).toBe(true);
    expect(await copyDialog.getByLabel('Page 2').isChecked()).toBe(true);
    await copyDialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await eventually(() => page.locator('.page[data-page="2"] .field[data-type="Signature"]').count()).toBe(
      1,
    );

    // Editing the published template saves version 2 as a draft; the address follows it. Version 1 is as it was.
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.getByText(/Saved as version 2, a draft/).count()).toBe(1);
    await waitForPath(page, /^\/app\/templates\/[0-9a-f-]{36}$/);
    const versionTwo = new URL(page.url()).pathname.split('/').pop() as string;
    expect(versionTwo).not.toBe(templateId);
    const saved = await detailOf(sender, versionTwo);
    expect(saved.version).toBe(2);
    expect(field(saved, 'Dropdown').x).toBe(field(saved, 'Signature').x);
    expect(field(saved, 'Date').y).toBe(field(saved, 'Signature').y);
    expect(saved.fields.filter((placed) => placed.type === 'Signature').map((placed) => placed.page)).toEqual(
      [1, 2],
    );
    expect((await detailOf(sender, templateId)).fields).toEqual(stored.fields);
  });

  it('lists, filters, duplicates and archives templates; Hebrew right to left; a phone gets the read-only builder', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'נועה כהן' });
    const pdfBase64 = Buffer.from(await buildDemoPdf('Rental agreement', 1)).toString('base64');
    const lease = await callAs<TemplateDetail>(baseUrl, owner, 'POST', '/api/templates', {
      name: 'חוזה שכירות',
      pdfBase64,
    });
    await callAs(baseUrl, owner, 'PUT', `/api/templates/${lease.id}/definition`, {
      roles: [{ name: 'שוכר', required: true, defaultRecipientType: 'Signer', signingOrder: 1 }],
      fields: [
        {
          type: 'Signature',
          role: 'שוכר',
          label: 'חתימת השוכר',
          page: 1,
          x: 56,
          y: 640,
          width: 180,
          height: 50,
          required: true,
        },
        {
          type: 'Full name',
          role: 'שוכר',
          label: 'שם מלא',
          page: 1,
          x: 300,
          y: 660,
          width: 180,
          height: 22,
          required: true,
        },
      ],
    });
    await callAs(baseUrl, owner, 'POST', `/api/templates/${lease.id}/publish`);
    await callAs(baseUrl, owner, 'POST', '/api/templates', { name: 'NDA draft', pdfBase64 });

    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await page.goto(`${baseUrl}/app/templates`);
    await eventually(() => page.locator('tr[data-template]').count()).toBe(2);
    await page.getByLabel('Status').selectOption('published');
    await eventually(() => page.locator('tr[data-template]').count()).toBe(1);
    expect(await page.locator('tr[data-template]').getAttribute('data-template')).toBe('חוזה שכירות');
    expect(new URL(page.url()).searchParams.get('status')).toBe('published');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search by name').fill('nda');
    await eventually(() => page.locator('tr[data-template]').count()).toBe(1);
    await page.getByLabel('Search by name').fill('');
    await eventually(() => page.locator('tr[data-template]').count()).toBe(2);
    await page.getByRole('button', { name: 'Duplicate: NDA draft', exact: true }).click();
    await eventually(() => page.getByText('The copy NDA draft (copy) was created.').count()).toBe(1);
    await page.getByRole('button', { name: 'Archive: NDA draft', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Archive this template?' });
    await eventually(() => confirm.isVisible()).toBe(true);
    await confirm.getByRole('button', { name: 'Archive' }).click();
    await eventually(() => page.getByText('NDA draft was archived.').count()).toBe(1);
    await eventually(() => page.locator('tr[data-template]').allTextContents()).toHaveLength(2);
    await expectAccessible(page, 'templates list');
    await browser.screenshot(page, 'app-templates-en-desktop');

    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const shown = await signedInPage(browser, baseUrl, owner, viewport, language);
      await shown.goto(`${baseUrl}/app/templates`);
      await eventually(() => shown.locator('tr[data-template]').count()).toBe(2);
      expect(await shown.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      expect(await pageWidth(shown), `list ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(shown, `templates list (${language}, ${device})`);
      await browser.screenshot(shown, `app-templates-${language}-${device}`);

      await shown.goto(`${baseUrl}/app/templates/${lease.id}`);
      await eventually(() => shown.getByRole('heading', { level: 1 }).textContent()).toBe('חוזה שכירות');
      await eventually(() => shown.locator('.pages canvas[data-rendered]').count()).toBe(1);
      // The PDF is never mirrored.
      expect(await shown.locator('.pages').getAttribute('dir')).toBe('ltr');
      if (device === 'phone') {
        // Read-only: the message, no palette, the fields still selectable to read their settings.
        expect(await shown.locator('[data-testid="narrow-notice"]').count()).toBe(1);
        expect(await shown.locator('.palette').count()).toBe(0);
        expect(await pageWidth(shown), `builder ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
        await shown.locator('.field[data-type="Full name"]').focus();
        await shown.keyboard.press('Enter');
        await eventually(() => shown.locator('#field-label').inputValue()).toBe('שם מלא');
        expect(await shown.locator('#field-label').isDisabled()).toBe(true);
      } else {
        // Mirrored: the palette on the right of the pages, the settings on their left.
        const palette = await shown.locator('.palette-column').boundingBox();
        const pages = await shown.locator('.canvas-area').boundingBox();
        const side = await shown.locator('.side-column').boundingBox();
        expect(palette && pages && side && palette.x > pages.x && side.x < pages.x).toBe(true);
        await shown.locator('.field[data-type="Signature"]').focus();
        await shown.keyboard.press('Enter');
        await eventually(() => shown.locator('#inspector-title').textContent()).toBe('שדה חתימה');
      }
      await expectAccessible(shown, `builder (${language}, ${device})`);
      await browser.screenshot(shown, `app-templates-builder-${language}-${device}`);
    }
  });
  it('saves whether recipients may assign someone else to sign with the definition, one step of the history', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Dana Levi' });
    const pdfBase64 = Buffer.from(await buildDemoPdf('Consent form', 1)).toString('base64');
    const draft = await callAs<TemplateDetail>(baseUrl, owner, 'POST', '/api/templates', {
      name: 'Consent form',
      pdfBase64,
    });
    await callAs(baseUrl, owner, 'PUT', `/api/templates/${draft.id}/definition`, {
      roles: [{ name: 'Client', required: true, defaultRecipientType: 'Signer', signingOrder: 1 }],
      fields: [
        {
          type: 'Signature',
          role: 'Client',
          label: 'Signature',
          page: 1,
          x: 56,
          y: 640,
          width: 180,
          height: 50,
          required: true,
        },
      ],
    });
    expect((await detailOf(owner, draft.id)).allowDelegation).toBe(false);

    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/templates/${draft.id}`);
    const allow = page.getByLabel('Recipients may assign someone else to sign');
    await eventually(() => allow.count()).toBe(1);
    expect(await allow.isChecked()).toBe(false);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    expect(await save.isDisabled()).toBe(true);
    await allow.check();
    // A change like any other: unsaved until saved, undone and redone with the buttons.
    await eventually(() => save.isDisabled()).toBe(false);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await eventually(() => allow.isChecked()).toBe(false);
    await eventually(() => save.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await eventually(() => allow.isChecked()).toBe(true);
    await save.click();
    await eventually(() => page.getByText('Saved.', { exact: true }).count()).toBe(1);
    const saved = await detailOf(owner, draft.id);
    expect(saved.allowDelegation).toBe(true);
    expect(saved.fields.map((placed) => [placed.type, placed.role, placed.label])).toEqual([
      ['Signature', 'Client', 'Signature'],
    ]);
    await page.reload();
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Consent form');
    await eventually(() => allow.isChecked()).toBe(true);

    // A new field is named by its type, numbered only when repeated; a role's new name shows at once on its card
    // and wherever the builder names it.
    for (let placedDates = 1; placedDates <= 2; placedDates += 1) {
      await page.locator('.palette-item[data-type="Date"]').click();
      await eventually(() => page.locator('.field[data-type="Date"]').count()).toBe(placedDates);
    }
    const roleCard = page.locator('.role').first();
    expect(await roleCard.locator('legend').textContent()).toContain('Client');
    await roleCard.getByLabel('Name', { exact: true }).fill('Tenant');
    await eventually(() => roleCard.locator('legend').textContent()).toContain('Tenant');
    expect(await roleCard.locator('legend').textContent()).not.toContain('Role 1');
    expect(await page.locator('#active-role option').allTextContents()).toEqual(['Tenant']);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(async () => (await detailOf(owner, draft.id)).roles.map((role) => role.name)).toEqual([
      'Tenant',
    ]);
    expect((await detailOf(owner, draft.id)).fields.map((placed) => placed.label)).toEqual([
      'Signature',
      'Date',
      'Date 2',
    ]);
    await allow.scrollIntoViewIfNeeded();
    await expectAccessible(page, 'builder with delegation allowed');
    await browser.screenshot(page, 'app-templates-delegation-en-desktop');

    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const shown = await signedInPage(browser, baseUrl, owner, viewport, language);
      await shown.goto(`${baseUrl}/app/templates/${draft.id}`);
      const hebrew = shown.getByLabel('נמענים רשאים להעביר את החתימה לאדם אחר');
      await eventually(() => hebrew.isChecked()).toBe(true);
      // On a phone the builder is read-only: the choice is shown, not changed.
      expect(await hebrew.isDisabled()).toBe(device === 'phone');
      await hebrew.scrollIntoViewIfNeeded();
      expect(await pageWidth(shown), `builder ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await browser.screenshot(shown, `app-templates-delegation-${language}-${device}`);
    }
  });
});
