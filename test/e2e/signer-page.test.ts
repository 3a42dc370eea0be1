// The signer page (/sign/<token>) in a real browser (Debian's Chromium driven by playwright-core) against a
// real Sigil app listening on a port. Envelopes are created and sent through the public API; Email and SMS
// recipients' links (and one-time codes) are read from the development capture (GET /api/dev/notifications)
// as the worker sends them, ManualLink recipients' links issued through
// POST /api/v1/envelopes/{id}/recipients/{recipientId}/signing-link. Two sequential signers invited by email
// fill every plain field and complete until the envelope is Completed; a signer draws a signature with the
// mouse, types initials, uploads a stamp, a PDF and an image, sees them again after a reload and in the
// preview, completes, and the final PDF holds the typed names and the attached file; an Approver approves
// and a Viewer confirms once the document is shown; another envelope is declined with a reason; a
// cancelled, an expired, an unknown link and one not yet in turn get their own pages; an SMS recipient
// verifies a code; the recipient's Hebrew opens right to left; a 375-pixel phone. Every main screen passes
// axe-core's WCAG 2.1 AA rules (labels, names, contrast). Screenshots go to test/artifacts/web/.
import { randomInt } from 'node:crypto';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateField } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { accessibilityViolations } from '../support/accessibility.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';
import { DESKTOP, launchTestBrowser, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { captured, waitForCapture } from '../support/dev-notifications.ts';
import { encodePng } from '../support/png.ts';
import { signedInUser } from '../support/signed-in-user.ts';

const box = { page: 1, width: 150, height: 20 };
const PLAIN_TEMPLATE = {
  name: 'Plain fields template',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
  ],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    { type: 'Text', role: 'Client', label: 'Company', x: 40, y: 70, ...box },
    { type: 'Long text', role: 'Client', label: 'Notes', x: 40, y: 100, ...box, height: 60 },
    { type: 'Date', role: 'Client', label: 'Start date', x: 40, y: 170, required: true, ...box },
    { type: 'Email', role: 'Client', label: 'Client email', x: 40, y: 200, ...box },
    { type: 'Phone', role: 'Client', label: 'Client phone', x: 40, y: 230, ...box },
    { type: 'ID number', role: 'Client', label: 'Client ID', x: 40, y: 260, ...box },
    { type: 'Checkbox', role: 'Client', label: 'Agree to terms', x: 40, y: 290, ...box, width: 20 },
    { type: 'Radio', role: 'Client', label: 'Plan', x: 40, y: 320, ...box, options: ['Basic', 'Pro'] },
    { type: 'Dropdown', role: 'Client', label: 'City', x: 40, y: 350, ...box, options: ['Haifa', 'Eilat'] },
    { type: 'Read-only text', role: 'Client', label: 'Terms', x: 40, y: 380, ...box },
    { type: 'Full name', role: 'Provider', label: 'Provider name', x: 300, y: 40, required: true, ...box },
  ],
};
const TERMS = 'Payment within 30 days of the invoice.';
const SIGNATURE_TEMPLATE = {
  name: 'Signature and uploads template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature',
      x: 40,
      y: 80,
      required: true,
      ...box,
      height: 60,
    },
    { type: 'Initials', role: 'Client', label: 'Initials', x: 220, y: 80, required: true, ...box, width: 60 },
    { type: 'Company stamp', role: 'Client', label: 'Stamp', x: 300, y: 80, ...box, width: 80, height: 60 },
    { type: 'File upload', role: 'Client', label: 'Contract copy', x: 40, y: 160, required: true, ...box },
    { type: 'Image upload', role: 'Client', label: 'Photo ID', x: 40, y: 200, ...box, height: 80 },
  ],
};

const REVIEW_TEMPLATE = {
  name: 'Review template',
  roles: [
    { name: 'Approval', required: true },
    { name: 'Viewing', required: true },
    { name: 'Client', required: true },
  ],
  fields: [{ type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box }],
};

let harness: ApiHarness;
let acme: Integrator;
let browser: TestBrowser;
let baseUrl: string;
let templateId: string;
let signatureTemplateId: string;
let reviewTemplateId: string;
let termsFieldId: string;

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(await acme.auth()),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

interface Sent {
  id: string;
  /** Recipient ids by role. */
  recipients: Record<string, string>;
}

/** The page address of a signing link, on the port this test listens on. */
function pageAddress(link: string): string {
  return `${baseUrl}/sign/${link.split('/sign/')[1]}`;
}

