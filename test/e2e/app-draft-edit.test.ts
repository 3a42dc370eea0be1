// Editing a Draft in the business app (docs/documents.md, "Editing a draft") in a real browser against a real
// Sigil app, Temporal workflows and worker: a sender opens a saved Draft's page, follows "Edit", finds the send
// page's parts filled with the Draft (title, recipients, deadline, prefilled values, reminder settings), changes the
// title, a recipient's address, the deadline, a value and the reminder interval, adds a Cc (and removes another
// recipient it added), saves, and sends it from its page — the invitation goes to the
// corrected address. In Hebrew a refused field is said beside its input; the edit page on a 375-pixel phone in
// Hebrew fits the screen. axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { describe, expect, it } from 'vitest';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { waitForCapture } from '../support/dev-notifications.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** A sender of a new organization with a Draft from the demo template, saved through the send page's route. */
async function senderWithDraft(): Promise<{ sender: SignedInUser; draftId: string; tag: string }> {
  const sender = await signedInUser(harness, { role: 'sender', fullName: 'Avi Sender' });
  const tag = sender.user.id.slice(0, 8);
  const templateId = await documentTemplate(harness.ctx, sender.organization.id);
  const draft = await callAs<{ id: string }>(baseUrl, sender, 'POST', '/api/documents/send-from-template', {
    title: 'Lease agreement',
    templateId,
    draft: true,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: `dana-${tag}@example.com` },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: `sam-typo-${tag}@example.com` },
    ],
  });
  return { sender, draftId: draft.id, tag };
}

