// The signer page (/sign/<token>, first slice: the plain field types) in a real browser (Debian's Chromium
// driven by playwright-core) against a real Sigil app listening on a port. Envelopes are created and sent
// through the public API for a template of plain fields, their ManualLink recipients' links issued through
// POST /api/v1/envelopes/{id}/recipients/{recipientId}/signing-link. Two sequential signers fill and
// complete until the envelope is Completed; another envelope is declined with a reason; a cancelled link,
// an unknown link and a link not yet in turn get their own pages; an OTP recipient verifies a code; the
// recipient's Hebrew opens right to left; a 375-pixel phone. Screenshots go to test/artifacts/web/.
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplate } from '../../api/services/templates/create-template.ts';
import { TemplateField } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../db/seed/demo-pdf.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = fileURLToPath(new URL('../artifacts/web', import.meta.url));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

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

let harness: ApiHarness;
let acme: Integrator;
let browser: Browser;
let baseUrl: string;
let templateId: string;
let termsFieldId: string;
const contexts: BrowserContext[] = [];

async function listen(): Promise<string> {
  await harness.app.listen({ host: '127.0.0.1', port: 0 });
  const address = harness.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

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
  /** The page address of each recipient's signing link, by role. */
  client: string;
  provider: string;
}

async function sendEnvelope(
  title: string,
  client: Record<string, unknown> = {},
  provider: Record<string, unknown> = {},
): Promise<Sent> {
  const created = await api('POST', '/api/v1/envelopes/from-template', {
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
  expect(created.status, await created.clone().text()).toBe(201);
  const envelope = (await created.json()) as { id: string; recipients: { id: string; roleName: string }[] };
  const sent = await api('POST', `/api/v1/envelopes/${envelope.id}/send`);
  expect(sent.status, await sent.clone().text()).toBe(200);
  const link = async (role: string) => {
    const recipient = envelope.recipients.find((r) => r.roleName === role);
    if (!recipient) throw new Error(`no ${role}`);
    const issued = await api(
      'POST',
      `/api/v1/envelopes/${envelope.id}/recipients/${recipient.id}/signing-link`,
    );
    expect(issued.status, await issued.clone().text()).toBe(200);
    const { url } = (await issued.json()) as { url: string };
    return `${baseUrl}/sign/${url.split('/sign/')[1]}`;
  };
  return { id: envelope.id, client: await link('Client'), provider: await link('Provider') };
}

async function envelopeStatus(id: string): Promise<string> {
  const response = await api('GET', `/api/v1/envelopes/${id}`);
  return ((await response.json()) as { status: string }).status;
}

async function newPage(viewport = DESKTOP, locale = 'en-US'): Promise<Page> {
  const context = await browser.newContext({ viewport, locale });
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  return page;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function pageWidth(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth'));
}

async function activeId(page: Page): Promise<string> {
  return String(await page.evaluate('document.activeElement?.id'));
}

/** expect.poll with room for a loaded machine (two browsers, the app, Temporal and PostgreSQL on 2 cores). */
function eventually<T>(read: () => Promise<T>) {
  return expect.poll(read, { timeout: 15_000, interval: 100 });
}

/** Waits until every change is saved (the page says so). */
async function saved(page: Page): Promise<void> {
  await eventually(() => page.locator('.save-status').getAttribute('data-status')).toBe('saved');
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}. The browser tests drive Debian's chromium package: ` +
        'install it with `apt-get install -y chromium` (or set CHROMIUM_PATH to a Chromium binary).',
    );
  }
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  harness = await openApiHarness();
  baseUrl = await listen();
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
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await harness?.close();
});