/** Creates an envelope from a template through the public API and sends it. */
async function createAndSend(body: Record<string, unknown>): Promise<Sent> {
  const created = await api('POST', '/api/v1/envelopes/from-template', body);
  expect(created.status, await created.clone().text()).toBe(201);
  const envelope = (await created.json()) as { id: string; recipients: { id: string; roleName: string }[] };
  const sent = await api('POST', `/api/v1/envelopes/${envelope.id}/send`);
  expect(sent.status, await sent.clone().text()).toBe(200);
  return {
    id: envelope.id,
    recipients: Object.fromEntries(envelope.recipients.map((r) => [r.roleName, r.id])),
  };
}

/** A Sequential envelope of the plain template: the Client signs first, then the Provider. */
function sendEnvelope(
  title: string,
  client: Record<string, unknown> = {},
  provider: Record<string, unknown> = {},
  envelope: Record<string, unknown> = {},
): Promise<Sent> {
  return createAndSend({
    ...envelope,
    title,
    workflowType: 'Sequential',
    templateId,
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        deliveryChannel: 'ManualLink',
        signingOrder: 1,
        ...client,
      },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        deliveryChannel: 'ManualLink',
        signingOrder: 2,
        ...provider,
      },
    ],
    initialValues: [{ fieldDefinitionId: termsFieldId, value: TERMS }],
  });
}

/** The page address of a ManualLink recipient's link, issued through the public API. */
async function issuedLink(envelope: Sent, role: string): Promise<string> {
  const issued = await api(
    'POST',
    `/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[role]}/signing-link`,
  );
  expect(issued.status, await issued.clone().text()).toBe(200);
  return pageAddress(((await issued.json()) as { url: string }).url);
}

/** The page address of the link in the newest invitation sent to an address or phone (as captured). */
async function invitedLink(to: string): Promise<string> {
  const invitation = await waitForCapture(baseUrl, `kind=invitation&to=${encodeURIComponent(to)}&limit=1`);
  if (!invitation.signingLink) throw new Error(`the invitation to ${to} has no link`);
  return pageAddress(invitation.signingLink);
}

function uniqueEmail(name: string): string {
  return `${name}.${randomInt(1e9)}@example.com`;
}

