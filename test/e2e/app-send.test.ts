// The send page (/app/send, docs/documents.md "Sending") in a real browser against a real Sigil app, Temporal
// workflows and worker: a sender opens a published template's "Use this template", picks a contact for one role
// with the contact picker (keyboard; "nothing found" said on screen) and types the other recipient, sends, and
// lands on the envelope's page; both recipients sign through the links the development capture holds, the page
// shows Completed without reloading, and the signed PDF downloads. A one-off PDF gets a Signature dragged on
// with the builder's own components and a recipient picked with a pointer, and is saved as a draft. GroupedRounds
// shows its rounds as columns; the page in Hebrew (right to left) on a 375-pixel phone; a refused recipient said in
// Hebrew beside its empty fields, with their red border; "Recipients may assign someone else to sign" starts as
// the template says and the envelope takes the sender's choice (on and off); axe-core's WCAG 2.1 AA rules on every screen;
// screenshots go to test/artifacts/web/.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Template, TemplateField } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs, signThroughApi } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { waitForCapture } from '../support/dev-notifications.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

/** A sender of a new organization with a published template (the demo services agreement) and contacts. */
async function senderWithTemplate(): Promise<{ sender: SignedInUser; templateId: string }> {
  const sender = await signedInUser(harness, { role: 'sender', fullName: 'Avi Sender' });
  await callAs(baseUrl, sender, 'PUT', '/api/auth/me/preferences', { language: 'en' });
  const templateId = await documentTemplate(harness.ctx, sender.organization.id);
  for (const contact of [
    { name: 'Dana Levi', company: 'Acme', email: `dana-${sender.user.id}@example.com` },
    { name: 'נועה כהן', company: 'גלובקס', email: `noa-${sender.user.id}@example.com` },
  ]) {
    await callAs(baseUrl, sender, 'POST', '/api/contacts', contact);
  }
  return { sender, templateId };
}

