// Correcting a recipient and reminding one from the envelope page (docs/envelope-lifecycle.md, "Correcting a
// recipient") in a real browser against a real Sigil app, Temporal workflows and worker: a sender whose
// invitation went to a mistyped address opens the envelope's page, corrects the address in the dialog (an empty
// address is refused beside its field first), and the recipient signs with the new invitation's link while the
// old one is refused; then the next recipient is reminded alone with their row's "Remind". The dialog in Hebrew
// on a 375-pixel phone fits the screen. axe-core's WCAG 2.1 AA rules on every screen; screenshots go to
// test/artifacts/web/.
import { describe, expect, it } from 'vitest';
import { AuditEvent, Recipient } from '../../db/entities/index.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  emailedLink,
  eventually,
  expectAccessible,
  signedInPage,
  useAppBrowser,
} from '../support/app-pages.ts';
import { asUser, signThroughApi } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** A sender of a new organization and an envelope they sent, Dana's address mistyped. */
async function sentWithTypo(): Promise<{ sender: SignedInUser; id: string; tag: string }> {
  const sender = await signedInUser(harness, { role: 'sender', fullName: 'Avi Sender' });
  const tag = sender.user.id.slice(0, 8);
  const organizationId = sender.organization.id;
  const templateId = await documentTemplate(harness.ctx, organizationId);
  const envelope = await createEnvelope(
    harness.ctx,
    {
      organizationId,
      templateId,
      title: 'Lease agreement',
      workflowType: 'Sequential',
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: `dana-${tag}@tyop.example`, signingOrder: 1 },
        {
          roleName: 'Provider',
          fullName: 'Sam Cohen',
          email: `sam-${tag}@provider.example`,
          signingOrder: 2,
        },
      ],
    },
    { userId: sender.user.id, teamId: null },
  );
  await sendEnvelope(harness.ctx, organizationId, envelope.id);
  return { sender, id: envelope.id, tag };
}

const tokenOf = (link: string) => new URL(link).pathname.split('/sign/')[1] as string;

describe('the envelope page: correct a recipient, remind one', () => {
  it('corrects a mistyped address; the new link signs while the old one is refused; the next recipient is reminded alone', async () => {
    const { sender, id, tag } = await sentWithTypo();
    const oldLink = await emailedLink(baseUrl, `dana-${tag}@tyop.example`, 'invitation');
    const page = await signedInPage(browser, baseUrl, sender, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/documents/${id}`);
    const dana = page.locator('tr[data-recipient="Dana Levi"]');
    await eventually(() => dana.textContent()).toContain(`dana-${tag}@tyop.example`);
    // Sam waits for his turn: he may be corrected, not reminded.
    const sam = page.locator('tr[data-recipient="Sam Cohen"]');
    expect(await sam.getByRole('button', { name: 'Remind: Sam Cohen' }).count()).toBe(0);
    expect(await sam.getByRole('button', { name: 'Correct: Sam Cohen' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Correct: Dana Levi' }).click();
    const dialog = page.getByRole('dialog', { name: 'Correct Dana Levi' });
    const email = dialog.getByLabel('Email address');
    expect(await email.inputValue()).toBe(`dana-${tag}@tyop.example`);
    await email.fill('');
    await dialog.getByRole('button', { name: 'Save the correction' }).click();
    await eventually(() => dialog.locator('#correct-email-error').textContent()).toContain(
      'Enter the email address the invitation goes to.',
    );
    await expectAccessible(page, 'correct a recipient, refused');
    await browser.screenshot(page, 'app-document-correct-en-desktop');

    await email.fill(`dana-${tag}@client.example`);
    await dialog.getByRole('button', { name: 'Save the correction' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      "Dana Levi's details were corrected.",
    );
    await eventually(() => dana.textContent()).toContain(`dana-${tag}@client.example`);
    await eventually(() => page.getByTestId('timeline').textContent()).toContain(
      "Dana Levi's details were corrected by the sender",
    );
    await expectAccessible(page, 'envelope page after a correction');
    await browser.screenshot(page, 'app-document-corrected-en-desktop');

    // The old link is refused; the new invitation's link signs.
    expect((await asUser(baseUrl, null, 'GET', `/api/signing/${tokenOf(oldLink)}`)).status).toBe(404);
    const newLink = await emailedLink(baseUrl, `dana-${tag}@client.example`, 'invitation');
    expect(tokenOf(newLink)).not.toBe(tokenOf(oldLink));
    const signer = await browser.newPage(DESKTOP);
    await signer.goto(oldLink);
    await eventually(() => signer.locator('main').textContent()).not.toContain('Lease agreement');
    await browser.screenshot(signer, 'signer-old-link-after-correction-en-desktop');
    await signThroughApi(baseUrl, newLink);
    await eventually(() => dana.textContent(), 30_000).toContain('Completed');

    // Sam's turn: his row reminds him alone.
    await eventually(() => sam.getByRole('button', { name: 'Remind: Sam Cohen' }).count(), 30_000).toBe(1);
    await sam.getByRole('button', { name: 'Remind: Sam Cohen' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      'A reminder went to Sam Cohen.',
    );
    const em = harness.ctx.orm.em.fork();
    const samId = (await em.findOneOrFail(Recipient, { envelopeId: id, fullName: 'Sam Cohen' })).id;
    const reminded = await em.find(AuditEvent, { envelopeId: id, type: 'envelope.reminded' });
    expect(reminded.map((event) => event.data)).toEqual([{ recipient_ids: [samId] }]);
    await emailedLink(baseUrl, `sam-${tag}@provider.example`, 'reminder');
  });

  it('the correction dialog in Hebrew on a phone fits the screen', async () => {
    const { sender, id } = await sentWithTypo();
    const page = await signedInPage(browser, baseUrl, sender, PHONE, 'he');
    await page.goto(`${baseUrl}/app/documents/${id}`);
    await page.getByRole('button', { name: 'תיקון: Dana Levi' }).click();
    const dialog = page.getByRole('dialog', { name: 'תיקון הפרטים של Dana Levi' });
    await eventually(() => dialog.count()).toBe(1);
    await dialog.getByRole('button', { name: 'שמירת התיקון' }).click();
    await eventually(() => dialog.locator('#correct-fullName-error').textContent()).toContain(
      'יש לשנות לפחות פרט אחד.',
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'correct a recipient, Hebrew phone');
    await browser.screenshot(page, 'app-document-correct-he-phone');
  });
});
