// The backoffice's providers page (/backoffice/providers, docs/backoffice.md, "Providers") in a real browser
// against a real Sigil app, with a real SMTP server and a Twilio stand-in receiving what it sends. An
// administrator signs in with the password and the code emailed to the development capture (no provider is
// set yet). The page shows each kind without a provider and without a secret; the SMTP settings are saved — a
// port out of range is refused by the page and a host the server refuses beside its field first — and then
// the password is shown only as "Set", never in the page; a test email typed by the administrator reaches the
// SMTP server and the page shows its 250 reply; a wrong password saved in its place makes the next test show
// the server's refusal (535), which the right one undoes. The SMS provider is saved and its test message
// reaches the Twilio stand-in with the provider's message id shown; a WhatsApp sender that is not a phone
// number is refused. Every save and test is in the backoffice audit log, never a secret. A second test shows
// the page in Hebrew (right to left) and on a 375-pixel phone, with a test send's answer. axe-core's WCAG 2.1
// AA rules on every screen; screenshots go to test/artifacts/web/.
//
// Saved providers apply to every message of every organization, and other test files run next to this one:
// the app here runs on a database of its own (test/support/isolated-database.ts), created for this file and
// dropped afterwards, so nothing they send ever goes through these settings.
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackofficeAuditEvent } from '../../db/entities/index.ts';
import { listenLocally } from '../support/api.ts';
import { eventually, expectAccessible, waitForLoaded, waitForPath } from '../support/app-pages.ts';
import {
  backofficeNav,
  operatorMadeAdmin,
  plain,
  signedInBackofficePage,
  signInToBackoffice,
} from '../support/backoffice-pages.ts';
import { DESKTOP, launchTestBrowser, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';
import { startTwilioStandIn, type TwilioStandIn } from '../support/twilio-stand-in.ts';

const RUN = randomUUID().slice(0, 8);
const DOMAIN = `providers-${RUN}.example.test`;
const SMTP = { user: 'sigil-mailer', password: `smtp-Secret-${RUN}` };
const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = `twilio-token-${RUN}`;

let harness: Awaited<ReturnType<typeof openIsolatedHarness>>;
let browser: TestBrowser;
let baseUrl: string;
let sink: SmtpSink;
let twilio: TwilioStandIn;

beforeAll(async () => {
  [sink, twilio] = await Promise.all([startSmtpSink(SMTP), startTwilioStandIn()]);
  harness = await openIsolatedHarness();
  baseUrl = await listenLocally(harness.app);
  browser = await launchTestBrowser();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
  await Promise.all([sink?.close(), twilio?.close()]);
});

/** An element's text as read: its white space collapsed, and without the isolates around names. */
async function said(locator: Locator): Promise<string> {
  return plain(await locator.textContent())
    .replace(/\s+/g, ' ')
    .trim();
}

const section = (page: Page, kind: 'smtp' | 'sms' | 'whatsapp') =>
  page.locator(`section[data-provider="${kind}"]`);

describe('the backoffice page for providers', () => {
  it('saves SMTP and SMS providers, never shows a secret; test sends reach them with their answer', async () => {
    const admin = await operatorMadeAdmin(harness, DOMAIN, 'Noa Cohen');
    const page = await browser.newPage(DESKTOP);
    // Signing in uses the development capture: no provider is saved yet.
    await signInToBackoffice(page, baseUrl, admin, '/backoffice/providers');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Providers');
    expect(
      await backofficeNav(page).getByRole('link', { name: 'Providers' }).getAttribute('aria-current'),
    ).toBe('page');

    const smtp = section(page, 'smtp');
    const sms = section(page, 'sms');
    const whatsapp = section(page, 'whatsapp');
    for (const [kind, part] of [
      ['smtp', smtp],
      ['sms', sms],
      ['whatsapp', whatsapp],
    ] as const) {
      expect(await said(part.getByTestId(`${kind}-source`)), kind).toBe('No provider');
      expect(await said(part.getByTestId(`${kind}-secret-state`)), kind).toBe(
        `${kind === 'smtp' ? 'Password' : 'Auth token'} Not set`,
      );
    }
    await expectAccessible(page, 'providers, none set');
    await browser.screenshot(page, 'backoffice-providers-none-en-desktop');

    // SMTP: a port out of range is refused by the page; a host the server refuses, beside its field.
    await smtp.getByLabel('SMTP server').fill('smtp example.com');
    await smtp.getByLabel('Port').fill('70000');
    await smtp.getByLabel('User name (optional)').fill(SMTP.user);
    await smtp.getByLabel('Password').fill(SMTP.password);
    await smtp.getByLabel('Sender address').fill('backoffice@sigil.example');
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.locator('#smtp-port-error'))).toBe('Enter a port from 1 to 65535.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('smtp-port');
    await smtp.getByLabel('Port').fill(String(sink.port));
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.locator('#smtp-host-error'))).toContain(
      'host must be a host name or an IP address',
    );
    expect(await said(smtp.locator('#smtp-error'))).toBe('Some fields need your attention.');
    expect(await smtp.getByTestId('smtp-source').textContent()).toContain('No provider');

    // The right host: saved, from the backoffice; the password only as "Set", never in the page.
    await smtp.getByLabel('SMTP server').fill('127.0.0.1');
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.locator('#smtp-saved'))).toBe(
      'Email (SMTP): saved. The next message goes through these settings.',
    );
    expect(await said(smtp.getByTestId('smtp-source'))).toBe('Saved in the backoffice');
    expect(await said(smtp)).toContain(`Saved by ${admin.email}`);
    expect(await said(smtp.getByTestId('smtp-secret-state'))).toBe('Password Set');
    expect(await smtp.getByLabel('New password').inputValue()).toBe('');
    expect(await smtp.getByLabel('Port').inputValue()).toBe(String(sink.port));
    expect(await page.content()).not.toContain(SMTP.password);

    // A test email to an address the administrator types: the SMTP server receives it; the page shows its
    // reply.
    const smtpTest = smtp.getByRole('form', { name: 'Test send' });
    await smtpTest.getByLabel('Send a test email to').fill('not an address');
    await smtpTest.getByRole('button', { name: 'Send a test email' }).click();
    await eventually(() => said(smtpTest.locator('#smtp-test-to-error'))).toBe('Enter an email address.');
    const before = sink.received.length;
    await smtpTest.getByLabel('Send a test email to').fill('ops@customer.example');
    await smtpTest.getByRole('button', { name: 'Send a test email' }).click();
    const result = smtp.getByTestId('smtp-test-result');
    await eventually(() => result.getAttribute('data-sent')).toBe('true');
    expect(await said(result)).toContain('Sent: the provider accepted the message.');
    expect(await said(result)).toContain('The SMTP server · Saved in the backoffice');
    expect(await said(smtp.getByTestId('smtp-test-answer'))).toMatch(/^250\b/);
    const [mail] = (await sink.waitFor(before + 1)).slice(before);
    expect(mail?.envelopeTo).toEqual(['ops@customer.example']);
    expect(mail?.user).toBe(SMTP.user);
    expect(mail?.parsed.subject).toBe('Sigil: a test message');
    expect(mail?.parsed.from?.value[0]?.address).toBe('backoffice@sigil.example');
    expect(await said(smtp.getByTestId('smtp-test-message-id'))).toBe(mail?.parsed.messageId);
    await expectAccessible(page, 'SMTP saved and tested');
    await browser.screenshot(page, 'backoffice-providers-en-desktop');

    // A wrong password in its place: the next test shows the server's refusal, never a password.
    await smtp.getByLabel('New password').fill('not-the-password');
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.locator('#smtp-saved'))).toContain('saved');
    await smtpTest.getByRole('button', { name: 'Send a test email' }).click();
    await eventually(() => result.getAttribute('data-sent')).toBe('false');
    expect(await said(result)).toContain(
      'Not sent: the provider refused the message or could not be reached.',
    );
    expect(await said(smtp.getByTestId('smtp-test-answer'))).toMatch(/535|Invalid username or password/);
    expect(await page.content()).not.toContain('not-the-password');
    expect(sink.received.length).toBe(before + 1);
    await expectAccessible(page, 'SMTP test refused');
    await browser.screenshot(page, 'backoffice-providers-refused-en-desktop');
    // The right one again, typed in: the next test is accepted.
    await smtp.getByLabel('New password').fill(SMTP.password);
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.locator('#smtp-saved'))).toContain('saved');
    await smtpTest.getByRole('button', { name: 'Send a test email' }).click();
    await eventually(() => result.getAttribute('data-sent')).toBe('true');
    await sink.waitFor(before + 2);
    // Removing the stored password (the field is off while the box is ticked): "Not set"; typed in again
    // after.
    await smtp.getByLabel('Remove the stored password').check();
    expect(await smtp.getByLabel('New password').isDisabled()).toBe(true);
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.getByTestId('smtp-secret-state'))).toBe('Password Not set');
    expect(await smtp.getByLabel('Remove the stored password').count()).toBe(0);
    await smtp.getByLabel('Password', { exact: true }).fill(SMTP.password);
    await smtp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(smtp.getByTestId('smtp-secret-state'))).toBe('Password Set');

    // SMS through Twilio (the stand-in): saved with its auth token, which is then only "Set"; a test SMS
    // reaches it.
    await sms.getByLabel('Account SID').fill('AC123');
    await sms.getByLabel('Sender').fill('+15005550006');
    await sms.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(sms.locator('#sms-accountSid-error'))).toBe(
      'Enter the account SID: AC followed by 32 hexadecimal digits.',
    );
    await sms.getByLabel('Account SID').fill(ACCOUNT_SID);
    await sms.getByLabel('Auth token').fill(AUTH_TOKEN);
    await sms.getByLabel('Twilio API address (optional)').fill(twilio.baseUrl);
    await sms.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(sms.getByTestId('sms-source'))).toBe('Saved in the backoffice');
    expect(await said(sms.getByTestId('sms-secret-state'))).toBe('Auth token Set');
    expect(await page.content()).not.toContain(AUTH_TOKEN);
    const smsTest = sms.getByRole('form', { name: 'Test send' });
    await smsTest.getByLabel('Send a test message to').fill('050-1234567');
    await smsTest.getByRole('button', { name: 'Send a test SMS' }).click();
    await eventually(() => said(smsTest.locator('#sms-test-to-error'))).toBe(
      'Enter a number in E.164 form, such as +972501234567.',
    );
    const requests = twilio.requests.length;
    await smsTest.getByLabel('Send a test message to').fill('+972501234567');
    await smsTest.getByRole('button', { name: 'Send a test SMS' }).click();
    const smsResult = sms.getByTestId('sms-test-result');
    await eventually(() => smsResult.getAttribute('data-sent')).toBe('true');
    expect(await said(smsResult)).toContain('Twilio · Saved in the backoffice');
    expect(await said(sms.getByTestId('sms-test-message-id'))).toMatch(/^SM/);
    const [sent] = twilio.requests.slice(requests);
    expect(sent?.form).toMatchObject({ To: '+972501234567', From: '+15005550006' });
    expect(sent?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
    );

    // WhatsApp: a Messaging Service is no WhatsApp sender; nothing is saved.
    await whatsapp.getByLabel('Account SID').fill(ACCOUNT_SID);
    await whatsapp.getByLabel('WhatsApp sender').fill(`MG${'0'.repeat(32)}`);
    await whatsapp.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(whatsapp.locator('#whatsapp-from-error'))).toBe(
      'Enter the number in E.164 form, such as +14155238886.',
    );
    expect(await said(whatsapp.getByTestId('whatsapp-source'))).toBe('No provider');
    await expectAccessible(page, 'providers saved');

    // After a reload: what the server uses now, never a secret.
    await page.reload();
    await waitForLoaded(page);
    await eventually(() => said(section(page, 'sms').getByTestId('sms-source'))).toBe(
      'Saved in the backoffice',
    );
    expect(await section(page, 'smtp').getByLabel('SMTP server').inputValue()).toBe('127.0.0.1');
    expect(await section(page, 'sms').getByLabel('Twilio API address (optional)').inputValue()).toBe(
      twilio.baseUrl,
    );
    const html = await page.content();
    for (const secret of [SMTP.password, AUTH_TOKEN]) expect(html).not.toContain(secret);

    // The audit log has every save and test, never a secret.
    const events = await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { action: { $like: 'provider.%' } }, { orderBy: { occurredAt: 'asc' } });
    expect(events.map((event) => event.action)).toEqual([
      'provider.smtp.updated',
      'provider.smtp.tested',
      'provider.smtp.updated',
      'provider.smtp.tested',
      'provider.smtp.updated',
      'provider.smtp.tested',
      'provider.smtp.updated',
      'provider.smtp.updated',
      'provider.sms.updated',
      'provider.sms.tested',
    ]);
    expect(events.every((event) => event.actorEmail === admin.email)).toBe(true);
    const details = JSON.stringify(events.map((event) => event.details));
    for (const secret of [SMTP.password, AUTH_TOKEN, 'not-the-password'])
      expect(details).not.toContain(secret);
  });

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      await page.goto(`${baseUrl}/backoffice/providers?lang=${language}`);
      await waitForPath(page, '/backoffice/providers');
      await waitForLoaded(page);
      await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
        language === 'he' ? 'ספקי הודעות' : 'Providers',
      );
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      // A test send's answer in the page too (the SMTP server saved by the first test).
      const smtp = section(page, 'smtp');
      await smtp.locator('#smtp-test-to').fill('ops@customer.example');
      await smtp.locator('form.test button[type="submit"]').click();
      await eventually(() => smtp.getByTestId('smtp-test-result').getAttribute('data-sent')).toBe('true');
      expect(await pageWidth(page), `providers ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `providers (${language}, ${device})`);
      await browser.screenshot(page, `backoffice-providers-${language}-${device}`);
    }
  }, 360_000);
});
