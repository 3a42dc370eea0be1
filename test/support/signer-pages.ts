// The signer page's browser tests' harness (test/e2e/signer-page*.test.ts): a real Sigil app listening on a port,
// Debian's Chromium, an integrator with the templates the journeys use (signer-templates.ts), and envelopes created
// and sent through the public API. Email and SMS recipients' links (and codes) are read from the development capture as the
// worker sends them; ManualLink recipients' links are issued through the public API.
import { createHash, randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { accessibilityViolations } from './accessibility.ts';
import { type ApiHarness, type Integrator, listenLocally, newIntegrator, openApiHarness } from './api.ts';
import { DESKTOP, launchTestBrowser, type TestBrowser } from './browser.ts';
import { waitForCapture } from './dev-notifications.ts';
import { publishSignerTemplates, type SignerTemplates, TERMS } from './signer-templates.ts';

export { TERMS };

export interface Sent {
  id: string;
  /** Recipient ids by role. */
  recipients: Record<string, string>;
}

export interface SignerPages extends SignerTemplates {
  harness: ApiHarness;
  acme: Integrator;
  browser: TestBrowser;
  baseUrl: string;
}

export async function openSignerPages(): Promise<SignerPages> {
  const browser = await launchTestBrowser();
  const harness = await openApiHarness();
  const baseUrl = await listenLocally(harness.app);
  const acme = await newIntegrator(harness);
  return { harness, acme, browser, baseUrl, ...(await publishSignerTemplates(harness, acme)) };
}

/** A new page of the harness's browser: a desktop in English unless told otherwise. */
export function newSignerPage(
  pages: SignerPages,
  viewport = DESKTOP,
  locale = 'en-US',
  touch = false,
): Promise<Page> {
  return pages.browser.newPage(viewport, locale, { touch });
}

/** A screenshot into test/artifacts/web/<name>.png. */
export function screenshot(pages: SignerPages, page: Page, name: string): Promise<void> {
  return pages.browser.screenshot(page, name);
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