/** An envelope of the signature template sent to one ManualLink recipient; the page address of the link. */
async function sendSignatureEnvelope(title: string): Promise<{ id: string; url: string }> {
  const created = await api('POST', '/api/v1/envelopes/from-template', {
    title,
    workflowType: 'Sequential',
    templateId: signatureTemplateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', deliveryChannel: 'ManualLink', signingOrder: 1 },
    ],
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const envelope = (await created.json()) as { id: string; recipients: { id: string }[] };
  const sent = await api('POST', `/api/v1/envelopes/${envelope.id}/send`);
  expect(sent.status, await sent.clone().text()).toBe(200);
  const issued = await api(
    'POST',
    `/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[0]?.id}/signing-link`,
  );
  expect(issued.status, await issued.clone().text()).toBe(200);
  const { url } = (await issued.json()) as { url: string };
  return { id: envelope.id, url: pageAddress(url) };
}

/** The final PDF of a Completed envelope, through the public API: its text and its attachments' names. */
async function finalPdf(id: string): Promise<{ text: string; attachments: Map<string, number> }> {
  const response = await api('GET', `/api/v1/envelopes/${id}/documents/final-pdf`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/pdf');
  const task = getDocument({ data: new Uint8Array(await response.arrayBuffer()), verbosity: 0 });
  const pdf = await task.promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    pages.push(
      items
        .filter((item): item is TextItem => 'str' in item)
        .map((item) => item.str)
        .join(' '),
    );
  }
  const attachments = new Map<string, number>();
  for (const [key, attachment] of (await pdf.getAttachments()) ?? []) {
    const content = new Uint8Array(attachment.content ?? (await pdf.getAttachmentContent(key)) ?? []);
    attachments.set(attachment.filename, content.byteLength);
  }
  await task.destroy();
  return { text: pages.join('\n'), attachments };
}

async function envelopeStatus(id: string): Promise<string> {
  const response = await api('GET', `/api/v1/envelopes/${id}`);
  return ((await response.json()) as { status: string }).status;
}

function newPage(viewport = DESKTOP, locale = 'en-US'): Promise<Page> {
  return browser.newPage(viewport, locale);
}

function screenshot(page: Page, name: string): Promise<void> {
  return browser.screenshot(page, name);
}

async function activeId(page: Page): Promise<string> {
  return String(await page.evaluate('document.activeElement?.id'));
}

/** expect.poll with room for a loaded machine (two browsers, the app, Temporal and PostgreSQL on 2 cores). */
function eventually<T>(read: () => Promise<T>) {
  return expect.poll(read, { interval: 100 });
}

/** No WCAG 2.1 A/AA violation on what the page shows now (axe-core). */
async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

/** Whether an image has loaded (a broken or still-loading one has no natural width). */
async function imageLoaded(image: ReturnType<Page['locator']>): Promise<boolean> {
  return image.evaluate(
    (element: { complete: boolean; naturalWidth: number }) => element.complete && element.naturalWidth > 0,
  );
}

/** Waits until every change is saved (the page says so). */
async function saved(page: Page): Promise<void> {
  await eventually(() => page.locator('.save-status').getAttribute('data-status')).toBe('saved');
}

beforeAll(async () => {
  browser = await launchTestBrowser();
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  acme = await newIntegrator(harness);
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(),
    filename: 'plain.pdf',
    definition: PLAIN_TEMPLATE,
    publish: true,
  });
  templateId = template.id;
  const terms = await harness.ctx.orm.em.fork().findOneOrFail(TemplateField, { templateId, label: 'Terms' });
  termsFieldId = terms.id;
  const signatures = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf('Signature agreement'),
    filename: 'signatures.pdf',
    definition: SIGNATURE_TEMPLATE,
    publish: true,
  });
  signatureTemplateId = signatures.id;
  const review = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf('Review'),
    filename: 'review.pdf',
    definition: REVIEW_TEMPLATE,
    publish: true,
  });
  reviewTemplateId = review.id;
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('the signer page', () => {
  it('takes two sequential signers invited by email through every plain field, consent and completion', async () => {
    const clientEmail = uniqueEmail('dana');
    const providerEmail = uniqueEmail('sam');
    const envelope = await sendEnvelope(
      'Services agreement',
      { email: clientEmail, deliveryChannel: 'Email' },
      { email: providerEmail, deliveryChannel: 'Email' },
    );
    const page = await newPage();

    // The invitation's link, as the worker sent it (captured in development); the second signer is not
    // invited before the first one completes.
    await page.goto(await invitedLink(clientEmail));
    await eventually(() => page.locator('h1').textContent()).toBe('Services agreement');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('.meta').textContent()).toContain('Dana Levi');
    expect(await page.getByTestId('recipient-status').textContent()).toBe('Opened');
    expect(await page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting for you');
    // Read-only text is shown, not editable; every other field has a labelled input.
    expect(await page.locator('[data-field-type="Read-only text"] .readonly').textContent()).toBe(TERMS);
    expect(await page.locator('[data-field-type="Read-only text"] input').count()).toBe(0);
    // No complete button before the required fields are filled.
    expect(await page.getByRole('button', { name: 'Sign and complete' }).count()).toBe(0);
    await eventually(() => page.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    await screenshot(page, 'signer-ready-en-desktop');
    await expectAccessible(page);

    // The summary's entry goes to its field and focuses it.
    await page.getByRole('button', { name: /Start date/ }).click();
    await eventually(() => activeId(page)).toMatch(/^field-/);
    expect(await page.evaluate('document.activeElement?.type')).toBe('date');

    // A refused value keeps the server's message next to its field.
    await page.getByLabel('Client email').fill('not-an-address');
    await page.getByLabel('Client email').blur();
    const emailError = page.locator('[data-field-type="Email"] .error');
    await eventually(() => emailError.isVisible()).toBe(true);
    expect(await emailError.textContent()).toMatch(/Client email/);
    await screenshot(page, 'signer-field-error-en');

    await page.getByLabel('Client name').fill('Dana Levi');
    await page.getByLabel('Company').fill('Levi Design');
    await page.getByLabel('Notes').fill('First line\nSecond line');
    await page.getByLabel('Start date').fill('2026-12-01');
    await page.getByLabel('Client email').fill('dana@example.com');
    await page.getByLabel('Client phone').fill('+972501234567');
    await page.getByLabel('Client ID').fill('123456782');
    await page.getByLabel('Agree to terms').check();
    await page.getByRole('radio', { name: 'Pro' }).check();
    await page.getByLabel('City').selectOption('Eilat');
    await page.getByLabel('Client ID').blur();
    await saved(page);
    expect(await emailError.count()).toBe(0);
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('No fields are waiting');

    // A reload keeps every value: they come back from the server.
    await page.reload();
    await eventually(() => page.getByLabel('Client name').inputValue()).toBe('Dana Levi');
    expect(await page.getByLabel('Company').inputValue()).toBe('Levi Design');
    expect(await page.getByLabel('Notes').inputValue()).toBe('First line\nSecond line');
    expect(await page.getByLabel('Start date').inputValue()).toBe('2026-12-01');
    expect(await page.getByLabel('Client email').inputValue()).toBe('dana@example.com');
    expect(await page.getByLabel('Client phone').inputValue()).toBe('+972501234567');
    expect(await page.getByLabel('Client ID').inputValue()).toBe('123456782');
    expect(await page.getByLabel('Agree to terms').isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'Pro' }).isChecked()).toBe(true);
    expect(await page.getByLabel('City').inputValue()).toBe('Eilat');
    expect(await page.getByTestId('recipient-status').textContent()).toBe('In progress');

    // Consent brings the complete button; keyboard only from here.
    const finish = page.getByRole('button', { name: 'Sign and complete' });
    expect(await finish.count()).toBe(0);
    await page.getByLabel('I agree').focus();
    await page.keyboard.press('Space');
    await eventually(() => finish.isVisible()).toBe(true);
    // The preview shows the values where they go on the page.
    const startDate = page.locator('.preview .box[title="Go to the field Start date"]');
    expect(await startDate.textContent()).toContain('2026-12-01');
    expect(
      await page.locator('.preview .box[title="Go to the field Agree to terms"]').textContent(),
    ).toContain('✓');
    await screenshot(page, 'signer-ready-to-complete-en');
    await expectAccessible(page);
    expect(await captured(baseUrl, `kind=invitation&to=${encodeURIComponent(providerEmail)}`)).toEqual([]);
    await finish.focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await page.locator('.state').textContent()).toContain('When everyone has finished');
    await screenshot(page, 'signer-completed-en');
    await expectAccessible(page);

    // The first signer's link now says they are done.
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');

    // The second signer, in turn now: the invitation goes out.
    const second = await newPage();
    await second.goto(await invitedLink(providerEmail));
    await eventually(() => second.locator('h1').textContent()).toBe('Services agreement');
    await second.getByLabel('Provider name').fill('Sam Cohen');
    await second.getByLabel('Provider name').blur();
    await saved(second);
    await second.getByLabel('I agree').check();
    await second.getByRole('button', { name: 'Sign and complete' }).click();
    await eventually(() => second.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await second.locator('.state').textContent()).toContain('You were the last one');
    await expect.poll(() => envelopeStatus(envelope.id), { interval: 500 }).toBe('Completed');
    await second.reload();
    await eventually(() => second.locator('h1').textContent()).toBe('Already completed');
  });

  it('draws a signature, types initials, uploads a stamp, a PDF and an image, and the final PDF has them', async () => {
    const envelope = await sendSignatureEnvelope('Signature agreement');
    const page = await newPage();
    await page.goto(envelope.url);
    await eventually(() => page.locator('h1').textContent()).toBe('Signature agreement');
    expect(await page.getByTestId('awaiting').textContent()).toContain('4 fields are waiting for you');
    expect(await page.locator('.unavailable').count()).toBe(0);
    // The document's page is drawn, with this signer's six fields outlined over it.
    const preview = page.locator('.preview');
    await eventually(() => preview.locator('canvas[data-rendered="true"]').count()).toBe(1);
    expect(await preview.locator('.box').count()).toBe(6);
    const sheet = await preview.locator('.page').boundingBox();
    const outline = await preview.locator('.box').first().boundingBox();
    if (!sheet || !outline) throw new Error('no preview layout');
    // Client name sits at (40, 40) points of an A4 page (595.28 points wide).
    expect(outline.x - sheet.x).toBeCloseTo((40 / 595.28) * sheet.width, -1);
    await screenshot(page, 'signer-signature-ready-en');

    await page.getByLabel('Client name').fill('Dana Levi');
    await page.getByLabel('Client name').blur();

    // The signature, drawn with the mouse, with a typed name.
    const signature = page.locator('[data-field-type="Signature"]');
    const pad = signature.getByTestId('signature-pad');
    await pad.scrollIntoViewIfNeeded();
    const area = await pad.boundingBox();
    if (!area) throw new Error('no pad');
    await page.mouse.move(area.x + 30, area.y + area.height * 0.7);
    await page.mouse.down();
    for (let step = 1; step <= 24; step += 1) {
      const x = area.x + 30 + step * 12;
      const y = area.y + area.height * (0.5 + 0.25 * Math.sin(step / 2));
      await page.mouse.move(x, y, { steps: 2 });
    }
    await page.mouse.up();
    await signature.getByLabel('Your name, typed (optional)').fill('Dana R. Levi');
    await screenshot(page, 'signer-signature-drawn-en');
    await signature.getByRole('button', { name: 'Save' }).click();
    await eventually(() => signature.getByRole('img', { name: 'Signature, as saved' }).isVisible()).toBe(
      true,
    );
    expect(await signature.textContent()).toContain('Typed name: Dana R. Levi');

    // Initials with the keyboard only: saving without a drawing says so, then the typed name is used.
    const initials = page.locator('[data-field-type="Initials"]');
    await initials.getByRole('button', { name: 'Save' }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => initials.getByRole('alert').textContent()).toContain('type your name first');
    await initials.getByLabel('Your name, typed (optional)').focus();
    await page.keyboard.type('DRL');
    await initials.getByRole('button', { name: 'Save' }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => initials.getByRole('img', { name: 'Initials, as saved' }).isVisible()).toBe(true);
    expect(await activeId(page)).toMatch(/-redo$/);

    // Uploads: the limits are shown, a wrong type and a file too large are refused before sending.
    const stampPng = encodePng(48, 24, (x, y) => [180, 20 + x, 40 + y, 255]);
    await page
      .getByLabel('Stamp')
      .setInputFiles({ name: 'stamp.png', mimeType: 'image/png', buffer: stampPng });
    const contract = page.locator('[data-field-type="File upload"]');
    expect(await contract.textContent()).toContain('PDF, PNG or JPEG, up to 4 MB');
    await page.getByLabel('Contract copy').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('not a pdf'),
    });
    await eventually(() => contract.getByRole('alert').textContent()).toContain('not accepted here');
    const photo = page.locator('[data-field-type="Image upload"]');
    expect(await photo.textContent()).toContain('PNG or JPEG, up to 2 MB');
    await page.getByLabel('Photo ID').setInputFiles({
      name: 'huge.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(2 * 1024 * 1024 + 1),
    });
    await eventually(() => photo.getByRole('alert').textContent()).toContain('The file is too large');
    await screenshot(page, 'signer-upload-refused-en');

    const contractPdf = Buffer.from(await buildDemoPdf('Contract copy'));
    await page.getByLabel('Contract copy').setInputFiles({
      name: 'contract-copy.pdf',
      mimeType: 'application/pdf',
      buffer: contractPdf,
    });
    const photoPng = encodePng(32, 32, (x, y) => [x * 8, y * 8, 128, 255]);
    await page
      .getByLabel('Photo ID')
      .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: photoPng });
    await saved(page);
    expect(await contract.getByTestId('saved-file').textContent()).toContain('contract-copy.pdf');
    expect(await photo.getByTestId('saved-file').textContent()).toContain('photo.png');
    expect(await contract.getByRole('alert').count()).toBe(0);
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('No fields are waiting');
    await screenshot(page, 'signer-signature-filled-en');

    // The preview draws what was entered inside the outlines: the name, the signature, the stamp, the photo.
    const inPreview = (label: string) => preview.locator(`.box[title="Go to the field ${label}"]`);
    expect(await inPreview('Client name').textContent()).toContain('Dana Levi');
    for (const label of ['Signature', 'Initials', 'Stamp', 'Photo ID']) {
      expect(await imageLoaded(inPreview(label).locator('img')), label).toBe(true);
    }
    expect(await inPreview('Contract copy').textContent()).toContain('contract-copy.pdf');
    await expectAccessible(page);

    // A reload keeps them: the server holds the files, and the saved images are fetched back (with the
    // signer's link) into the fields and the preview.
    await page.reload();
    await eventually(() => page.getByLabel('Client name').inputValue()).toBe('Dana Levi');
    expect(await signature.textContent()).toContain('Typed name: Dana R. Levi');
    const savedSignature = signature.getByRole('img', { name: 'Signature, as saved' });
    await eventually(() => imageLoaded(savedSignature)).toBe(true);
    await eventually(() => imageLoaded(initials.getByRole('img', { name: 'Initials, as saved' }))).toBe(true);
    const stamp = page.locator('[data-field-type="Company stamp"]');
    await eventually(() => imageLoaded(stamp.getByRole('img', { name: 'The saved stamp' }))).toBe(true);
    expect(
      await stamp
        .getByRole('img', { name: 'The saved stamp' })
        .evaluate((element: { naturalWidth: number }) => element.naturalWidth),
    ).toBe(48);
    await eventually(() =>
      imageLoaded(photo.getByRole('img', { name: 'The uploaded image photo.png' })),
    ).toBe(true);
    expect(await contract.getByTestId('saved-file').textContent()).toContain('contract-copy.pdf');
    await eventually(() => preview.locator('canvas[data-rendered="true"]').count()).toBe(1);
    await eventually(() => imageLoaded(inPreview('Signature').locator('img'))).toBe(true);
    await screenshot(page, 'signer-signature-reloaded-en');
    await expectAccessible(page);
    // Clicking an outline in the preview goes to that field's input.
    await inPreview('Client name').click();
    await eventually(() =>
      page.evaluate('document.activeElement?.closest("[data-field-type]")?.dataset.fieldType'),
    ).toBe('Full name');

    // The same fields in Hebrew on a phone.
    const phone = await newPage(PHONE, 'he-IL');
    await phone.goto(`${envelope.url}?lang=he`);
    await eventually(() => phone.locator('html').getAttribute('dir')).toBe('rtl');
    await eventually(() => phone.locator('[data-field-type="File upload"]').textContent()).toContain('נשמר');
    // The PDF is not mirrored: the first field's outline stays at the left of the page.
    await eventually(() => phone.locator('canvas[data-rendered="true"]').count()).toBe(1);
    expect(await phone.locator('.preview').getAttribute('dir')).toBe('ltr');
    const phoneSheet = await phone.locator('.preview .page').boundingBox();
    const phoneOutline = await phone.locator('.preview .box').first().boundingBox();
    if (!phoneSheet || !phoneOutline) throw new Error('no preview layout');
    expect(phoneOutline.x - phoneSheet.x).toBeLessThan(phoneSheet.width / 4);
    await screenshot(phone, 'signer-signature-he-phone');
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);

    await page.getByLabel('I agree').check();
    await page.getByRole('button', { name: 'Sign and complete' }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('Thank you, you are done');
    await expect.poll(() => envelopeStatus(envelope.id), { interval: 500 }).toBe('Completed');

    const final = await finalPdf(envelope.id);
    expect(final.text).toContain('Dana Levi');
    expect(final.text).toContain('Dana R. Levi');
    expect(final.text).toContain('DRL');
    expect(final.text).toContain('contract-copy.pdf');
    expect(final.attachments.get('contract-copy.pdf')).toBe(contractPdf.byteLength);
  });

  it('lets an Approver approve without fields, and a Viewer confirm once the document is shown', async () => {
    const envelope = await createAndSend({
      title: 'Budget for review',
      workflowType: 'Sequential',
      templateId: reviewTemplateId,
      recipients: [
        {
          roleName: 'Approval',
          fullName: 'Avi Approver',
          type: 'Approver',
          deliveryChannel: 'ManualLink',
          signingOrder: 1,
        },
        {
          roleName: 'Viewing',
          fullName: 'Vered Viewer',
          type: 'Viewer',
          deliveryChannel: 'ManualLink',
          signingOrder: 2,
        },
        { roleName: 'Client', fullName: 'Dana Levi', deliveryChannel: 'ManualLink', signingOrder: 3 },
      ],
    });
    const approver = await newPage();
    await approver.goto(await issuedLink(envelope, 'Approval'));
    await eventually(() => approver.locator('h1').textContent()).toBe('Budget for review');
    expect(await approver.getByTestId('awaiting').textContent()).toContain('No fields are waiting');
    expect(await approver.locator('[data-field-type]').count()).toBe(0);
    expect(await approver.getByTestId('instructions').textContent()).toBe(
      'Read the document, then approve it or decline it.',
    );
    expect(await approver.getByRole('button', { name: 'Decline', exact: true }).isVisible()).toBe(true);
    // No consent for an Approver: the action is there at once.
    expect(await approver.getByLabel('I agree').count()).toBe(0);
    const approve = approver.getByRole('button', { name: 'Approve' });
    await eventually(() => approve.isVisible()).toBe(true);
    await eventually(() => approver.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    await screenshot(approver, 'signer-approver-en');
    await expectAccessible(approver);
    await approve.click();
    await eventually(() => approver.locator('h1').textContent()).toBe('Thank you, you are done');

    // The Viewer's confirmation waits for the document: held back here, it is not offered.
    const viewer = await newPage();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await viewer.route('**/document', async (route) => {
      await held;
      await route.continue();
    });
    await viewer.goto(await issuedLink(envelope, 'Viewing'));
    await eventually(() => viewer.locator('h1').textContent()).toBe('Budget for review');
    const confirm = viewer.getByRole('button', { name: 'Confirm that I have read it' });
    expect(await viewer.locator('.finish').textContent()).toContain('The document is loading');
    expect(await confirm.count()).toBe(0);
    release();
    await eventually(() => confirm.isVisible()).toBe(true);
    await eventually(() => viewer.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    await screenshot(viewer, 'signer-viewer-en');
    await confirm.click();
    await eventually(() => viewer.locator('h1').textContent()).toBe('Thank you, you are done');

    const detail = (await (await api('GET', `/api/v1/envelopes/${envelope.id}`)).json()) as {
      recipients: { roleName: string; status: string }[];
    };
    const statusOf = (role: string) => detail.recipients.find((r) => r.roleName === role)?.status;
    expect(statusOf('Approval')).toBe('Completed');
    expect(statusOf('Viewing')).toBe('Completed');
    expect(statusOf('Client')).not.toBe('Completed');
  });

  it('declines with a required reason, and the other signer sees the envelope declined', async () => {
    const envelope = await sendEnvelope('Lease to decline');
    const page = await newPage();
    const provider = await issuedLink(envelope, 'Provider');

    // The second signer is not in turn yet.
    await page.goto(provider);
    await eventually(() => page.locator('h1').textContent()).toBe('It is not your turn yet');
    expect(await page.locator('body').textContent()).not.toContain('Dana Levi');
    await screenshot(page, 'signer-not-in-turn-en');
    await expectAccessible(page);

    await page.goto(await issuedLink(envelope, 'Client'));
    await eventually(() => page.locator('h1').textContent()).toBe('Lease to decline');
    await page.getByRole('button', { name: 'Decline to sign' }).click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => dialog.getByText('Write a reason to decline.').isVisible()).toBe(true);
    expect(await activeId(page)).toBe('decline-reason');
    await page.getByLabel('Reason').fill('The rent is wrong.');
    await screenshot(page, 'signer-decline-dialog-en');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('You declined');
    await screenshot(page, 'signer-declined-en');
    await expectAccessible(page);
    await eventually(() => envelopeStatus(envelope.id)).toBe('Declined');

    const other = await newPage();
    await other.goto(provider);
    await eventually(() => other.locator('h1').textContent()).toBe('This envelope was declined');
  });

  it('shows a clear page for a cancelled link, an expired one and an unknown one', async () => {
    const envelope = await sendEnvelope('Cancelled order');
    const client = await issuedLink(envelope, 'Client');
    const cancelled = await api('POST', `/api/v1/envelopes/${envelope.id}/cancel`, { reason: 'Changed' });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    const page = await newPage();
    await page.goto(client);
    await eventually(() => page.locator('h1').textContent()).toBe('This envelope was cancelled');
    expect(await page.locator('.state').getAttribute('data-state')).toBe('cancelled');
    expect(await page.locator('.state').textContent()).toContain('Cancelled order');
    expect(await page.locator('input, textarea, select').count()).toBe(0);
    await screenshot(page, 'signer-cancelled-en');
    await expectAccessible(page);

    // A deadline a few seconds away: the workflow's timer expires the envelope.
    const expiring = await sendEnvelope(
      'Offer with a deadline',
      {},
      {},
      {
        expiresAt: new Date(Date.now() + 4_000).toISOString(),
      },
    );
    const expiringLink = await issuedLink(expiring, 'Client');
    await expect.poll(() => envelopeStatus(expiring.id), { interval: 500 }).toBe('Expired');
    await page.goto(expiringLink);
    await eventually(() => page.locator('h1').textContent()).toBe('This envelope has expired');
    expect(await page.locator('.state').getAttribute('data-state')).toBe('expired');
    expect(await page.locator('.state').textContent()).toContain('Offer with a deadline');
    expect(await page.locator('input, textarea, select').count()).toBe(0);
    await screenshot(page, 'signer-expired-en');

    await page.goto(`${baseUrl}/sign/${'x'.repeat(43)}`);
    await eventually(() => page.locator('h1').textContent()).toBe('This link is not valid');
    expect(await page.locator('body').textContent()).not.toMatch(/not_found|404|error/i);
    await screenshot(page, 'signer-unknown-link-en');
    await expectAccessible(page);
  });

  it('asks an SMS recipient with OTP for a code before anything else, then sends the session with every call', async () => {
    const phone = `+97250${String(randomInt(1_000_000, 9_999_999))}`;
    await sendEnvelope('Verified agreement', {
      phone,
      deliveryChannel: 'Sms',
      authenticationMethod: 'OtpSms',
    });
    const page = await newPage();
    await page.goto(await invitedLink(phone));
    await eventually(() => page.locator('h2#otp-title').textContent()).toBe('Verify it is you');
    expect(await page.locator('[data-field-type]').count()).toBe(0);
    expect(await page.locator('.preview').count()).toBe(0);
    // The phone is masked: only its last digits are shown.
    const otpText = String(await page.locator('.otp').textContent());
    expect(otpText).toContain(phone.slice(-2));
    expect(otpText).not.toContain(phone.slice(4, -2));
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await eventually(() => page.getByLabel('6-digit code').isVisible()).toBe(true);
    expect(await activeId(page)).toBe('otp-code');
    // A second code at once is not offered: the resend button waits out the interval.
    expect(await page.getByRole('button', { name: 'Send a new code' }).isDisabled()).toBe(true);
    const latest = await waitForCapture(baseUrl, `kind=otp&to=${encodeURIComponent(phone)}&limit=1`);
    if (!latest.otpCode) throw new Error('no code captured');
    const wrong = latest.otpCode === '000000' ? '111111' : '000000';
    await page.getByLabel('6-digit code').fill(wrong);
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#otp-error').textContent()).toMatch(/The code is wrong/);
    await screenshot(page, 'signer-otp-en');
    await expectAccessible(page);
    await page.getByLabel('6-digit code').fill(latest.otpCode);
    await page.keyboard.press('Enter');
    await eventually(() => page.getByLabel('Client name').isVisible()).toBe(true);
    // The document preview is fetched with the signer session (without it the document answers 403).
    await eventually(() => page.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    await page.getByLabel('Client name').fill('Dana Levi');
    await page.getByLabel('Client name').blur();
    await saved(page);
    // The session lasts for the tab: a reload needs no new code.
    await page.reload();
    await eventually(() => page.getByLabel('Client name').inputValue()).toBe('Dana Levi');
  });

  it("opens in the recipient's Hebrew, right to left, with the switcher", async () => {
    const envelope = await sendEnvelope('הסכם שירות', { language: 'he' });
    const page = await newPage();
    await page.goto(await issuedLink(envelope, 'Client'));
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('שני שדות ממתינים לך');
    expect(await page.getByRole('button', { name: 'עברית' }).getAttribute('aria-pressed')).toBe('true');
    // Right to left: the summary column stands at the right of the fields.
    const summary = await page.locator('.progress').boundingBox();
    const fields = await page.locator('.work').boundingBox();
    if (!summary || !fields) throw new Error('no layout');
    expect(summary.x).toBeGreaterThan(fields.x);
    await eventually(() => page.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    await screenshot(page, 'signer-ready-he-desktop');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'English' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting for you');
    // The choice holds for the tab across a reload.
    await page.reload();
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');

    // A narrower window (a phone turned, a window resized) draws the pages again at the new width.
    const canvasWidth = () =>
      page
        .locator('.preview canvas')
        .first()
        .evaluate((c: { width: number }) => c.width);
    await eventually(() => page.locator('.preview canvas[data-rendered="true"]').count()).toBe(1);
    const wide = await canvasWidth();
    await page.setViewportSize(PHONE);
    await eventually(canvasWidth).toBeLessThan(wide / 2);
  });

  it('fits a 375-pixel phone in both languages', async () => {
    const envelope = await sendEnvelope('Phone-sized agreement with a long title that wraps');
    const client = await issuedLink(envelope, 'Client');
    for (const language of ['en', 'he'] as const) {
      const page = await newPage(PHONE, language === 'he' ? 'he-IL' : 'en-US');
      await page.goto(`${client}?lang=${language}`);
      await eventually(() => page.getByTestId('awaiting').isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      await screenshot(page, `signer-ready-${language}-phone`);
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      const input = await page.locator('[data-field-type="Full name"] input').boundingBox();
      expect(input && input.x >= 0 && input.x + input.width <= PHONE.width).toBe(true);
      await expectAccessible(page);
    }
  });

  it("shows the organization's own consent text and its privacy notice, set through the settings", async () => {
    // An organization of its own, so the other tests keep the default consent.
    const branded = await newIntegrator(harness);
    const owner = await signedInUser(harness, { role: 'owner', organizationId: branded.organizationId });
    const consentText = 'I accept Acme’s terms of electronic signature.\nAcme keeps a copy for seven years.';
    const privacyNotice = 'Acme processes your name and address only to sign this agreement.';
    const settings = await fetch(`${baseUrl}/api/organization/settings`, {
      method: 'PUT',
      headers: { cookie: owner.cookie, origin: baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ consentText, privacyNotice }),
    });
    expect(settings.status, await settings.clone().text()).toBe(200);
    const headers = await branded.auth();
    const created = await fetch(`${baseUrl}/api/v1/envelopes/from-template`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Branded agreement',
        templateId: branded.templateId,
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', deliveryChannel: 'ManualLink', signingOrder: 1 },
          { roleName: 'Provider', fullName: 'Sam Cohen', deliveryChannel: 'ManualLink', signingOrder: 2 },
        ],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const envelope = (await created.json()) as { id: string; recipients: { id: string }[] };
    const sent = await fetch(`${baseUrl}/api/v1/envelopes/${envelope.id}/send`, { method: 'POST', headers });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const issued = await fetch(
      `${baseUrl}/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[0]?.id}/signing-link`,
      { method: 'POST', headers },
    );
    expect(issued.status, await issued.clone().text()).toBe(200);

    const page = await newPage();
    await page.goto(pageAddress(((await issued.json()) as { url: string }).url));
    await eventually(() => page.locator('h1').textContent()).toBe('Branded agreement');
    // The organization's consent replaces the default wording, line breaks kept.
    const consent = page.locator('.consent-text');
    expect(await consent.textContent()).toBe(consentText);
    // Its line breaks show (white-space: pre-line), as the browser computes the style.
    const style = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(
        element,
      ).whiteSpace;
    expect(await consent.evaluate(style)).toBe('pre-line');
    expect(await consent.textContent()).not.toContain('legally binding');
    // The privacy notice: closed until the signer opens it.
    const notice = page.locator('.privacy-text');
    expect(await notice.isVisible()).toBe(false);
    await page.getByText('Privacy notice').click();
    await eventually(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toBe(privacyNotice);
    await screenshot(page, 'signer-consent-privacy');
    await expectAccessible(page);
  });
});
