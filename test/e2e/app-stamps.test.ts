// The "My stamps" page (/app/stamps) and personal stamps on the signer page, in a real browser against a real
// app: a user adds a stamp (a name and a PNG file), uploads a new version (a JPEG), looks at the earlier one,
// renames it, is refused a file that is not an image, and deletes a stamp after a confirmation; a signing link
// sent to the user's address, opened in the same browser (the business app's session cookie reaches the
// signer page), offers the stamp in the Company stamp field and fills the field with it, while the same link
// without the session offers nothing. Every screen in English and Hebrew (right to left), on a desktop and a
// 375-pixel phone, passes axe-core's WCAG 2.1 AA rules; screenshots go to test/artifacts/web/
// (app-stamps-*.png, signer-personal-stamps-*.png).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EnvelopeFieldValue } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, newIntegrator } from '../support/api.ts';
import { eventually, expectAccessible, signedInPage, signIn, useAppBrowser } from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => {
  ({ harness, browser, baseUrl } = opened);
});

/** A round red stamp with a ring and a bar, on a transparent background. */
function stampPng(size = 160, color = [176, 24, 32, 255]): Buffer {
  const middle = (size - 1) / 2;
  return encodePng(size, size, (x, y) => {
    const distance = Math.hypot(x - middle, y - middle);
    const ring = distance < size / 2 - 2 && distance > size / 2 - 12;
    const inner = distance < size / 2 - 22 && distance > size / 2 - 28;
    const bar = Math.abs(y - middle) < 9 && Math.abs(x - middle) < size / 2 - 30;
    return ring || inner || bar ? color : [0, 0, 0, 0];
  });
}

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

