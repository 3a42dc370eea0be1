// The backoffice's notification templates pages (/backoffice/templates, docs/backoffice.md, "Notification
// templates") in a real browser against a real Sigil app. An administrator signs in with the password and the
// emailed code; the list shows every message with English and Hebrew built in; the English invitation opens with
// the built-in texts and its variables; a body without {link} and a subject with an unknown variable are refused
// beside their fields; the preview shows the email (sample values, the button) and the text message; the save
// makes the list say "Changed", and the next invitation the worker's activity sends uses the texts; a reset
// after its confirmation brings the built-in texts back; the audit log names both. A second test shows the pages
// in Hebrew (right to left, the Hebrew texts edited and previewed) and on a 375-pixel phone. axe-core's WCAG 2.1
// AA rules on every screen; screenshots go to test/artifacts/web/.
//
// Stored templates apply to every message of every organization, and other test files run next to this one:
// the app here runs on a database of its own (test/support/isolated-database.ts).
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { DevNotification } from '../../db/entities/index.ts';
import { TEMPLATE_KINDS } from '../../domain/notification-templates.ts';
import { listenLocally } from '../support/api.ts';
import { eventually, expectAccessible, waitForLoaded, waitForPath } from '../support/app-pages.ts';
import {
  operatorMadeAdmin,
  plain,
  signedInBackofficePage,
  signInToBackoffice,
} from '../support/backoffice-pages.ts';
import { DESKTOP, launchTestBrowser, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { draftTwoSignerEnvelope, TEST_ENCRYPTION_KEY } from '../support/context.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';

const RUN = randomUUID().slice(0, 8);
const DOMAIN = `templates-${RUN}.example.test`;

let harness: Awaited<ReturnType<typeof openIsolatedHarness>>;
let browser: TestBrowser;
let baseUrl: string;

beforeAll(async () => {
  harness = await openIsolatedHarness();
  baseUrl = await listenLocally(harness.app);
  browser = await launchTestBrowser();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

async function field(page: Page, label: string): Promise<string> {
  return page.getByLabel(label, { exact: true }).inputValue();
}

/** The newest captured message of the kind to the address, with its subject (the capture keeps the whole message). */
async function capturedSubject(to: string): Promise<string | null> {
  const [latest] = await harness.ctx.orm.em
    .fork()
    .find(DevNotification, { to, kind: 'invitation' }, { orderBy: { createdAt: 'desc' }, limit: 1 });
  return latest?.subject ?? null;
}

describe('the notification templates pages', () => {
  it('edits, refuses, previews, saves, uses and resets the English invitation', async () => {
    const admin = await operatorMadeAdmin(harness, DOMAIN, 'Rina Katz');
    const page = await browser.newPage(DESKTOP);
    await signInToBackoffice(page, baseUrl, admin, '/backoffice/templates');

    await eventually(() => page.getByTestId('templates-summary').textContent()).toBe(
      'All messages use the built-in texts.',
    );
    expect(await page.locator('[data-testid="templates"] tbody tr').count()).toBe(TEMPLATE_KINDS.length);
    expect(
      await page.getByRole('link', { name: 'Notification templates' }).getAttribute('aria-current'),
    ).toBe('page');
    await expectAccessible(page, 'templates list');
    await browser.screenshot(page, 'backoffice-templates-en-desktop');

    await page.getByRole('link', { name: 'Edit Invitation to sign, English' }).click();
    await waitForPath(page, '/backoffice/templates/invitation/en');
    await waitForLoaded(page);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Edit Invitation to sign (English)',
    );
    expect(await page.getByTestId('template-state').textContent()).toContain(
      'Recipients get the built-in texts.',
    );
    expect(await field(page, 'Email subject')).toBe('{organization} sent you "{title}" to sign');
    expect(await field(page, 'Email body')).toContain('\n\n{link}\n\n');
    expect(await page.locator('.variables li').allTextContents()).toHaveLength(5);

    // A body without the link and a subject with a name the kind does not have: refused beside each field.
    await page.getByLabel('Email subject', { exact: true }).fill('Sign {title}, {nickname}');
    await page.getByLabel('Email body', { exact: true }).fill('Hello {name},\n\nPlease sign {title}.');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.locator('#template-subject-error').textContent()).toContain(
      'unknown variable {nickname}',
    );
    expect(await page.locator('#template-body-error').textContent()).toContain(
      'must contain {link}: the link the recipient opens',
    );
    expect(await page.evaluate('document.activeElement?.id')).toBe('template-subject');
    await expectAccessible(page, 'template refused');
    await browser.screenshot(page, 'backoffice-template-refused-en-desktop');

    // Fixed, previewed with sample values: the email with its button, and the text message.
    await page.getByLabel('Email subject', { exact: true }).fill('Your signature on {title}, please');
    await page
      .getByLabel('Email body', { exact: true })
      .fill(
        'Hello {name},\n\n{organization} needs your signature on {title}.\n\n{link}\n\nAnswer by {deadline}.',
      );
    await page.getByLabel('SMS and WhatsApp text', { exact: true }).fill('Sign {title}: {link}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await eventually(() => page.getByTestId('preview-subject').textContent()).toBe(
      'Your signature on Services agreement 2027, please',
    );
    const email = page.getByRole('document', { name: 'Email preview' });
    await eventually(() =>
      email.getByText('Example Ltd. needs your signature on Services agreement 2027.').count(),
    ).toBe(1);
    expect(await email.getByRole('link', { name: 'Review and sign' }).getAttribute('href')).toBe(
      'https://sigil.example/sign/sample-link-for-the-preview',
    );
    expect(await page.getByTestId('preview-sms').textContent()).toBe(
      'Sign Services agreement 2027: https://sigil.example/sign/sample-link-for-the-preview',
    );
    await expectAccessible(page, 'template preview');
    await browser.screenshot(page, 'backoffice-template-preview-en-desktop');

    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() =>
      page.getByText('Saved. The next message of this kind uses these texts.').count(),
    ).toBe(1);
    expect(plain(await page.getByTestId('template-state').textContent())).toContain(`by ${admin.email}`);

    // The next invitation goes out with the texts (the development capture keeps it).
    const draft = await draftTwoSignerEnvelope(harness.ctx, {
      title: 'Lease 12',
      recipients: [
        { roleName: 'Client', fullName: 'Sam Cohen', email: `sam-${RUN}@client.example`, language: 'en' },
        { roleName: 'Provider', fullName: 'Noa Bar', email: `noa-${RUN}@provider.example` },
      ],
    });
    const { sendNotification } = createNotificationActivities({
      orm: harness.ctx.orm,
      config: { env: 'test', publicBaseUrl: baseUrl, secretsEncryptionKey: TEST_ENCRYPTION_KEY },
    });
    const invite = () =>
      sendNotification({
        notificationId: randomUUID(),
        organizationId: draft.organizationId,
        envelopeId: draft.envelopeId,
        kind: 'invitation',
        recipientId: draft.first.id,
      });
    expect(await invite()).toMatchObject({ status: 'sent' });
    expect(await capturedSubject(`sam-${RUN}@client.example`)).toBe('Your signature on Lease 12, please');

    await page.getByRole('link', { name: 'All notification templates' }).click();
    await waitForPath(page, '/backoffice/templates');
    await eventually(() => page.getByTestId('templates-summary').textContent()).toBe(
      '1 text was changed; the others are built in.',
    );
    const row = page.locator('tr[data-kind="invitation"]');
    expect(await row.locator('td[data-language="en"] .app-badge').textContent()).toBe('Changed');
    expect(await row.locator('td[data-language="he"] .app-badge').textContent()).toBe('Built in');
    await browser.screenshot(page, 'backoffice-templates-changed-en-desktop');

    // Reset, after its confirmation: the built-in texts, in the page and in the next invitation.
    await row.getByRole('link', { name: 'Edit Invitation to sign, English' }).click();
    await waitForPath(page, '/backoffice/templates/invitation/en');
    await page.getByRole('button', { name: 'Reset to built-in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Use the built-in texts again?' });
    await eventually(() => dialog.isVisible()).toBe(true);
    await expectAccessible(page, 'reset confirmation');
    await dialog.getByRole('button', { name: 'Reset to built-in' }).click();
    await eventually(() => page.getByText('The built-in texts are used again.').count()).toBe(1);
    expect(await field(page, 'Email subject')).toBe('{organization} sent you "{title}" to sign');
    expect(await page.getByRole('button', { name: 'Reset to built-in' }).count()).toBe(0);
    expect(await invite()).toMatchObject({ status: 'sent' });
    expect(await capturedSubject(`sam-${RUN}@client.example`)).toMatch(/ sent you "Lease 12" to sign$/);

    // The audit log names both, in words.
    await page.goto(`${baseUrl}/backoffice/audit-log`);
    await waitForLoaded(page);
    await eventually(() => page.getByText('Changed a notification template').count()).toBe(1);
    expect(await page.getByText('Reset a notification template').count()).toBe(1);
    expect(await page.getByText('invitation (en)').count()).toBe(2);
  });

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['he', PHONE, 'phone'],
      ['en', PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      await page.goto(`${baseUrl}/backoffice/templates?lang=${language}`);
      await waitForLoaded(page);
      await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
        language === 'he' ? 'תבניות הודעות' : 'Notification templates',
      );
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      expect(await pageWidth(page), `list ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `templates (${language}, ${device})`);
      await browser.screenshot(page, `backoffice-templates-${language}-${device}`);

      await page.goto(`${baseUrl}/backoffice/templates/completed/he?lang=${language}`);
      await waitForLoaded(page);
      await eventually(() => page.getByTestId('template-state').count()).toBe(1);
      expect(await page.locator('#template-body').getAttribute('dir')).toBe('rtl');
      await page.getByRole('button', { name: language === 'he' ? 'תצוגה מקדימה' : 'Preview' }).click();
      await eventually(() => page.getByTestId('preview-subject').textContent()).toBe(
        '"הסכם שירותים 2027" הושלם',
      );
      expect(await page.getByTestId('preview-sms').getAttribute('dir')).toBe('rtl');
      expect(await pageWidth(page), `edit ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `template edit (${language}, ${device})`);
      await browser.screenshot(page, `backoffice-template-edit-${language}-${device}`);
      await page.close();
    }
  });
});