describe('the signer page', () => {
  it('takes two sequential signers through every plain field, consent and completion', async () => {
    const envelope = await sendEnvelope('Services agreement');
    const page = await newPage();

    // The second signer is not in turn yet.
    await page.goto(envelope.provider);
    await eventually(() => page.locator('h1').textContent()).toBe('It is not your turn yet');
    await screenshot(page, 'signer-not-in-turn-en');

    await page.goto(envelope.client);
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
    await screenshot(page, 'signer-ready-en-desktop');

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
    await screenshot(page, 'signer-ready-to-complete-en');
    await finish.focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await page.locator('.state').textContent()).toContain('When everyone has finished');
    await screenshot(page, 'signer-completed-en');

    // The first signer's link now says they are done.
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');

    // The second signer, in turn now.
    const second = await newPage();
    await second.goto(envelope.provider);
    await eventually(() => second.locator('h1').textContent()).toBe('Services agreement');
    await second.getByLabel('Provider name').fill('Sam Cohen');
    await second.getByLabel('Provider name').blur();
    await saved(second);
    await second.getByLabel('I agree').check();
    await second.getByRole('button', { name: 'Sign and complete' }).click();
    await eventually(() => second.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await second.locator('.state').textContent()).toContain('You were the last one');
    await expect
      .poll(() => envelopeStatus(envelope.id), { timeout: 60_000, interval: 500 })
      .toBe('Completed');
    await second.reload();
    await eventually(() => second.locator('h1').textContent()).toBe('Already completed');
  });

  it('declines with a required reason, and the other signer sees the envelope declined', async () => {
    const envelope = await sendEnvelope('Lease to decline');
    const page = await newPage();
    await page.goto(envelope.client);
    await eventually(() => page.locator('h1').textContent()).toBe('Lease to decline');
    await page.getByRole('button', { name: 'Decline to sign' }).click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => dialog.getByText('Write a reason to decline.').isVisible()).toBe(true);
    expect(await activeId(page)).toBe('decline-reason');
    await page.getByLabel('Reason').fill('The rent is wrong.');
    await screenshot(page, 'signer-decline-dialog-en');
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('You declined');
    await screenshot(page, 'signer-declined-en');
    await eventually(() => envelopeStatus(envelope.id)).toBe('Declined');

    const other = await newPage();
    await other.goto(envelope.provider);
    await eventually(() => other.locator('h1').textContent()).toBe('This envelope was declined');
  });

  it('shows a clear page for a cancelled link and for an unknown one', async () => {
    const envelope = await sendEnvelope('Cancelled order');
    const cancelled = await api('POST', `/api/v1/envelopes/${envelope.id}/cancel`, { reason: 'Changed' });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    const page = await newPage();
    await page.goto(envelope.client);
    await eventually(() => page.locator('h1').textContent()).toBe('This envelope was cancelled');
    expect(await page.locator('.state').getAttribute('data-state')).toBe('cancelled');
    expect(await page.locator('.state').textContent()).toContain('Cancelled order');
    expect(await page.locator('input, textarea, select').count()).toBe(0);
    await screenshot(page, 'signer-cancelled-en');

    await page.goto(`${baseUrl}/sign/${'x'.repeat(43)}`);
    await eventually(() => page.locator('h1').textContent()).toBe('This link is not valid');
    expect(await page.locator('body').textContent()).not.toMatch(/not_found|404|error/i);
    await screenshot(page, 'signer-unknown-link-en');
  });

  it('asks an OTP recipient for a code before anything else, then sends the session with every call', async () => {
    const phone = `+97250${String(randomInt(1_000_000, 9_999_999))}`;
    const envelope = await sendEnvelope('Verified agreement', { phone, authenticationMethod: 'OtpSms' });
    const page = await newPage();
    await page.goto(envelope.client);
    await eventually(() => page.locator('h2#otp-title').textContent()).toBe('Verify it is you');
    expect(await page.locator('[data-field-type]').count()).toBe(0);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await eventually(() => page.getByLabel('6-digit code').isVisible()).toBe(true);
    expect(await activeId(page)).toBe('otp-code');
    const codes = await fetch(`${baseUrl}/api/dev/notifications?kind=otp&to=${encodeURIComponent(phone)}`);
    const [latest] = ((await codes.json()) as { notifications: { otpCode: string }[] }).notifications;
    if (!latest) throw new Error('no code captured');
    const wrong = latest.otpCode === '000000' ? '111111' : '000000';
    await page.getByLabel('6-digit code').fill(wrong);
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#otp-error').textContent()).toMatch(/The code is wrong/);
    await screenshot(page, 'signer-otp-en');
    await page.getByLabel('6-digit code').fill(latest.otpCode);
    await page.keyboard.press('Enter');
    await eventually(() => page.getByLabel('Client name').isVisible()).toBe(true);
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
    await page.goto(envelope.client);
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('שני שדות ממתינים לך');
    expect(await page.getByRole('button', { name: 'עברית' }).getAttribute('aria-pressed')).toBe('true');
    // Right to left: the summary column stands at the right of the fields.
    const summary = await page.locator('.progress').boundingBox();
    const fields = await page.locator('.work').boundingBox();
    if (!summary || !fields) throw new Error('no layout');
    expect(summary.x).toBeGreaterThan(fields.x);
    await screenshot(page, 'signer-ready-he-desktop');

    await page.getByRole('button', { name: 'English' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting for you');
    // The choice holds for the tab across a reload.
    await page.reload();
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
  });

  it('fits a 375-pixel phone in both languages', async () => {
    const envelope = await sendEnvelope('Phone-sized agreement with a long title that wraps');
    for (const language of ['en', 'he'] as const) {
      const page = await newPage(PHONE, language === 'he' ? 'he-IL' : 'en-US');
      await page.goto(`${envelope.client}?lang=${language}`);
      await eventually(() => page.getByTestId('awaiting').isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      await screenshot(page, `signer-ready-${language}-phone`);
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      const input = await page.locator('[data-field-type="Full name"] input').boundingBox();
      expect(input && input.x >= 0 && input.x + input.width <= PHONE.width).toBe(true);
    }
  });
});
