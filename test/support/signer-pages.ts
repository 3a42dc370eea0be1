// The signer page's browser tests' harness (test/e2e/signer-page*.test.ts): a real Sigil app listening on a port,
// Debian's Chromium, an integrator with the templates the journeys use, and envelopes created and sent through
// the public API. Email and SMS recipients' links (and codes) are read from the development capture as the
// worker sends them; ManualLink recipients' links are issued through the public API.
import { createHash, randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { TemplateField } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { accessibilityViolations } from './accessibility.ts';
import { type ApiHarness, type Integrator, listenLocally, newIntegrator, openApiHarness } from './api.ts';
import { launchTestBrowser, type TestBrowser } from './browser.ts';
import { waitForCapture } from './dev-notifications.ts';

const box = { page: 1, width: 150, height: 20 };
export const TERMS = 'Payment within 30 days of the invoice.';

/** Every plain field type for the Client, one field for the Provider; the Start date is written DD/MM/YYYY. */
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

/**
 * Three signature fields named only by their type (as the builder names a field nobody renamed), initials, a
 * stamp and two uploads: the signer sees "Signature 1…3" in reading order, in the page's language.
 */
const SIGNATURE_TEMPLATE = {
  name: 'Signature and uploads template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 1',
      x: 40,
      y: 80,
      required: true,
      ...box,
      height: 50,
    },
    { type: 'Initials', role: 'Client', label: 'Initials', x: 220, y: 80, required: true, ...box, width: 60 },
    { type: 'Company stamp', role: 'Client', label: 'Stamp', x: 300, y: 80, ...box, width: 80, height: 60 },
    { type: 'File upload', role: 'Client', label: 'Contract copy', x: 40, y: 160, required: true, ...box },
    { type: 'Image upload', role: 'Client', label: 'Photo ID', x: 40, y: 200, ...box, height: 80 },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 2',
      x: 40,
      y: 300,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature',
      x: 300,
      y: 300,
      required: true,
      ...box,
      height: 50,
    },
  ],
};

/** One row of three signatures and one of three texts, for the right-to-left order, and a DD/MM/YYYY date. */
const ROW_TEMPLATE = {
  name: 'Rows template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Text', role: 'Client', label: 'Text 1', x: 40, y: 60, ...box, width: 140 },
    { type: 'Text', role: 'Client', label: 'Text 2', x: 220, y: 60, ...box, width: 140 },
    { type: 'Text', role: 'Client', label: 'Text 3', x: 400, y: 60, ...box, width: 140 },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 1',
      x: 40,
      y: 140,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 2',
      x: 220,
      y: 141,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 3',
      x: 400,
      y: 140,
      required: true,
      ...box,
      height: 50,
    },
    { type: 'Date', role: 'Client', label: 'Date 1', x: 40, y: 240, required: true, ...box, width: 100 },
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

export interface Sent {
  id: string;
  /** Recipient ids by role. */
  recipients: Record<string, string>;
}

export interface SignerPages {
  harness: ApiHarness;
  acme: Integrator;
  browser: TestBrowser;
  baseUrl: string;
  templates: { plain: string; signatures: string; rows: string; review: string };
  termsFieldId: string;
}

async function publish(
  harness: ApiHarness,
  acme: Integrator,
  definition: object,
  title: string,
): Promise<string> {
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(title),
    filename: `${title}.pdf`,
    definition: definition as never,
    publish: true,
  });
  return template.id;
}

/** Writes a Date field's format, which the template definition's input does not take. */
async function dateFormat(harness: ApiHarness, templateId: string, label: string, format: string) {
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(
      TemplateField,
      { templateId, label },
      { properties: { dateFormat: format as 'DD/MM/YYYY' } },
    );
}

export async function openSignerPages(): Promise<SignerPages> {
  const browser = await launchTestBrowser();
  const harness = await openApiHarness();
  const baseUrl = await listenLocally(harness.app);
  const acme = await newIntegrator(harness);
  const plain = await publish(harness, acme, PLAIN_TEMPLATE, 'Plain agreement');
  await dateFormat(harness, plain, 'Start date', 'DD/MM/YYYY');
  const rows = await publish(harness, acme, ROW_TEMPLATE, 'Rows agreement');
  await dateFormat(harness, rows, 'Date 1', 'DD/MM/YYYY');
  const terms = await harness.ctx.orm.em
    .fork()
    .findOneOrFail(TemplateField, { templateId: plain, label: 'Terms' });
  return {
    harness,
    acme,
    browser,
    baseUrl,
    templates: {
      plain,
      signatures: await publish(harness, acme, SIGNATURE_TEMPLATE, 'Signature agreement'),
      rows,
      review: await publish(harness, acme, REVIEW_TEMPLATE, 'Review'),
    },
    termsFieldId: terms.id,
  };
}

export async function closeSignerPages(pages: SignerPages | undefined): Promise<void> {
  await pages?.browser.close();
  await pages?.harness.close();
}

