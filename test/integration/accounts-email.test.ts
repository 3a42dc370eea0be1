// The account emails through a real SMTP server (smtp-server, parsed with mailparser), with the app
// configured by SMTP_* variables: the verification email of a Hebrew registration (right to left) and the
// password reset email, each with the organization's sender display name, Reply-To and footer and a link to
// PUBLIC_BASE_URL's web app page that works; nothing goes to the development capture. A refusing SMTP server
// leaves a complete registration (answered 200) whose owner asks again later; the log names the failure
// without the link, the token or the SMTP password.
import { Writable } from 'node:stream';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../config/config.ts';
import { AppUser, DevNotification, Organization } from '../../db/entities/index.ts';
import { accountEmailsSettled } from '../../services/accounts/account-emails.ts';
import { asUser, type Caller } from '../support/app-requests.ts';
import { newEmail, PASSWORD, registration, testClock } from '../support/auth-http.ts';
import { openTestContext, TEST_ENCRYPTION_KEY, type TestContext } from '../support/context.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';

const SMTP_USER = 'sigil-mailer';
const SMTP_PASSWORD = 'smtp-Pa55word-never-logged';
const MAIL_FROM = 'accounts@sigil.example';
const PUBLIC_BASE_URL = 'https://sign.sigil.example';
const FOOTER = 'Levi & Co · 1 Harbour Street, Haifa\nQuestions? support@levi.example';

let ctx: TestContext;
let smtp: SmtpSink;
let app: FastifyInstance;
const logLines: string[] = [];
const clock = testClock();

beforeAll(async () => {
  ctx = await openTestContext();
  smtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
  const config = loadConfig({
    SIGIL_ENV: 'test',
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PUBLIC_BASE_URL,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    SMTP_USER,
    SMTP_PASSWORD,
    MAIL_FROM,
  });
  expect(config.notifications.email).not.toBeNull();
  const logs = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  app = await buildApp({
    config,
    orm: ctx.orm,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: pino({ level: 'info' }, logs),
    clock: clock.now,
  });
});
afterAll(async () => {
  await accountEmailsSettled();
  await app?.close();
  await smtp?.close();
  await ctx?.close();
});

const em = () => ctx.orm.em.fork();

/** A signed-out browser on the public address. */
const visitor: Caller = { headers: { origin: PUBLIC_BASE_URL } };

/** The newest email to an address, once the routes' queued emails are sent. */
async function mailTo(address: string, count: number): Promise<ParsedMail> {
  await accountEmailsSettled();
  await smtp.waitFor(count);
  const mails = smtp.received.filter((mail) => mail.envelopeTo.includes(address));
  const mail = mails.at(-1);
  if (!mail) throw new Error(`no email to ${address}`);
  return mail.parsed;
}

function tokenOf(mail: ParsedMail, page: string): string {
  const match = new RegExp(`${PUBLIC_BASE_URL}/app/${page}\\?token=([\\w-]+)`).exec(mail.text ?? '');
  if (!match?.[1]) throw new Error(`no ${page} link in: ${mail.text}`);
  return match[1];
}

async function brand(email: string) {
  const tx = em();
  const user = await tx.findOneOrFail(AppUser, { email });
  const organization = await tx.findOneOrFail(Organization, { id: user.organizationId });
  organization.senderDisplayName = 'Levi Signing';
  organization.replyToEmail = 'support@levi.example';
  organization.emailFooter = FOOTER;
  await tx.flush();
}