async function openStamps(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/stamps`);
  await eventually(() => page.locator('[data-testid="stamps"], .empty').count()).toBe(1);
  // Every stamp's image has arrived (drawn with a size).
  await eventually(() =>
    page.evaluate(
      '[...document.querySelectorAll(".stamps img")].every((image) => image.complete && image.naturalWidth > 0)',
    ),
  ).toBe(true);
}

async function chooseFile(page: Page, name: string, mimeType: string, buffer: Buffer): Promise<void> {
  await page.locator('#stamp-image').setInputFiles({ name, mimeType, buffer });
}

describe('My stamps', () => {
  it('adds a stamp, uploads a new version, shows the earlier one, renames and deletes, with the keyboard and axe', async () => {
    const user = await signedInUser(harness, { role: 'member', fullName: 'Dana Levi' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, user.email, user.password);
    // The navigation leads there, whatever the role.
    await page.locator('#app-nav').getByRole('link', { name: 'My stamps' }).click();
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('My stamps');
    await eventually(() => page.getByText('You have no stamps yet.').count()).toBe(1);
    await expectAccessible(page, 'no stamps');
    await browser.screenshot(page, 'app-stamps-empty-en-desktop');

    // Add: a name and a PNG; refused first without an image, then with a text file.
    await page.getByRole('button', { name: 'Add a stamp' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a stamp' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('stamp-name');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Acme Ltd');
    await dialog.getByRole('button', { name: 'Add the stamp' }).click();
    await eventually(() => dialog.getByText('Choose an image file.').count()).toBe(1);
    await chooseFile(page, 'notes.png', 'image/png', Buffer.from('not an image at all'));
    await eventually(() => dialog.getByText('This file is not a PNG or JPEG image.').count()).toBe(1);
    expect(await page.locator('#stamp-image').getAttribute('aria-invalid')).toBe('true');
    await chooseFile(page, 'acme.png', 'image/png', stampPng());
    await eventually(() => dialog.getByText('PNG, 160 × 160 pixels').count()).toBe(1);
    await expectAccessible(page, 'add a stamp');
    await browser.screenshot(page, 'app-stamps-add-en-desktop');
    await dialog.getByRole('button', { name: 'Add the stamp' }).click();
    await eventually(() => page.getByText('The stamp Acme Ltd was added.').count()).toBe(1);
    await openStamps(page);
    const card = page.locator('li[data-stamp="Acme Ltd"]');
    expect(await card.getByText('Version 1').count()).toBe(1);
    expect(await card.getByRole('img', { name: 'The stamp Acme Ltd, version 1' }).count()).toBe(1);

    // A new version: a JPEG. It becomes the current one; the earlier one is listed on demand.
    await page.getByRole('button', { name: 'New version: Acme Ltd' }).click();
    const version = page.getByRole('dialog', { name: 'New version of Acme Ltd' });
    await eventually(() => version.isVisible()).toBe(true);
    await chooseFile(page, 'acme.jpg', 'image/jpeg', encodeGreyJpeg(12, 10));
    await eventually(() => version.getByText('JPEG, 96 × 80 pixels').count()).toBe(1);
    await version.getByRole('button', { name: 'Upload the version' }).click();
    await eventually(() => page.getByText('The stamp Acme Ltd is now at version 2.').count()).toBe(1);
    await openStamps(page);
    expect(await card.getByText('Version 2', { exact: true }).count()).toBe(1);
    const older = card.getByRole('button', { name: 'Show the earlier version' });
    expect(await older.getAttribute('aria-expanded')).toBe('false');
    await older.click();
    await eventually(() => card.locator('li[data-version="1"]').count()).toBe(1);
    await eventually(() =>
      card
        .locator('li[data-version="1"] img')
        .evaluate((image: { naturalWidth: number }) => image.naturalWidth),
    ).toBe(160);
    await expectAccessible(page, 'stamps with an earlier version');
    await browser.screenshot(page, 'app-stamps-en-desktop');

    // Rename, with the keyboard: Enter submits the dialog's form.
    await page.getByRole('button', { name: 'Rename: Acme Ltd' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the stamp Acme Ltd' });
    await eventually(() => rename.isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Acme Trading');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByText('The stamp is now called Acme Trading.').count()).toBe(1);

    // A second stamp, then delete the first after the confirmation (Cancel first: nothing happens).
    await page.getByRole('button', { name: 'Add a stamp' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Personal seal');
    await chooseFile(page, 'seal.png', 'image/png', stampPng(120, [20, 40, 160, 255]));
    await eventually(() => page.getByText('PNG, 120 × 120 pixels').count()).toBe(1);
    await page.getByRole('button', { name: 'Add the stamp' }).click();
    await eventually(() => page.locator('li[data-stamp]').count()).toBe(2);
    await page.getByRole('button', { name: 'Delete: Acme Trading' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this stamp?' });
    await eventually(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Documents you already stamped with it keep their stamp.');
    await expectAccessible(page, 'delete a stamp');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('li[data-stamp]').count()).toBe(2);
    await page.getByRole('button', { name: 'Delete: Acme Trading' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.getByText('The stamp Acme Trading was deleted.').count()).toBe(1);
    await eventually(() => page.locator('li[data-stamp]').count()).toBe(1);
    const left = (await callAs(baseUrl, user, 'GET', '/api/me/stamps')) as { stamps: { name: string }[] };
    expect(left.stamps.map((stamp) => stamp.name)).toEqual(['Personal seal']);
  });

  it('shows the page in Hebrew right to left and on a 375-pixel phone in both languages', async () => {
    const user = await signedInUser(harness, { role: 'sender', fullName: 'נועה כהן' });
    const stamp = (await callAs(baseUrl, user, 'POST', '/api/me/stamps', {
      name: 'חותמת החברה בע״מ',
      contentType: 'image/png',
      imageBase64: stampPng().toString('base64'),
    })) as { id: string };
    await callAs(baseUrl, user, 'POST', `/api/me/stamps/${stamp.id}/versions`, {
      contentType: 'image/png',
      imageBase64: stampPng(180, [30, 90, 40, 255]).toString('base64'),
    });
    await callAs(baseUrl, user, 'POST', '/api/me/stamps', {
      name: 'A rather long stamp name for the branch office in Haifa and the north',
      contentType: 'image/jpeg',
      imageBase64: encodeGreyJpeg(10, 6).toString('base64'),
    });
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, user, viewport, language);
      await openStamps(page);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      await page
        .getByRole('button', { name: language === 'he' ? 'הצגת הגרסה הקודמת' : 'Show the earlier version' })
        .click();
      await eventually(() => page.locator('li[data-version="1"]').count()).toBe(1);
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      if (language === 'he') {
        // Mirrored: the picture is at the right of the stamp's details.
        const picture = await page.locator('.picture').first().boundingBox();
        const about = await page.locator('.about').first().boundingBox();
        expect(picture && about && picture.x > about.x).toBe(true);
      }
      await expectAccessible(page, `stamps (${language}, ${device})`);
      await browser.screenshot(page, `app-stamps-${language}-${device}`);
      await page.getByRole('button', { name: language === 'he' ? 'הוספת חותמת' : 'Add a stamp' }).click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      await chooseFile(
        page,
        'x.png',
        'image/png',
        encodePng(8, 8, () => [0, 0, 0, 255]),
      );
      await eventually(() => page.locator('#stamp-image-error').count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `add a stamp (${language}, ${device})`);
      await browser.screenshot(page, `app-stamps-add-${language}-${device}`);
    }
  });
});

// ---- On the signer page -------------------------------------------------------------------------------------

const box = { page: 1, width: 150, height: 22 };
const TEMPLATE = {
  name: 'Stamped order',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'Company stamp',
      role: 'Client',
      label: 'Company stamp',
      x: 40,
      y: 90,
      required: true,
      ...box,
      width: 110,
      height: 110,
    },
  ],
};

async function stampedEnvelope(email: string): Promise<{ id: string; url: string }> {
  const acme = await newIntegrator(harness);
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf('Stamped order'),
    filename: 'order.pdf',
    definition: TEMPLATE,
    publish: true,
  });
  const headers = { ...(await acme.auth()), 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/api/v1/envelopes/from-template`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      title: 'Purchase order 1042',
      templateId: template.id,
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email, deliveryChannel: 'ManualLink' }],
    }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const sent = await fetch(`${baseUrl}/api/v1/envelopes/${id}/send`, {
    method: 'POST',
    headers: await acme.auth(),
  });
  expect(sent.status).toBe(200);
  const [link] = await issueSigningLinks(harness.ctx, acme.organizationId, id);
  return { id, url: `${baseUrl}/sign/${link?.url.split('/sign/')[1]}` };
}

