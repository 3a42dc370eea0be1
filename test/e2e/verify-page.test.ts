// The public verification page (/verify, docs/sealing.md, "Verification") in a real browser against a real
// Sigil app: a Completed envelope sealed by the shared test worker (the development CA), its final PDF and
// audit trail written to files and chosen with the page's file picker (found by its label, as a keyboard or
// screen-reader user finds it) — the page sends the PDF itself to POST /api/verify. The final PDF is "Sealed
// by Sigil and unchanged" (green) with the envelope's title, both signers and their signing times in the
// page's language, the level, the certificate's fingerprint and an intact audit chain (its two figures said in
// a sentence: the events sealed, and how many were recorded after the seal); the audit trail is
// recognised as such; a copy with one byte of the signed bytes changed is "Changed after sealing" (red); a
// text file is refused as not a PDF; an answer of 413, 429 (with Retry-After) and no answer at all are said
// in words. In English and in Hebrew (right to left, through the header's language switch too), on a desktop
// and on a 375-pixel phone; axe-core's WCAG 2.1 AA rules on every screen. Screenshots go to
// /tmp/shots-sealing/ (and test/artifacts/web/).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VerificationResult } from '../../domain/secure-signature.ts';
import type { ApiHarness } from '../support/api.ts';
import { eventually, expectAccessible, useAppBrowser } from '../support/app-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { completeSealedEnvelope, type SealedEnvelope } from '../support/sealed-envelope.ts';
import { signedInUser } from '../support/signed-in-user.ts';

const SHOTS = '/tmp/shots-sealing';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let sealed: SealedEnvelope;
let files: { final: string; trail: string; tampered: string; text: string };

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** A copy with one byte of the signed bytes changed: inside the first object's "obj" keyword. */
function tampered(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes);
  const at = Buffer.from(copy).toString('latin1').indexOf(' obj') + 2;
  copy[at] = (copy[at] as number) ^ 0x01;
  return copy;
}