describe('the business app: editing a draft', () => {
  it('edits a Draft from its page with the send page’s parts, then sends it to the corrected address', async () => {
    const { sender, draftId, tag } = await senderWithDraft();
    const page = await signedInPage(browser, baseUrl, sender, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/documents/${draftId}`);
    const edit = page.getByRole('link', { name: 'Edit', exact: true });
    await eventually(() => edit.count()).toBe(1);
    await expectAccessible(page, 'draft page with Edit');
    await browser.screenshot(page, 'app-draft-page-en-desktop');
    await edit.click();
    await waitForPath(page, `/app/documents/${draftId}/edit`);
    await waitForLoaded(page);

    // Filled with what the Draft holds.
    await eventually(() => page.locator('#edit-title').inputValue()).toBe('Lease agreement');
    const provider = page.getByTestId('recipient-Provider');
    expect(await provider.getByLabel('Email address').inputValue()).toBe(`sam-typo-${tag}@example.com`);
    expect(await page.getByRole('combobox', { name: 'Name (Client)' }).inputValue()).toBe('Dana Levi');
    expect(await page.locator('#edit-deadline').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    await page.locator('#edit-title').fill('Lease agreement — 12 Herzl St.');
    await provider.getByLabel('Email address').fill(`sam-${tag}@example.com`);
    const inTen = new Date(Date.now() + 10 * 86_400_000);
    const day = `${inTen.getFullYear()}-${String(inTen.getMonth() + 1).padStart(2, '0')}-${String(inTen.getDate()).padStart(2, '0')}`;
    await page.locator('#edit-deadline').fill(day);
    await page.getByLabel('Client name (Client)').fill('Dana Levi for Acme');
    await page.locator('#send-reminderIntervalDays').fill('2');
    // Two recipients added for the Client role; the second removed again, the first made a Cc.
    const clients = page.getByTestId('recipient-Client');
    await page.getByLabel('Role of a new recipient').selectOption('Client');
    await page.getByRole('button', { name: 'Add a recipient' }).click();
    await page.getByRole('button', { name: 'Add a recipient' }).click();
    await eventually(() => clients.count()).toBe(3);
    await clients.nth(1).getByRole('combobox', { name: 'Name (Client)' }).fill('Avi Bar');
    await clients.nth(1).getByLabel('Email address').fill(`avi-${tag}@example.com`);
    await clients.nth(1).getByLabel('Recipient type').selectOption('Cc');
    await clients
      .nth(2)
      .getByRole('button', { name: /^Remove this recipient/ })
      .click();
    await eventually(() => clients.count()).toBe(2);
    await expectAccessible(page, 'edit draft page');
    await browser.screenshot(page, 'app-draft-edit-en-desktop');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForPath(page, `/app/documents/${draftId}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Lease agreement — 12 Herzl St.',
    );
    const { envelope, recipients } = await findEnvelope(harness.ctx, sender.organization.id, draftId);
    expect(envelope.status).toBe('Draft');
    expect(recipients.map((r) => [r.roleName, r.email, r.type])).toEqual([
      ['Client', `dana-${tag}@example.com`, 'Signer'],
      ['Provider', `sam-${tag}@example.com`, 'Signer'],
      ['Client', `avi-${tag}@example.com`, 'Cc'],
    ]);
    expect(envelope.expiresAt?.toISOString()).toBe(new Date(`${day}T23:59:00`).toISOString());
    expect(envelope.deadlineSettings).toMatchObject({ reminderIntervalDays: 2 });

    // Sent from its page: the invitation goes to the corrected address.
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
    expect(await page.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    const dana = await waitForCapture(baseUrl, `kind=invitation&to=dana-${tag}%40example.com`);
    expect(dana.signingLink).toEqual(expect.any(String));
    await expectAccessible(page, 'edited draft, sent');
    await browser.screenshot(page, 'app-draft-edit-sent-en-desktop');
    await page.close();

    // A Draft once sent has no edit page: its address answers the error page, and nothing changes.
    const again = await signedInPage(browser, baseUrl, sender, DESKTOP, 'en');
    await again.goto(`${baseUrl}/app/documents/${draftId}/edit`);
    await eventually(() => again.locator('#edit-title').count()).toBe(0);
    await eventually(() => again.getByRole('heading', { level: 1 }).count()).toBe(1);
    await again.close();
  });

  it('says a refused field in Hebrew beside it, and fits a 375-pixel phone right to left', async () => {
    const { sender, draftId } = await senderWithDraft();
    for (const [device, size] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, sender, size, 'he');
      await page.goto(`${baseUrl}/app/documents/${draftId}/edit`);
      await waitForLoaded(page);
      await eventually(() => page.locator('#edit-title').inputValue()).toBe('Lease agreement');
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(he['documents.edit.title']);
      expect(await pageWidth(page)).toBeLessThanOrEqual(size.width);
      await expectAccessible(page, `edit draft page in Hebrew (${device})`);
      await browser.screenshot(page, `app-draft-edit-he-${device}`);

      // No address for the Email channel: the server refuses it, said in Hebrew beside the input.
      const email = page.getByTestId('recipient-Provider').locator('input[type="email"]');
      await email.fill('');
      await page.getByRole('button', { name: he['documents.edit.save'] }).click();
      await eventually(() => email.getAttribute('aria-invalid')).toBe('true');
      const ids = ((await email.getAttribute('aria-describedby')) ?? '').split(' ');
      const errorId = ids.find((id) => id.endsWith('-error'));
      expect(errorId).toBeDefined();
      expect(await page.locator(`[id="${errorId}"]`).textContent()).toBe(
        he['fieldError.recipient.emailRequiredForChannel'],
      );
      expect(await page.locator('#edit-error').textContent()).toBe(he['account.fixErrors']);
      expect(await pageWidth(page)).toBeLessThanOrEqual(size.width);
      await expectAccessible(page, `edit draft refused in Hebrew (${device})`);
      await browser.screenshot(page, `app-draft-edit-refused-he-${device}`);
      await page.close();
    }
    // Refused, nothing changed.
    const { recipients } = await findEnvelope(harness.ctx, sender.organization.id, draftId);
    expect(recipients.map((r) => r.email)).toEqual([
      expect.stringMatching(/^dana-/),
      expect.stringMatching(/^sam-typo-/),
    ]);
  });
});
