// The signer page's other states in a real browser against a real Sigil app: an Approver approves and a Viewer
// confirms once the document is shown; an envelope is declined with a reason; a link not yet in turn, cancelled,
// expired or unknown gets a page of its own; an SMS recipient verifies a one-time code first; the recipient's
// Hebrew opens right to left (the list of fields at the left of the document) and the switcher holds for the
// tab; the organization's consent text and privacy notice. axe-core's WCAG 2.1 AA rules pass on each.
import { randomInt } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIntegrator } from '../support/api.ts';
import { DESKTOP, PHONE } from '../support/browser.ts';
import { waitForCapture } from '../support/dev-notifications.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import {
  closeSignerPages,
  createAndSend,
  documentShown,
  envelopeStatus,
  eventually,
  expectAccessible,
  invitedLink,
  issuedLink,
  openSignerPages,
  pageAddress,
  type SignerPages,
  saved,
  sendEnvelope,
} from '../support/signer-pages.ts';

let pages: SignerPages;

function newPage(viewport = DESKTOP, locale = 'en-US'): Promise<Page> {
  return pages.browser.newPage(viewport, locale);
}

function screenshot(page: Page, name: string): Promise<void> {
  return pages.browser.screenshot(page, name);
}

beforeAll(async () => {
  pages = await openSignerPages();
});

afterAll(async () => {
  await closeSignerPages(pages);
});