beforeAll(async () => {
  const owner = await signedInUser(harness, { role: 'owner' });
  sealed = await completeSealedEnvelope(harness.ctx, owner.organization.id, 'Lease of 12 Harbour Street');
  const dir = await mkdtemp(join(tmpdir(), 'sigil-verify-page-'));
  files = {
    final: join(dir, 'lease-signed.pdf'),
    trail: join(dir, 'lease-audit-trail.pdf'),
    tampered: join(dir, 'lease-edited.pdf'),
    text: join(dir, 'notes.txt'),
  };
  await writeFile(files.final, sealed.finalPdf);
  await writeFile(files.trail, sealed.auditTrail);
  await writeFile(files.tampered, tampered(sealed.finalPdf));
  await writeFile(files.text, 'These are my notes about the lease, not a PDF.\n');
  await mkdir(SHOTS, { recursive: true });
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await browser.screenshot(page, name);
}

async function openVerify(page: Page, query = ''): Promise<void> {
  await page.goto(`${baseUrl}/verify${query}`);
  await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
}

/** The file picker, by its label in either language. */
function picker(page: Page) {
  return page.getByLabel(/^(Choose a PDF file|בחירת קובץ PDF)$/);
}

async function check(page: Page, path: string, verdict: string): Promise<void> {
  await picker(page).setInputFiles(path);
  await eventually(() => page.getByTestId('verify-result').getAttribute('data-verdict')).toBe(verdict);
}

async function text(page: Page, testid: string): Promise<string> {
  return ((await page.getByTestId(testid).textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** What the server answers for the file (to compare the page with). */
async function verification(bytes: Uint8Array): Promise<VerificationResult> {
  const response = await fetch(`${baseUrl}/api/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/pdf' },
    body: Buffer.from(bytes),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as VerificationResult;
}

/** An element's background colour as drawn (green for intact, red for modified). */
function background(locator: Locator): Promise<string> {
  return locator.evaluate((element) => {
    // The page's window (this project type-checks without the DOM library).
    const view = globalThis as unknown as { getComputedStyle(target: unknown): { backgroundColor: string } };
    return view.getComputedStyle(element).backgroundColor;
  });
}

/** A time as the page shows it in `language` (the browser's own Intl, in the browser's time zone). */
function pageTime(page: Page, iso: string, language: string): Promise<string> {
  return page.evaluate(
    `new Intl.DateTimeFormat(${JSON.stringify(language)}, { dateStyle: 'medium', timeStyle: 'short' })` +
      `.format(new Date(${JSON.stringify(iso)}))`,
  ) as Promise<string>;
}

describe('the verification page', () => {
  it('says a sealed final PDF is intact, with its envelope, signers, seal and audit chain, in English', async () => {
    const page = await browser.newPage(DESKTOP);
    const requests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) {
        requests.push(`${request.method()} ${url.pathname} ${request.headers()['content-type'] ?? ''}`);
      }
    });
    await openVerify(page);
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Verify a signed document');
    expect(await page.getByTestId('drop-zone').textContent()).toContain('Drop a PDF here');
    // The file input is reachable by keyboard: it takes the focus, and its label is the visible button.
    await picker(page).focus();
    expect(await page.evaluate('document.activeElement.id')).toBe('verify-file');
    await expectAccessible(page, 'verify: empty');
    await shot(page, 'verify-en-desktop-empty');

    await check(page, files.final, 'intact');
    expect(requests).toEqual(['POST /api/verify application/pdf']);
    expect(await text(page, 'verdict')).toContain('Sealed by Sigil and unchanged');
    expect(await text(page, 'verdict')).toContain('lease-signed.pdf');
    // The outcome's heading has the focus, so it is read out.
    expect(await page.evaluate('document.activeElement.id')).toBe('verify-outcome');
    // Green.
    expect(await background(page.getByTestId('verdict'))).toBe('rgb(233, 246, 238)');
    expect(await text(page, 'document-kind')).toBe('The signed document');
    expect(await text(page, 'envelope-title')).toBe('Lease of 12 Harbour Street');
    const answer = await verification(sealed.finalPdf);
    const signers = page.getByTestId('signers').locator('li');
    expect(await signers.count()).toBe(2);
    for (const signer of answer.envelope?.signers ?? []) {
      const line = (await page.locator(`[data-signer="${signer.name}"]`).textContent()) ?? '';
      expect(line).toContain(signer.role);
      expect(line).toContain(`Signed ${await pageTime(page, signer.completedAt as string, 'en')}`);
    }
    expect((await signers.allTextContents()).join(' ')).toMatch(/Dana Levi[\s\S]*Sam Cohen/);
    expect(await text(page, 'seal-level')).toContain('B-B · Basic signature');
    expect(await text(page, 'seal-signer')).toContain('Sigil Document Seal');
    expect(await text(page, 'seal-timestamp')).toBe('None: the time is the one the seal states');
    expect(await text(page, 'seal-time')).toBe(
      await pageTime(page, answer.signature?.signedAt as string, 'en'),
    );
    expect(await text(page, 'seal-valid')).toBe('✓ Matches the signed content');
    expect(await text(page, 'seal-coverage')).toBe('✓ Covers the whole file');
    // The fingerprint: shortened on its line, whole (selectable) when opened.
    const hex = (answer.signature?.certificateSha256 ?? '').toUpperCase();
    expect(hex).toMatch(/^[0-9A-F]{64}$/);
    expect(await text(page, 'fingerprint-short')).toBe(
      `${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}:${hex.slice(6, 8)}…` +
        `${hex.slice(56, 58)}:${hex.slice(58, 60)}:${hex.slice(60, 62)}:${hex.slice(62, 64)}`,
    );
    expect(await page.getByTestId('fingerprint').isVisible()).toBe(false);
    await page.getByText('Show the whole fingerprint').click();
    expect((await text(page, 'fingerprint')).replace(/:/g, '')).toBe(hex);
    expect(await text(page, 'audit-chain')).toBe('✓ Intact');
    expect(await text(page, 'chain-events')).toBe(String(answer.auditChain?.events));
    // The two figures in words: what the document sealed, and what was recorded after it.
    const sealedEvents = answer.auditChain?.sealedEvents ?? 0;
    const later = (answer.auditChain?.events ?? 0) - sealedEvents;
    expect(sealedEvents).toBeGreaterThan(1);
    expect(later).toBeGreaterThan(0);
    const explained = await text(page, 'chain-explained');
    expect(explained).toContain(
      `The document sealed the first ${sealedEvents} events of this envelope's audit trail.`,
    );
    expect(explained).toContain(
      `${later} more ${later === 1 ? 'event was' : 'events were'} recorded after it was sealed`,
    );
    expect(explained).toContain('the sealed events are unchanged');
    expect(await text(page, 'reasons')).toContain('it is unchanged since');
    expect(await pageWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    await expectAccessible(page, 'verify: intact');
    await shot(page, 'verify-en-desktop-intact');

    // The audit trail is sealed too, and recognised as the audit trail.
    await check(page, files.trail, 'intact');
    expect(await text(page, 'document-kind')).toBe('The audit trail: the record of who signed and when');
    expect(await text(page, 'verdict')).toContain('the record of who signed and when is the original');

    // One byte of the signed bytes changed: red, and why.
    await check(page, files.tampered, 'modified');
    expect(await text(page, 'verdict')).toContain('Changed after sealing');
    expect(await text(page, 'verdict')).toContain('its content was changed afterwards');
    expect(await background(page.getByTestId('verdict'))).toBe('rgb(253, 236, 236)');
    expect(await text(page, 'seal-valid')).toBe('✕ Does not match the signed content');
    expect(await text(page, 'envelope-title')).toBe('Lease of 12 Harbour Street');
    expect(await text(page, 'reasons')).toContain('changed afterwards');
    await expectAccessible(page, 'verify: modified');
    await shot(page, 'verify-en-desktop-modified');

    // Not a PDF: refused in words, with the server's answer.
    await picker(page).setInputFiles(files.text);
    const refusal = page.getByTestId('verify-error');
    await eventually(() => refusal.getAttribute('data-refusal')).toBe('notPdf');
    expect(await page.getByTestId('verify-result').count()).toBe(0);
    expect(await refusal.textContent()).toContain('The file could not be checked');
    expect(await refusal.textContent()).toContain('This file is not a PDF.');
    expect(await refusal.textContent()).toContain('notes.txt');
    expect(await refusal.textContent()).toContain('the file is not a PDF');
    expect(await page.getByRole('alert').count()).toBe(1);
    await expectAccessible(page, 'verify: not a PDF');
    await shot(page, 'verify-en-desktop-not-pdf');
  });

  it('reads right to left in Hebrew, dates in Hebrew, and switches language from the header', async () => {
    const page = await browser.newPage(DESKTOP, 'he-IL');
    await openVerify(page);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('אימות מסמך חתום');
    await expectAccessible(page, 'verify he: empty');
    await check(page, files.final, 'intact');
    expect(await text(page, 'verdict')).toContain('נחתם בחותמת Sigil ולא שונה');
    expect(await text(page, 'envelope-title')).toBe('Lease of 12 Harbour Street');
    const answer = await verification(sealed.finalPdf);
    const dana = answer.envelope?.signers.find((signer) => signer.name === 'Dana Levi');
    const line = (await page.locator('[data-signer="Dana Levi"]').textContent()) ?? '';
    expect(line).toContain(`חתימה ב-${await pageTime(page, dana?.completedAt as string, 'he')}`);
    expect(await text(page, 'audit-chain')).toBe('✓ שלמה');
    expect(await text(page, 'chain-explained')).toContain('האירועים שנחתמו לא השתנו');
    // Right to left: the verdict's mark is at the right of its text.
    const mark = await page.locator('.verdict-mark').boundingBox();
    const heading = await page.locator('#verify-outcome').boundingBox();
    expect(mark?.x ?? 0).toBeGreaterThan(heading?.x ?? 0);
    await page.getByText('הצגת טביעת האצבע המלאה').click();
    await expectAccessible(page, 'verify he: intact');
    await shot(page, 'verify-he-desktop-intact');

    await check(page, files.tampered, 'modified');
    expect(await text(page, 'verdict')).toContain('שונה אחרי החתימה בחותמת');
    await expectAccessible(page, 'verify he: modified');
    await shot(page, 'verify-he-desktop-modified');

    await picker(page).setInputFiles(files.text);
    await eventually(() => page.getByTestId('verify-error').textContent()).toContain('הקובץ הזה אינו PDF.');
    await expectAccessible(page, 'verify he: not a PDF');
    await shot(page, 'verify-he-desktop-not-pdf');

    // The header's switch: English at once, the outcome kept.
    await page.getByRole('button', { name: 'English' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Verify a signed document');
    expect(await page.getByTestId('verify-error').textContent()).toContain('This file is not a PDF.');
  });

  it('fits a 375-pixel phone in both languages', async () => {
    for (const [locale, name] of [
      ['en-US', 'verify-en-phone'],
      ['he-IL', 'verify-he-phone'],
    ] as const) {
      const page = await browser.newPage(PHONE, locale);
      await openVerify(page);
      await check(page, files.final, 'intact');
      await page.locator('details.whole summary').click();
      expect(await pageWidth(page), name).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(page, name);
      await shot(page, `${name}-intact`);
      await check(page, files.tampered, 'modified');
      expect(await pageWidth(page), name).toBeLessThanOrEqual(PHONE.width);
      await shot(page, `${name}-modified`);
    }
  });

  it('says in words when the file is too large, when the address checked too many, and when no server answers', async () => {
    const page = await browser.newPage(DESKTOP);
    await openVerify(page);
    const refusal = page.getByTestId('verify-error');
    const answer = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      page.route('**/api/verify', (route) =>
        route.fulfill({
          status,
          headers,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code, message, details: [], request_id: 'verify-e2e' } }),
        }),
      );

    await answer(413, 'payload_too_large', 'The request body is larger than 25 MB, the most a PDF may be.');
    await picker(page).setInputFiles(files.final);
    await eventually(() => refusal.getAttribute('data-refusal')).toBe('tooLarge');
    expect(await refusal.textContent()).toContain('This file is larger than Sigil checks.');
    expect(await refusal.textContent()).toContain('larger than 25 MB');
    await page.unroute('**/api/verify');

    await answer(
      429,
      'rate_limited',
      'Too many verification requests from 127.0.0.1: at most 30 per minute. Retry in 42 seconds.',
      { 'retry-after': '42' },
    );
    await picker(page).setInputFiles(files.final);
    await eventually(() => refusal.getAttribute('data-refusal')).toBe('rateLimited');
    expect(await refusal.textContent()).toContain(
      'Too many files were checked from your address in the last minute. Try again in 42 seconds.',
    );
    await expectAccessible(page, 'verify: rate limited');
    await shot(page, 'verify-en-desktop-rate-limited');
    await page.unroute('**/api/verify');

    await page.route('**/api/verify', (route) => route.abort('internetdisconnected'));
    await picker(page).setInputFiles(files.final);
    await eventually(() => refusal.getAttribute('data-refusal')).toBe('unreachable');
    expect(await refusal.textContent()).toContain('The server could not be reached.');
    await page.unroute('**/api/verify');

    // "Choose another file" opens the picker again; the next file is checked.
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose another file' }).click();
    await (await chooser).setFiles(files.final);
    await eventually(() => page.getByTestId('verify-result').getAttribute('data-verdict')).toBe('intact');
    expect(await refusal.count()).toBe(0);
  });
});