describe('the business app: sending', () => {
  it('sends a published template to a picked contact and a typed recipient, who sign; Completed without reloading', async () => {
    const { sender, templateId } = await senderWithTemplate();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);

    // The entry points: Send on the documents list, "Use this template" on a published template.
    await page.goto(`${baseUrl}/app/documents`);
    await eventually(() => page.getByRole('link', { name: 'Send', exact: true }).count()).toBe(1);
    await page.goto(`${baseUrl}/app/templates`);
    const use = page.getByRole('link', { name: 'Use this template: Demo services agreement' });
    await eventually(() => use.count()).toBe(1);
    await use.click();
    await waitForPath(page, '/app/send');
    await waitForLoaded(page);
    await eventually(() => page.locator('#send-template').inputValue()).toBe(templateId);
    expect(await page.locator('#send-title').inputValue()).toBe('Demo services agreement');
    await page.locator('#send-title').fill('Services agreement for Acme');

    // Client: a contact, picked with the keyboard; the picker says what it found.
    const client = page.getByRole('combobox', { name: 'Name (Client)' });
    await client.pressSequentially('dana');
    const options = page.getByRole('listbox').getByRole('option');
    await eventually(() => options.allTextContents()).toEqual([expect.stringContaining('Dana Levi')]);
    await eventually(() => page.getByRole('status').filter({ hasText: 'One contact found' }).count()).toBe(1);
    expect(await client.getAttribute('aria-expanded')).toBe('true');
    await client.press('ArrowDown');
    expect(await client.getAttribute('aria-activedescendant')).toMatch(/-option-0$/);
    expect(await options.first().getAttribute('aria-selected')).toBe('true');
    await expectAccessible(page, 'send page, contact picker open');
    await browser.screenshot(page, 'app-send-picker-en-desktop');
    await client.press('Enter');
    const clientCard = page.getByTestId('recipient-Client');
    await eventually(() => clientCard.getByLabel('Email address').inputValue()).toBe(
      `dana-${sender.user.id}@example.com`,
    );
    expect(await client.inputValue()).toBe('Dana Levi');
    expect(await client.getAttribute('aria-expanded')).toBe('false');

    // Provider: nobody in the contacts; typed.
    const provider = page.getByRole('combobox', { name: 'Name (Provider)' });
    await provider.pressSequentially('zzz');
    await eventually(() => page.getByText('No contact found.').count()).toBeGreaterThan(0);
    await provider.fill('Sam Cohen');
    const samEmail = `sam-${sender.user.id}@example.com`;
    await page.getByTestId('recipient-Provider').getByLabel('Email address').fill(samEmail);

    // The organization's defaults: 30 days, the secure link; a prefilled value.
    const inThirty = new Date(Date.now() + 30 * 86_400_000);
    expect(await page.locator('#send-deadline').inputValue()).toBe(
      `${inThirty.getFullYear()}-${String(inThirty.getMonth() + 1).padStart(2, '0')}-${String(inThirty.getDate()).padStart(2, '0')}`,
    );
    expect(await clientCard.getByLabel('Identity check').inputValue()).toBe('SecureLink');
    await page.getByLabel('Client name (Client)').fill('Dana Levi for Acme');
    await expectAccessible(page, 'send page filled');
    await browser.screenshot(page, 'app-send-en-desktop');

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await waitForPath(page, /^\/app\/documents\/[0-9a-f-]{36}$/);
    const envelopeId = new URL(page.url()).pathname.split('/').pop() as string;
    await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
    const { envelope, recipients } = await findEnvelope(harness.ctx, sender.organization.id, envelopeId);
    expect(envelope.createdByUserId).toBe(sender.user.id);
    expect(recipients.map((r) => [r.fullName, r.deliveryChannel, r.signingOrder])).toEqual([
      ['Dana Levi', 'Email', 1],
      ['Sam Cohen', 'Email', 2],
    ]);

    // Both sign through their emailed links; the page follows without reloading.
    await page.evaluate('window.sigilNoReload = true');
    const dana = await waitForCapture(baseUrl, `kind=invitation&to=dana-${sender.user.id}%40example.com`);
    await signThroughApi(baseUrl, dana.signingLink as string);
    const sam = await waitForCapture(baseUrl, `kind=invitation&to=${encodeURIComponent(samEmail)}`);
    await signThroughApi(baseUrl, sam.signingLink as string);
    await eventually(() => page.getByTestId('status').textContent(), 60_000).toContain('Completed');
    expect(await page.evaluate('window.sigilNoReload')).toBe(true);
    const signed = page.getByRole('link', { name: 'Signed document (PDF)' });
    await eventually(() => signed.count(), 30_000).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), signed.click()]);
    expect(download.suggestedFilename()).toBe('Services agreement for Acme (signed).pdf');
    expect((await readFile(await download.path())).subarray(0, 5).toString()).toBe('%PDF-');
    await expectAccessible(page, 'sent envelope, completed');
    await browser.screenshot(page, 'app-send-completed-en-desktop');
  });

  it('refuses what the server refuses beside its field, then saves a one-off PDF with a dragged field as a draft', async () => {
    const { sender } = await senderWithTemplate();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}/app/send`);
    await waitForLoaded(page);
    await page.getByLabel('A PDF of its own').check();
    await page.locator('#send-pdf').setInputFiles({
      name: 'lease.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(await buildDemoPdf('One-off lease')),
    });
    await eventually(() => page.getByTestId('send-file').textContent()).toBe('lease.pdf');
    await eventually(() => page.locator('.pages canvas[data-rendered]').count()).toBeGreaterThan(0);

    // A Signature dragged onto page 1 with the pointer (the builder's palette and pages).
    const item = page.locator('.palette-item[data-type="Signature"]');
    const from = await item.boundingBox();
    const figure = await page.locator('.pages .page[data-page="1"]').boundingBox();
    if (!from || !figure) throw new Error('no palette or page');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 20, from.y + from.height / 2 + 5, { steps: 4 });
    await page.mouse.move(figure.x + 120, figure.y + 200, { steps: 12 });
    await page.mouse.up();
    await eventually(() => page.locator('.page[data-page="1"] .field[data-type="Signature"]').count()).toBe(
      1,
    );

    // The recipient of the one role: picked with a pointer. Without an email the Email channel is refused.
    const name = page.getByRole('combobox', { name: 'Name (Signer)' });
    await name.pressSequentially('גלובק');
    await eventually(() => page.getByRole('listbox').getByRole('option').count()).toBe(1);
    // Escape closes the list; typing on searches again.
    await name.press('Escape');
    expect(await name.getAttribute('aria-expanded')).toBe('false');
    await name.press('End');
    await name.pressSequentially('ס');
    await eventually(() => page.getByRole('listbox').getByRole('option').count()).toBe(1);
    await page.getByRole('listbox').getByRole('option').first().click();
    expect(await name.inputValue()).toBe('נועה כהן');
    const card = page.getByTestId('recipient-Signer');
    await card.getByLabel('Email address').fill('');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await eventually(() => card.locator('.app-field-error').allTextContents()).toContain(
      'Enter an email address: the link is sent there.',
    );
    await expectAccessible(page, 'send page, one-off PDF refused');
    await browser.screenshot(page, 'app-send-file-en-desktop');
    await card.getByLabel('Email address').fill('noa@globex.example');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await waitForPath(page, /^\/app\/documents\/[0-9a-f-]{36}$/);
    await eventually(() => page.getByTestId('status').textContent()).toContain('Draft');
    const envelopeId = new URL(page.url()).pathname.split('/').pop() as string;
    const { envelope } = await findEnvelope(harness.ctx, sender.organization.id, envelopeId);
    expect(envelope.sourceFileId).not.toBeNull();
    const fields = await harness.ctx.orm.em
      .fork()
      .find(TemplateField, { templateId: envelope.templateId as string });
    expect(fields.map((field) => field.type)).toEqual(['Signature']);
  });

  it("sends with 'Recipients may assign someone else to sign' as the template says, or as the sender ticks it", async () => {
    const { sender, templateId } = await senderWithTemplate();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    const allow = page.getByRole('checkbox', { name: 'Recipients may assign someone else to sign' });

    /** Opens the send page for the template, fills both recipients, sets the choice and sends; the envelope. */
    const sendWith = async (startsOn: boolean, ticked: boolean) => {
      await page.goto(`${baseUrl}/app/send?template=${templateId}`);
      await waitForLoaded(page);
      await eventually(() => page.getByTestId('recipient-Provider').count()).toBe(1);
      expect(await allow.isChecked()).toBe(startsOn);
      for (const role of ['Client', 'Provider']) {
        await page.getByRole('combobox', { name: `Name (${role})` }).fill(`${role} Person`);
        await page
          .getByTestId(`recipient-${role}`)
          .getByLabel('Email address')
          .fill(`${role.toLowerCase()}-${sender.user.id}@example.com`);
      }
      await allow.setChecked(ticked);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await waitForPath(page, /^\/app\/documents\/[0-9a-f-]{36}$/);
      await eventually(() => page.getByTestId('status').textContent()).toContain('Sent');
      const envelopeId = new URL(page.url()).pathname.split('/').pop() as string;
      return (await findEnvelope(harness.ctx, sender.organization.id, envelopeId)).envelope;
    };

    // The demo template does not allow it: off at first; ticked, the envelope allows it.
    expect((await sendWith(false, true)).allowDelegation).toBe(true);
    // A template that allows it: on at first; unticked, the envelope does not.
    await harness.ctx.orm.em.fork().nativeUpdate(Template, { id: templateId }, { allowDelegation: true });
    await page.goto(`${baseUrl}/app/send?template=${templateId}`);
    await waitForLoaded(page);
    await eventually(() => allow.isChecked()).toBe(true);
    await expectAccessible(page, 'send page, delegation allowed by the template');
    await browser.screenshot(page, 'app-send-delegation-en-desktop');
    expect((await sendWith(true, false)).allowDelegation).toBe(false);
    // Left as the template says, it allows it.
    expect((await sendWith(true, true)).allowDelegation).toBe(true);
  });

  it("says a refused recipient's empty fields in Hebrew beside them, each with the red border", async () => {
    const { sender, templateId } = await senderWithTemplate();
    await callAs(baseUrl, sender, 'PUT', '/api/auth/me/preferences', { language: 'he' });
    for (const [device, size] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await browser.newPage(size);
      await signIn(page, baseUrl, sender.email, sender.password);
      await eventually(() => page.locator('html').getAttribute('lang')).toBe('he');
      await page.goto(`${baseUrl}/app/send?template=${templateId}`);
      const card = page.getByTestId('recipient-Client');
      await eventually(() => card.count()).toBe(1);
      // Neither a name nor an address, by the Email channel: the server refuses both fields.
      await page.getByRole('button', { name: 'שמירה כטיוטה' }).click();
      const name = card.getByRole('combobox', { name: 'שם (Client)' });
      const email = card.locator('input[type="email"]');
      await eventually(() => name.getAttribute('aria-invalid')).toBe('true');
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      const said = async (input: typeof name) => {
        const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ');
        const errorId = ids.find((id) => id.endsWith('-error'));
        return errorId ? page.locator(`[id="${errorId}"]`).textContent() : null;
      };
      expect(await said(name)).toBe(he['fieldError.required']);
      expect(await said(email)).toBe(he['fieldError.recipient.emailRequiredForChannel']);
      // Nothing in English beside the fields, and the form says why above them.
      for (const text of await card.locator('.app-field-error').allTextContents()) {
        expect(text).not.toMatch(/[A-Za-z]/);
      }
      expect(await page.locator('#send-error').textContent()).toBe(he['account.fixErrors']);
      // The red border of a refused input (the kit's --color-danger).
      for (const input of [name, email]) {
        const style = (element: unknown) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { borderInlineStartColor: string } }
          ).getComputedStyle(element).borderInlineStartColor;
        expect(await input.evaluate(style)).toBe('rgb(155, 28, 28)');
      }
      await expectAccessible(page, `send page refused in Hebrew (${device})`);
      await browser.screenshot(page, `app-send-refused-he-${device}`);
      await page.close();
    }
  });

  it('shows GroupedRounds as columns, in Hebrew right to left on a phone', async () => {
    const { sender, templateId } = await senderWithTemplate();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}/app/send?template=${templateId}`);
    await waitForLoaded(page);
    await eventually(() => page.getByTestId('recipient-Provider').count()).toBe(1);
    await page.locator('#send-workflow').selectOption('GroupedRounds');
    const rounds = page.getByTestId('rounds');
    await eventually(() => rounds.locator('section.round').count()).toBe(3);
    // The roles' own orders place them: Client in round 1, Provider in round 2, round 3 empty for more.
    expect(await page.getByTestId('round-1').getByTestId('recipient-Client').count()).toBe(1);
    expect(await page.getByTestId('round-2').getByTestId('recipient-Provider').count()).toBe(1);
    await page.getByTestId('recipient-Provider').getByLabel('Round').selectOption('1');
    await eventually(() => page.getByTestId('round-1').locator('fieldset.recipient').count()).toBe(2);
    await eventually(() => rounds.locator('section.round').count()).toBe(2);
    const columns = await rounds
      .locator('section.round')
      .evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().left));
    expect(columns[1]).toBeGreaterThan(columns[0] as number);
    await expectAccessible(page, 'send page, grouped rounds');
    await browser.screenshot(page, 'app-send-rounds-en-desktop');

    await page.getByRole('button', { name: 'עברית' }).click();
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.setViewportSize(PHONE);
    await eventually(() => page.getByRole('heading', { name: 'שליחת מסמך' }).count()).toBe(1);
    // Right to left: the second round's column is to the left of the first.
    await page.getByTestId('recipient-Provider').getByLabel('סבב').selectOption('2');
    await eventually(() => rounds.locator('section.round').count()).toBe(3);
    const rtlColumns = await rounds
      .locator('section.round')
      .evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().right));
    expect(rtlColumns[1]).toBeLessThan(rtlColumns[0] as number);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    const hebrewField = page.getByRole('combobox', { name: 'שם (Client)' });
    await hebrewField.pressSequentially('נועה');
    await eventually(() => page.getByRole('listbox').getByRole('option').allTextContents()).toEqual([
      expect.stringContaining('נועה כהן'),
    ]);
    await eventually(() => page.getByRole('status').filter({ hasText: 'נמצא איש קשר אחד' }).count()).toBe(1);
    await expectAccessible(page, 'send page in Hebrew on a phone');
    await browser.screenshot(page, 'app-send-rounds-he-phone');
  });
});