async function openSigner(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await eventually(() => page.locator('[data-field-type="Company stamp"]').count()).toBe(1);
}

/** Opens the stamp field's sheet from its place on the document (the personal stamps are offered there). */
async function openStampSheet(page: Page) {
  await page.locator('[data-field-type="Company stamp"] button').click();
  const sheet = page.getByTestId('upload-sheet');
  await eventually(() => sheet.isVisible()).toBe(true);
  return sheet;
}

describe('personal stamps on the signer page', () => {
  it('offers the stamps to the recipient signed in with their own address, and fills the field with one', async () => {
    const user = await signedInUser(harness, { role: 'member', fullName: 'Dana Levi' });
    await callAs(baseUrl, user, 'POST', '/api/me/stamps', {
      name: 'Levi Trading Ltd',
      contentType: 'image/png',
      imageBase64: stampPng().toString('base64'),
    });
    await callAs(baseUrl, user, 'POST', '/api/me/stamps', {
      name: 'Dana personal seal',
      contentType: 'image/jpeg',
      imageBase64: encodeGreyJpeg(8, 8).toString('base64'),
    });
    const envelope = await stampedEnvelope(user.email);

    // Without a session of the business app: the field's sheet is an upload only.
    const stranger = await browser.newPage(DESKTOP);
    await openSigner(stranger, envelope.url);
    await openStampSheet(stranger);
    expect(await stranger.getByText('Your stamps').count()).toBe(0);
    expect(await stranger.locator('button[data-stamp-id]').count()).toBe(0);

    // Signed in to the business app in the same browser: the stamps are offered in the field's sheet.
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, user.email, user.password);
    await openSigner(page, envelope.url);
    const field = page.locator('[data-field-type="Company stamp"]');
    const sheet = await openStampSheet(page);
    await eventually(() => sheet.getByRole('group', { name: 'Your stamps' }).count()).toBe(1);
    const choice = sheet.getByRole('button', { name: 'Levi Trading Ltd' });
    expect(await choice.getAttribute('aria-pressed')).toBe('false');
    await eventually(() =>
      sheet
        .locator('button[data-stamp-id] img')
        .evaluateAll((images) =>
          images.every((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0),
        ),
    ).toBe(true);
    await expectAccessible(page, 'signer page with personal stamps');
    await browser.screenshot(page, 'signer-personal-stamps-en-desktop');

    // Choosing one closes the sheet; the field shows the stamp where it stands.
    await choice.click();
    await eventually(() => sheet.isVisible()).toBe(false);
    await eventually(() =>
      field.locator('img').evaluate((image: { naturalWidth: number }) => image.naturalWidth),
    ).toBe(160);
    await eventually(() => page.getByTestId('recipient-status').textContent()).toBe('In progress');
    const stored = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(EnvelopeFieldValue, { envelopeId: envelope.id });
    expect(stored.value).toMatchObject({
      typedName: null,
      personalStamp: { name: 'Levi Trading Ltd', version: 1 },
    });
    await openStampSheet(page);
    await eventually(() => sheet.getByTestId('chosen-stamp').textContent()).toContain('Levi Trading Ltd');
    expect(await choice.getAttribute('aria-pressed')).toBe('true');
    await expectAccessible(page, 'signer page with a personal stamp chosen');
    await browser.screenshot(page, 'signer-personal-stamps-chosen-en-desktop');

    // After a reload the field's sheet still names the chosen stamp.
    await openSigner(page, envelope.url);
    await openStampSheet(page);
    await eventually(() => sheet.getByTestId('chosen-stamp').textContent()).toContain('Levi Trading Ltd');

    // Hebrew, on a phone: the choice fits and reads right to left.
    const phone = await browser.newPage(PHONE, 'en-US');
    await signIn(phone, baseUrl, user.email, user.password);
    await phone.goto(`${envelope.url}?lang=he`);
    await eventually(() => phone.locator('[data-field-type="Company stamp"]').count()).toBe(1);
    const phoneSheet = await openStampSheet(phone);
    await eventually(() => phoneSheet.locator('button[data-stamp-id]').count()).toBe(2);
    expect(await phone.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'signer page with personal stamps (he, phone)');
    await browser.screenshot(phone, 'signer-personal-stamps-he-phone');
  });

  it('offers nothing to a business-app user signed in with another address', async () => {
    const recipient = await signedInUser(harness, { role: 'member' });
    await callAs(baseUrl, recipient, 'POST', '/api/me/stamps', {
      name: 'Recipient stamp',
      contentType: 'image/png',
      imageBase64: stampPng().toString('base64'),
    });
    const other = await signedInUser(harness, { role: 'owner', fullName: 'Someone Else' });
    await callAs(baseUrl, other, 'POST', '/api/me/stamps', {
      name: 'Someone else’s stamp',
      contentType: 'image/png',
      imageBase64: stampPng().toString('base64'),
    });
    const envelope = await stampedEnvelope(recipient.email);
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, other.email, other.password);
    const offers: unknown[] = [];
    page.on('response', async (response) => {
      if (response.url().endsWith('/personal-stamps')) offers.push(await response.json());
    });
    await openSigner(page, envelope.url);
    await eventually(async () => offers.length).toBe(1);
    expect(offers).toEqual([{ stamps: [] }]);
    expect(await page.getByText('Your stamps').count()).toBe(0);
    expect(await page.getByText('Someone else’s stamp').count()).toBe(0);
  });
});
