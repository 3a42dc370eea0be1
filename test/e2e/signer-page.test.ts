// The signer page (/sign/<token>) in a real browser against a real Sigil app, filling every field where it stands
// on the document: two sequential signers invited by email take every plain field in place with the mouse, led by
// Start and Next (required fields first, then optional ones, in reading order, "3 of 7"), and Finish once the
// required ones are filled, with no Save step anywhere; the second signer sees the first one's values in place,
// read-only, and — the last — gets the signed document's downloads without reopening the link; a 375-pixel phone
// in both languages zooms a focused field to a readable size. axe-core's WCAG 2.1 AA rules pass on every state.
// Screenshots go to test/artifacts/web/. Signatures, uploads and a Hebrew phone are in
// signer-page-signatures.test.ts; the link's other states (approve, view, decline, cancelled, expired, unknown,
// one-time code, consent) in signer-page-states.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, pageWidth } from '../support/browser.ts';
import { captured } from '../support/dev-notifications.ts';
import {
  apiSha256,
  closeSignerPages,
  documentShown,
  downloadedSha256,
  envelopeStatus,
  eventually,
  expectAccessible,
  focusedField,
  invitedLink,
  issuedLink,
  newSignerPage,
  openSignerPages,
  type SignerPages,
  saved,
  screenshot,
  sendEnvelope,
  TERMS,
  uniqueEmail,
} from '../support/signer-pages.ts';

let pages: SignerPages;

const newPage = (viewport = DESKTOP, locale = 'en-US', touch = false) =>
  newSignerPage(pages, viewport, locale, touch);

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
    await screenshot(pages, page, 'signer-ready-en-desktop');
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
    await screenshot(pages, page, 'signer-field-error-en');

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
    await screenshot(pages, page, 'signer-midway-en-desktop');
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
    await screenshot(pages, page, 'signer-completed-en');
    await expectAccessible(page);
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');

    // The second signer, in turn now: the invitation goes out.
    const second = await newPage();
    const secondLink = await invitedLink(pages, providerEmail);
    await second.goto(secondLink);
    await eventually(() => second.locator('h1').textContent()).toBe('Services agreement');
    // The first signer's values stand where they filled them, read-only: the Company at (40, 70) points.
    await documentShown(second);
    const company = second.locator('.pages [data-filled-id]', { hasText: 'Levi Design' });
    await eventually(() => company.isVisible()).toBe(true);
    const secondSheet = await second.locator('.pages .page').boundingBox();
    const companyBox = await company.boundingBox();
    if (!secondSheet || !companyBox) throw new Error('no layout');
    expect(companyBox.x - secondSheet.x).toBeCloseTo((40 / 595.28) * secondSheet.width, -1);
    expect(companyBox.y - secondSheet.y).toBeCloseTo((70 / 595.28) * secondSheet.width, -1);
    expect(await company.getAttribute('title')).toBe('Company · Filled by Client');
    expect(await second.locator('[data-filled-id][data-field-type="Date"]').textContent()).toBe('01/12/2026');
    expect(await second.locator('[data-filled-id] input, [data-filled-id] button').count()).toBe(0);
    // The list names each by its name and role, each isolated in its own direction.
    const othersList = (page: typeof second) =>
      page
        .getByTestId('filled-by-others')
        .evaluate((list) => list.textContent?.replace(/[\u2068\u2069]/g, ''));
    expect(await othersList(second)).toContain('Company: filled by Client');
    await screenshot(pages, second, 'signer-filled-by-others-en-desktop');
    await expectAccessible(second);
    // In Hebrew on a phone: the same values in place, the list saying who filled them.
    const hebrew = await newPage(PHONE, 'he-IL', true);
    await hebrew.goto(`${secondLink}?lang=he`);
    await documentShown(hebrew);
    await eventually(() =>
      hebrew.locator('.pages [data-filled-id]', { hasText: 'Levi Design' }).isVisible(),
    ).toBe(true);
    expect(await othersList(hebrew)).toContain('Company: מולא על ידי Client');
    await screenshot(pages, hebrew, 'signer-filled-by-others-he-phone');
    await expectAccessible(hebrew);
    await second.getByLabel('Provider name').fill('Sam Cohen');
    await second.getByLabel('Provider name').blur();
    await second.getByLabel('I agree').check();
    await second.getByRole('button', { name: 'Finish' }).click();
    await eventually(() => second.locator('h1').textContent()).toBe('Thank you, you are done');
    expect(await second.locator('.state').textContent()).toContain('You were the last one');
    // The last signer gets the signed document once it is ready, without reopening the link.
    const ready = second.getByRole('link', { name: 'Download the signed document' });
    await expect.poll(() => ready.isVisible(), { interval: 250, timeout: 30_000 }).toBe(true);
    expect(await envelopeStatus(pages, envelope.id)).toBe('Completed');
    expect(await second.locator('.state').textContent()).toContain('The signed document is ready');
    expect(await downloadedSha256(second, ready)).toBe(await apiSha256(pages, envelope.id, 'final-pdf'));
    const secondTrail = second.getByRole('link', { name: 'Download the audit trail' });
    expect(await downloadedSha256(second, secondTrail)).toBe(
      await apiSha256(pages, envelope.id, 'audit-trail'),
    );
    await screenshot(pages, second, 'signer-last-downloads-en');
    await expectAccessible(second);

    // The first signer's link, completed now, downloads the same signed document and audit trail as /api/v1.
    await page.reload();
    await eventually(() => page.locator('h1').textContent()).toBe('Already completed');
    const signed = page.getByRole('link', { name: 'Download the signed document' });
    await eventually(() => signed.isVisible()).toBe(true);
    expect(await downloadedSha256(page, signed)).toBe(await apiSha256(pages, envelope.id, 'final-pdf'));
    const trail = page.getByRole('link', { name: 'Download the audit trail' });
    expect(await downloadedSha256(page, trail)).toBe(await apiSha256(pages, envelope.id, 'audit-trail'));
    await screenshot(pages, page, 'signer-completed-downloads-en');
    await expectAccessible(page);
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
      await screenshot(pages, page, `signer-ready-${language}-phone`);
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
      await screenshot(pages, page, `signer-zoomed-${language}-phone`);
    }
  });
});