describe('account emails by SMTP', () => {
  it('sends the verification (Hebrew, right to left) and the reset email with the branding; their links work', async () => {
    const email = newEmail('smtp');
    const before = smtp.received.length;
    const body = registration(email, { language: 'he' });
    const registered = await asUser(app, visitor, 'POST', '/api/auth/register', body);
    expect(registered.statusCode, registered.body).toBe(200);
    const welcome = await mailTo(email, before + 1);
    // Without a sender display name, the organization's name; no Reply-To.
    expect(welcome.from?.value).toEqual([{ name: body.organizationName, address: MAIL_FROM }]);
    expect(welcome.replyTo).toBeUndefined();
    expect(welcome.headers.get('content-language')).toBe('he');
    const html = welcome.html as string;
    expect(html).toContain('<html lang="he" dir="rtl">');
    expect(html).toMatch(/<div dir="rtl"/);
    expect(welcome.subject).toMatch(/Sigil/);
    expect(welcome.text).toContain('שלום Dana Levi');
    const verifyToken = tokenOf(welcome, 'verify-email');
    expect(html).toContain(`href="${PUBLIC_BASE_URL}/app/verify-email?token=${verifyToken}"`);

    // Branding set after registration: a new verification email carries it.
    await brand(email);
    clock.advance(61_000);
    expect((await asUser(app, visitor, 'POST', '/api/auth/resend-verification', { email })).statusCode).toBe(
      200,
    );
    const branded = await mailTo(email, before + 2);
    expect(branded.from?.value).toEqual([{ name: 'Levi Signing', address: MAIL_FROM }]);
    expect(branded.replyTo?.value[0]?.address).toBe('support@levi.example');
    expect(branded.text).toContain(FOOTER);
    expect(branded.html as string).toContain('Levi &amp; Co · 1 Harbour Street, Haifa<br>Questions?');
    const newer = tokenOf(branded, 'verify-email');
    // The newer link replaced the first.
    expect(
      (await asUser(app, visitor, 'POST', '/api/auth/verify-email', { token: verifyToken })).statusCode,
    ).toBe(400);
    expect((await asUser(app, visitor, 'POST', '/api/auth/verify-email', { token: newer })).statusCode).toBe(
      200,
    );

    const login = await asUser(app, visitor, 'POST', '/api/auth/login', { email, password: PASSWORD });
    expect(login.statusCode, login.body).toBe(200);

    // The password reset, in the user's language (Hebrew): a link that works once.
    const forgot = await asUser(app, visitor, 'POST', '/api/auth/forgot-password', { email });
    expect(forgot.statusCode).toBe(200);
    const reset = await mailTo(email, before + 3);
    expect(reset.from?.value).toEqual([{ name: 'Levi Signing', address: MAIL_FROM }]);
    expect(reset.html as string).toContain('<html lang="he" dir="rtl">');
    const resetToken = tokenOf(reset, 'reset-password');
    const claimed = await asUser(app, visitor, 'POST', '/api/auth/reset-password/claim', {
      token: resetToken,
    });
    expect(claimed.json()).toEqual({ email, fullName: 'Dana Levi' });
    const done = await asUser(app, visitor, 'POST', '/api/auth/reset-password', {
      token: resetToken,
      password: 'the new passphrase',
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(
      (await asUser(app, visitor, 'POST', '/api/auth/login', { email, password: 'the new passphrase' }))
        .statusCode,
    ).toBe(200);

    // With SMTP configured nothing is captured.
    expect(await em().count(DevNotification, { to: email })).toBe(0);
  });

  it('answers a registration 200 when SMTP refuses, logs the failure without secrets, and the owner asks again', async () => {
    const email = newEmail('refused');
    smtp.refuseRecipients({ code: 550, message: 'mailbox unavailable' });
    const before = smtp.received.length;
    const linesBefore = logLines.length;
    try {
      const registered = await asUser(app, visitor, 'POST', '/api/auth/register', registration(email));
      expect(registered.statusCode, registered.body).toBe(200);
      await accountEmailsSettled();
    } finally {
      smtp.refuseRecipients(null);
    }
    const user = await em().findOneOrFail(AppUser, { email });
    expect(user.status).toBe('active');
    const logged = logLines.slice(linesBefore).join('');
    expect(logged).toContain('an account email could not be sent');
    expect(logged).toContain('"accountEmail":"verify_email"');
    expect(logged).toContain('550');
    expect(logged).not.toContain(SMTP_PASSWORD);
    expect(logged).not.toContain('token=');
    expect(logged).not.toContain(PASSWORD);

    clock.advance(61_000);
    expect((await asUser(app, visitor, 'POST', '/api/auth/resend-verification', { email })).statusCode).toBe(
      200,
    );
    const mail = await mailTo(email, before + 1);
    const token = tokenOf(mail, 'verify-email');
    expect((await asUser(app, visitor, 'POST', '/api/auth/verify-email', { token })).statusCode).toBe(200);
    expect(
      (await asUser(app, visitor, 'POST', '/api/auth/login', { email, password: PASSWORD })).statusCode,
    ).toBe(200);
  });
});