describe('the signer page, other states', () => {
  it('lets an Approver approve without fields, and a Viewer confirm once the document is shown', async () => {
    const envelope = await createAndSend(pages, {
      title: 'Budget for review',
      workflowType: 'Sequential',
      templateId: pages.templates.review,
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
    await approver.goto(await issuedLink(pages, envelope, 'Approval'));
    await eventually(() => approver.locator('h1').textContent()).toBe('Budget for review');
    expect(await approver.locator('[data-field-type]').count()).toBe(0);
    expect(await approver.getByTestId('instructions').textContent()).toBe(
      'Read the document, then approve it or decline it.',
    );
    expect(await approver.getByRole('button', { name: 'Decline', exact: true }).isVisible()).toBe(true);
    // No consent and no Start for an Approver: the action is there at once.
    expect(await approver.getByLabel('I agree').count()).toBe(0);
    expect(await approver.getByRole('button', { name: 'Start', exact: true }).count()).toBe(0);
    const approve = approver.getByRole('button', { name: 'Approve' });
    await eventually(() => approve.isEnabled()).toBe(true);
    await documentShown(approver);
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
    await viewer.goto(await issuedLink(pages, envelope, 'Viewing'));
    await eventually(() => viewer.locator('h1').textContent()).toBe('Budget for review');
    const confirm = viewer.getByRole('button', { name: 'Confirm that I have read it' });
    expect(await viewer.getByTestId('finish-hint').textContent()).toContain('The document is loading');
    expect(await confirm.isDisabled()).toBe(true);
    release();
    await eventually(() => confirm.isEnabled()).toBe(true);
    await documentShown(viewer);
    await screenshot(viewer, 'signer-viewer-en');
    await confirm.click();
    await eventually(() => viewer.locator('h1').textContent()).toBe('Thank you, you are done');

    const detail = (await (
      await fetch(`${pages.baseUrl}/api/v1/envelopes/${envelope.id}`, {
        headers: await pages.acme.auth(),
      })
    ).json()) as { recipients: { roleName: string; status: string }[] };
    const statusOf = (role: string) => detail.recipients.find((r) => r.roleName === role)?.status;
    expect(statusOf('Approval')).toBe('Completed');
    expect(statusOf('Viewing')).toBe('Completed');
    expect(statusOf('Client')).not.toBe('Completed');
  });

  it('declines with a required reason, and the other signer sees the envelope declined', async () => {
    const envelope = await sendEnvelope(pages, 'Lease to decline');
    const page = await newPage();
    const provider = await issuedLink(pages, envelope, 'Provider');
    await page.goto(provider);
    await eventually(() => page.locator('h1').textContent()).toBe('It is not your turn yet');
    expect(await page.locator('body').textContent()).not.toContain('Dana Levi');
    await screenshot(page, 'signer-not-in-turn-en');
    await expectAccessible(page);

    await page.goto(await issuedLink(pages, envelope, 'Client'));
    await eventually(() => page.locator('h1').textContent()).toBe('Lease to decline');
    await page.getByRole('button', { name: 'Decline to sign' }).click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => dialog.getByText('Write a reason to decline.').isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('decline-reason');
    await page.getByLabel('Reason').fill('The rent is wrong.');
    await screenshot(page, 'signer-decline-dialog-en');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('You declined');
    await screenshot(page, 'signer-declined-en');
    await expectAccessible(page);
    await eventually(() => envelopeStatus(pages, envelope.id)).toBe('Declined');
    const other = await newPage();
    await other.goto(provider);
    await eventually(() => other.locator('h1').textContent()).toBe('This envelope was declined');
  });

  it('lets a signer assign their part to someone else when the sender allows it', async () => {
    const email = `noa.${randomInt(1e9)}@example.com`;
    const envelope = await sendEnvelope(pages, 'Assignable agreement', {}, {}, { allowDelegation: true });
    const page = await newPage();
    await page.goto(await issuedLink(pages, envelope, 'Client'));
    await eventually(() => page.locator('h1').textContent()).toBe('Assignable agreement');
    await page.getByRole('button', { name: 'Assign to someone else' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign to someone else' });
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Assign', exact: true }).click();
    await eventually(() => dialog.getByText('Write their name.').isVisible()).toBe(true);
    await dialog.getByLabel('Their full name').fill('Noa Mizrahi');
    await dialog.getByLabel('Their email address').fill(email);
    await screenshot(page, 'signer-delegate-dialog-en');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Assign', exact: true }).click();
    await eventually(() => page.locator('h1').textContent()).toBe('Assigned to someone else');
    expect(await page.locator('.state').textContent()).toContain('Noa Mizrahi');
    await expectAccessible(page);
    // The delegate is invited by email, with a link of their own.
    const delegate = await newPage();
    await delegate.goto(await invitedLink(pages, email));
    await eventually(() => delegate.locator('h1').textContent()).toBe('Assignable agreement');
  });

  it('shows a clear page for a cancelled link, an expired one and an unknown one', async () => {
    const envelope = await sendEnvelope(pages, 'Cancelled order');
    const client = await issuedLink(pages, envelope, 'Client');
    const cancelled = await fetch(`${pages.baseUrl}/api/v1/envelopes/${envelope.id}/cancel`, {
      method: 'POST',
      headers: { ...(await pages.acme.auth()), 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'Changed' }),
    });
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
      pages,
      'Offer with a deadline',
      {},
      {},
      {
        expiresAt: new Date(Date.now() + 4_000).toISOString(),
      },
    );
    const expiringLink = await issuedLink(pages, expiring, 'Client');
    await expect.poll(() => envelopeStatus(pages, expiring.id), { interval: 500 }).toBe('Expired');
    await page.goto(expiringLink);
    await eventually(() => page.locator('h1').textContent()).toBe('This envelope has expired');
    expect(await page.locator('.state').getAttribute('data-state')).toBe('expired');
    expect(await page.locator('.state').textContent()).toContain('Offer with a deadline');

    await page.goto(`${pages.baseUrl}/sign/${'x'.repeat(43)}`);
    await eventually(() => page.locator('h1').textContent()).toBe('This link is not valid');
    expect(await page.locator('body').textContent()).not.toMatch(/not_found|404|error/i);
    await screenshot(page, 'signer-unknown-link-en');
    await expectAccessible(page);
  });

  it('asks an SMS recipient with OTP for a code before anything else, then sends the session with every call', async () => {
    const phone = `+97250${String(randomInt(1_000_000, 9_999_999))}`;
    await sendEnvelope(pages, 'Verified agreement', {
      phone,
      deliveryChannel: 'Sms',
      authenticationMethod: 'OtpSms',
    });
    const page = await newPage();
    await page.goto(await invitedLink(pages, phone));
    await eventually(() => page.locator('h2#otp-title').textContent()).toBe('Verify it is you');
    expect(await page.locator('[data-field-type]').count()).toBe(0);
    expect(await page.locator('.pages').count()).toBe(0);
    const otpText = String(await page.locator('.otp').textContent());
    expect(otpText).toContain(phone.slice(-2));
    expect(otpText).not.toContain(phone.slice(4, -2));
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await eventually(() => page.getByLabel('6-digit code').isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('otp-code');
    expect(await page.getByRole('button', { name: 'Send a new code' }).isDisabled()).toBe(true);
    const latest = await waitForCapture(pages.baseUrl, `kind=otp&to=${encodeURIComponent(phone)}&limit=1`);
    if (!latest.otpCode) throw new Error('no code captured');
    await page.getByLabel('6-digit code').fill(latest.otpCode === '000000' ? '111111' : '000000');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#otp-error').textContent()).toMatch(/The code is wrong/);
    await screenshot(page, 'signer-otp-en');
    await expectAccessible(page);
    await page.getByLabel('6-digit code').fill(latest.otpCode);
    await page.keyboard.press('Enter');
    await eventually(() => page.getByLabel('Client name').isVisible()).toBe(true);
    // The document is fetched with the signer session (without it the document answers 403).
    await documentShown(page);
    await page.getByLabel('Client name').fill('Dana Levi');
    await page.getByLabel('Client name').blur();
    await saved(page);
    // The session lasts for the tab: a reload needs no new code.
    await page.reload();
    await eventually(() => page.getByLabel('Client name').inputValue()).toBe('Dana Levi');
  });

  it("opens in the recipient's Hebrew, right to left, with the switcher", async () => {
    const envelope = await sendEnvelope(pages, 'הסכם שירות', { language: 'he' });
    const page = await newPage();
    await page.goto(await issuedLink(pages, envelope, 'Client'));
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('he');
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('שני שדות ממתינים לך');
    expect(await page.getByRole('button', { name: 'עברית' }).getAttribute('aria-pressed')).toBe('true');
    // Right to left: the list of fields stands at the left of the document; the PDF itself is not mirrored.
    const list = await page.locator('.list').boundingBox();
    const document = await page.locator('.document').boundingBox();
    if (!list || !document) throw new Error('no layout');
    expect(list.x).toBeLessThan(document.x);
    expect(await page.locator('.pages').getAttribute('dir')).toBe('ltr');
    await documentShown(page);
    await screenshot(page, 'signer-ready-he-desktop');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'English' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting for you');
    await page.reload();
    await eventually(() => page.getByTestId('awaiting').textContent()).toContain('2 fields are waiting');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');

    // A narrower window draws the pages again at the new width.
    const canvasWidth = () =>
      page
        .locator('.pages canvas')
        .first()
        .evaluate((canvas: { width: number }) => canvas.width);
    await documentShown(page);
    const wide = await canvasWidth();
    await page.setViewportSize(PHONE);
    await eventually(canvasWidth).toBeLessThan(wide / 2);
  });

  it("shows the organization's own consent text and its privacy notice, set through the settings", async () => {
    const branded = await newIntegrator(pages.harness);
    const owner = await signedInUser(pages.harness, {
      role: 'owner',
      organizationId: branded.organizationId,
    });
    const consentText = 'I accept Acme’s terms of electronic signature.\nAcme keeps a copy for seven years.';
    const privacyNotice = 'Acme processes your name and address only to sign this agreement.';
    const settings = await fetch(`${pages.baseUrl}/api/organization/settings`, {
      method: 'PUT',
      headers: { cookie: owner.cookie, origin: pages.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ consentText, privacyNotice }),
    });
    expect(settings.status, await settings.clone().text()).toBe(200);
    const headers = await branded.auth();
    const created = await fetch(`${pages.baseUrl}/api/v1/envelopes/from-template`, {
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
    const sent = await fetch(`${pages.baseUrl}/api/v1/envelopes/${envelope.id}/send`, {
      method: 'POST',
      headers,
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const issued = await fetch(
      `${pages.baseUrl}/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[0]?.id}/signing-link`,
      { method: 'POST', headers },
    );
    expect(issued.status, await issued.clone().text()).toBe(200);

    const page = await newPage();
    await page.goto(pageAddress(pages, ((await issued.json()) as { url: string }).url));
    await eventually(() => page.locator('h1').textContent()).toBe('Branded agreement');
    const consent = page.locator('.consent-text');
    expect(await consent.textContent()).toBe(consentText);
    const style = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(
        element,
      ).whiteSpace;
    expect(await consent.evaluate(style)).toBe('pre-line');
    const notice = page.locator('.privacy-text');
    expect(await notice.isVisible()).toBe(false);
    await page.getByText('Privacy notice').click();
    await eventually(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toBe(privacyNotice);
    await screenshot(page, 'signer-consent-privacy');
    await expectAccessible(page);
  });
});