export async function api(
  pages: SignerPages,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${pages.baseUrl}${path}`, {
    method,
    headers: {
      ...(await pages.acme.auth()),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The page address of a signing link, on the port this test listens on. */
export function pageAddress(pages: SignerPages, link: string): string {
  return `${pages.baseUrl}/sign/${link.split('/sign/')[1]}`;
}

/** Creates an envelope from a template through the public API and sends it. */
export async function createAndSend(pages: SignerPages, body: Record<string, unknown>): Promise<Sent> {
  const created = await api(pages, 'POST', '/api/v1/envelopes/from-template', body);
  expect(created.status, await created.clone().text()).toBe(201);
  const envelope = (await created.json()) as { id: string; recipients: { id: string; roleName: string }[] };
  const sent = await api(pages, 'POST', `/api/v1/envelopes/${envelope.id}/send`);
  expect(sent.status, await sent.clone().text()).toBe(200);
  return {
    id: envelope.id,
    recipients: Object.fromEntries(envelope.recipients.map((r) => [r.roleName, r.id])),
  };
}

/** A Sequential envelope of the plain template: the Client signs first, then the Provider. */
export function sendEnvelope(
  pages: SignerPages,
  title: string,
  client: Record<string, unknown> = {},
  provider: Record<string, unknown> = {},
  envelope: Record<string, unknown> = {},
): Promise<Sent> {
  return createAndSend(pages, {
    ...envelope,
    title,
    workflowType: 'Sequential',
    templateId: pages.templates.plain,
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
    initialValues: [{ fieldDefinitionId: pages.termsFieldId, value: TERMS }],
  });
}

/** An envelope of a one-role template sent to one ManualLink Client; the page address of the link. */
export async function sendToClient(
  pages: SignerPages,
  templateId: string,
  title: string,
  client: Record<string, unknown> = {},
): Promise<{ id: string; url: string }> {
  const sent = await createAndSend(pages, {
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
    ],
  });
  return { id: sent.id, url: await issuedLink(pages, sent, 'Client') };
}

/** The page address of a ManualLink recipient's link, issued through the public API. */
export async function issuedLink(pages: SignerPages, envelope: Sent, role: string): Promise<string> {
  const issued = await api(
    pages,
    'POST',
    `/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[role]}/signing-link`,
  );
  expect(issued.status, await issued.clone().text()).toBe(200);
  return pageAddress(pages, ((await issued.json()) as { url: string }).url);
}

/** The page address of the link in the newest invitation sent to an address or phone (as captured). */
export async function invitedLink(pages: SignerPages, to: string): Promise<string> {
  const invitation = await waitForCapture(
    pages.baseUrl,
    `kind=invitation&to=${encodeURIComponent(to)}&limit=1`,
  );
  if (!invitation.signingLink) throw new Error(`the invitation to ${to} has no link`);
  return pageAddress(pages, invitation.signingLink);
}

export function uniqueEmail(name: string): string {
  return `${name}.${randomInt(1e9)}@example.com`;
}

/** The final PDF of a Completed envelope, through the public API: its text and its attachments' sizes. */
export async function finalPdf(
  pages: SignerPages,
  id: string,
): Promise<{ text: string; attachments: Map<string, number> }> {
  const response = await api(pages, 'GET', `/api/v1/envelopes/${id}/documents/final-pdf`);
  expect(response.status).toBe(200);
  const task = getDocument({ data: new Uint8Array(await response.arrayBuffer()), verbosity: 0 });
  const pdf = await task.promise;
  const texts: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    texts.push(
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
  return { text: texts.join('\n'), attachments };
}

export async function envelopeStatus(pages: SignerPages, id: string): Promise<string> {
  const response = await api(pages, 'GET', `/api/v1/envelopes/${id}`);
  return ((await response.json()) as { status: string }).status;
}

/** expect.poll with room for a loaded machine (two browsers, the app, Temporal and PostgreSQL on 2 cores). */
export function eventually<T>(read: () => Promise<T>) {
  return expect.poll(read, { interval: 100 });
}

/** No WCAG 2.1 A/AA violation on what the page shows now (axe-core). */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

/** Waits until every change is saved (the guide bar says so). */
export async function saved(page: Page): Promise<void> {
  await eventually(() => page.locator('.save-status').getAttribute('data-status')).toBe('saved');
}

/** The name of the field that has the focus (its control's, or its radio group's). */
export function focusedField(page: Page): Promise<string> {
  return page.evaluate(
    `(() => { const e = document.activeElement; const g = e?.closest('[role=radiogroup]');
      return (g ?? e)?.getAttribute('aria-label') ?? e?.querySelector('.visually-hidden')?.textContent ?? ''; })()`,
  ) as Promise<string>;
}

/** The pages' first canvas has been drawn. */
export async function documentShown(page: Page): Promise<void> {
  await eventually(() => page.locator('.pages canvas[data-rendered="true"]').count()).toBeGreaterThan(0);
}

/** Whether an image has loaded (a broken or still-loading one has no natural width). */
export function imageLoaded(image: ReturnType<Page['locator']>): Promise<boolean> {
  return image.evaluate(
    (element: { complete: boolean; naturalWidth: number }) => element.complete && element.naturalWidth > 0,
  );
}

/** The SHA-256 of what a download link of the page saves (Playwright's download event). */
export async function downloadedSha256(page: Page, link: ReturnType<Page['locator']>): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const path = await download.path();
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** The SHA-256 of a document of an envelope through /api/v1 (`final-pdf`, `audit-trail`). */
export async function apiSha256(pages: SignerPages, id: string, document: string): Promise<string> {
  const response = await api(pages, 'GET', `/api/v1/envelopes/${id}/documents/${document}`);
  expect(response.status).toBe(200);
  return createHash('sha256')
    .update(Buffer.from(await response.arrayBuffer()))
    .digest('hex');
}
