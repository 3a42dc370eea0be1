// Email notifications through a real SMTP server started here (smtp-server, messages parsed with mailparser):
// invitations and completion notices in English and Hebrew with the organization's display name, reply-to
// and footer; the invitation's link opens the signer API; every attempt is recorded; a refusing server is a
// retryable (4xx) or final (5xx) failure, the password never appears, and a retried notification is sent
// once. Without a provider, development captures and production fails for good.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNotificationActivities,
  type NotificationActivityConfig,
} from '../../activities/notifications.ts';
import type { NotificationsConfig } from '../../config/config.ts';
import { DevNotification, Notification, Organization } from '../../db/entities/index.ts';
import type { SendNotificationRequest } from '../../workflows/notification-contracts.ts';
import { type ApiHarness, newIntegrator, openApiHarness, sentEnvelope } from '../support/api.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';

const SMTP_USER = 'sigil-mailer';
const SMTP_PASSWORD = 'smtp-Pa55word-never-logged';
const MAIL_FROM = 'sign@sigil.example';
const PUBLIC_BASE_URL = 'https://sign.sigil.example';
const FOOTER = 'Acme Ltd. · 1 Harbour Street, Haifa\nQuestions? Write to contracts@acme.example';

let harness: ApiHarness;
let smtp: SmtpSink;
let notifications: NotificationsConfig;

beforeAll(async () => {
  harness = await openApiHarness();
  smtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
  notifications = {
    email: {
      transport: {
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        user: SMTP_USER,
        password: SMTP_PASSWORD,
      },
      from: MAIL_FROM,
    },
    twilio: null,
  };
});
afterAll(async () => {
  await smtp?.close();
  await harness?.close();
});

function activities(config: Partial<NotificationActivityConfig> = {}) {
  return createNotificationActivities({
    orm: harness.ctx.orm,
    config: { env: 'test', publicBaseUrl: PUBLIC_BASE_URL, notifications, ...config },
  });
}

/**
 * A Parallel envelope of a branded organization (`branding: false`: without its sender name, reply-to and
 * footer): an English signer, a Hebrew signer, a Hebrew Cc and a Viewer whose link is handed over. `send: false`
 * keeps it a Draft, so the worker sends it no invitations.
 */
async function fourRecipientEnvelope(branding = true, send = true) {
  const integrator = await newIntegrator(harness);
  if (branding) {
    const em = harness.ctx.orm.em.fork();
    const organization = await em.findOneOrFail(Organization, { id: integrator.organizationId });
    organization.senderDisplayName = 'Acme Signing';
    organization.replyToEmail = 'contracts@acme.example';
    organization.emailFooter = FOOTER;
    await em.flush();
  }
  const envelope = await sentEnvelope(
    harness,
    { organizationId: integrator.organizationId, headers: await integrator.auth() },
    {
      title: 'Services agreement',
      workflowType: 'Parallel',
      templateId: integrator.templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Sam Cohen', email: 'sam@client.example' },
        { roleName: 'Provider', fullName: 'דנה לוי', email: 'dana@provider.example', language: 'he' },
        { roleName: 'Client', fullName: 'Noa Bar', email: 'noa@cc.example', type: 'Cc', language: 'he' },
        { roleName: 'Client', fullName: 'Hand Over', type: 'Viewer', deliveryChannel: 'ManualLink' },
      ],
    },
    { send },
  );
  const recipient = (fullName: string) => ({ id: envelope.recipientIdOf(fullName) });
  return {
    organizationId: envelope.organizationId,
    envelopeId: envelope.id,
    english: recipient('Sam Cohen'),
    hebrew: recipient('דנה לוי'),
    cc: recipient('Noa Bar'),
    manual: recipient('Hand Over'),
  };
}

function request(
  envelope: { organizationId: string; envelopeId: string },
  fields: Partial<SendNotificationRequest> & Pick<SendNotificationRequest, 'kind'>,
): SendNotificationRequest {
  return {
    notificationId: randomUUID(),
    organizationId: envelope.organizationId,
    envelopeId: envelope.envelopeId,
    ...fields,
  };
}

function mailTo(address: string): ParsedMail {
  const mail = smtp.received.findLast((m) => m.envelopeTo.includes(address));
  if (!mail) throw new Error(`no email to ${address}`);
  return mail.parsed;
}

function linkIn(text: string): string {
  const match = text.match(/https:\/\/sign\.sigil\.example\/sign\/[A-Za-z0-9_-]{43}/);
  if (!match) throw new Error(`no signing link in: ${text}`);
  return match[0];
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('email through SMTP', () => {
  it('sends invitations in English and in Hebrew whose links open the signer API', async () => {
    const envelope = await fourRecipientEnvelope();
    const { sendNotification } = activities();
    const before = smtp.received.length;
    const en = await sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.english.id }),
    );
    const he = await sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.hebrew.id }),
    );
    await smtp.waitFor(before + 2);

    const english = mailTo('sam@client.example');
    expect(english.subject).toBe('Acme Signing sent you "Services agreement" to sign');
    expect(english.from?.value).toEqual([{ name: 'Acme Signing', address: MAIL_FROM }]);
    expect(english.replyTo?.value).toEqual([{ name: '', address: 'contracts@acme.example' }]);
    expect(english.headers.get('content-language')).toBe('en');
    expect(english.text).toContain('Hello Sam Cohen,');
    expect(english.text).toContain(FOOTER);
    const html = english.html as string;
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain(
      'Acme Ltd. · 1 Harbour Street, Haifa<br>Questions? Write to contracts@acme.example',
    );
    const englishLink = linkIn(english.text ?? '');
    expect(html).toContain(`href="${englishLink}"`);
    // nodemailer authenticated with the configured credentials.
    expect(smtp.received.slice(before).map((m) => m.user)).toEqual([SMTP_USER, SMTP_USER]);

    const hebrew = mailTo('dana@provider.example');
    expect(hebrew.subject).toBe('Acme Signing שלחו לך את "Services agreement" לחתימה');
    expect(hebrew.from?.value).toEqual([{ name: 'Acme Signing', address: MAIL_FROM }]);
    expect(hebrew.replyTo?.value[0]?.address).toBe('contracts@acme.example');
    expect(hebrew.text).toContain('שלום דנה לוי,');
    const hebrewHtml = hebrew.html as string;
    expect(hebrewHtml).toContain('<html lang="he" dir="rtl">');
    expect(hebrewHtml).toMatch(/<div dir="rtl"/);
    expect(hebrewHtml).toContain('Acme Ltd. · 1 Harbour Street, Haifa<br>');
    const hebrewLink = linkIn(hebrew.text ?? '');
    expect(hebrewHtml).toContain(`href="${hebrewLink}"`);
    expect(hebrewLink).not.toBe(englishLink);

    // Each link is the recipient's own: the signer API opens it.
    for (const [link, name, language] of [
      [englishLink, 'Sam Cohen', 'en'],
      [hebrewLink, 'דנה לוי', 'he'],
    ] as const) {
      const token = link.split('/sign/')[1] as string;
      const response = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ state: 'ready', recipient: { name, language } });
    }

    // Both are recorded: the provider, its Message-ID, one attempt, no body.
    const rows = await harness.ctx.orm.em
      .fork()
      .find(Notification, { id: { $in: [en, he].map((r) => r.notificationId) } });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'sent',
        provider: 'smtp',
        channel: 'Email',
        kind: 'invitation',
        attempts: 1,
      });
      expect(row.sentAt).toBeInstanceOf(Date);
    }
    expect(rows.find((r) => r.recipientId === envelope.english.id)?.providerMessageId).toBe(
      english.messageId,
    );
    expect(rows.find((r) => r.recipientId === envelope.hebrew.id)?.language).toBe('he');
    expect(en).toMatchObject({ status: 'sent', provider: 'smtp', attempts: 1, alreadySent: false });
  });

  it('sends completion notices to a signer and a Cc, in their languages, with the documents link', async () => {
    const envelope = await fourRecipientEnvelope();
    const { sendNotification } = activities();
    const before = smtp.received.length;
    const documentsUrl = `${PUBLIC_BASE_URL}/envelopes/${envelope.envelopeId}/documents`;
    await sendNotification(
      request(envelope, { kind: 'completed', recipientId: envelope.english.id, documentsUrl }),
    );
    await sendNotification(request(envelope, { kind: 'completed', recipientId: envelope.cc.id }));
    await smtp.waitFor(before + 2);

    const english = mailTo('sam@client.example');
    expect(english.subject).toBe('"Services agreement" is complete');
    expect(english.text).toContain(`Download the signed document: ${documentsUrl}`);
    expect(english.html).toContain(`href="${documentsUrl}"`);
    expect(english.text).toContain(FOOTER);

    const cc = mailTo('noa@cc.example');
    expect(cc.subject).toBe('"Services agreement" הושלם');
    expect(cc.from?.value[0]?.name).toBe('Acme Signing');
    expect(cc.html).toContain('<html lang="he" dir="rtl">');
    // Without a documents URL, the Cc gets a link of their own that opens the signer page.
    const token = linkIn(cc.text ?? '').split('/sign/')[1] as string;
    const response = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().recipient).toMatchObject({ name: 'Noa Bar', type: 'Cc' });
  });

  it('falls back to the organization name, and sends decline and cancel notices to the sender', async () => {
    const envelope = await fourRecipientEnvelope(false);
    const { sendNotification } = activities();
    const before = smtp.received.length;
    const invitation = await sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.english.id }),
    );
    expect(invitation.status).toBe('sent');
    await smtp.waitFor(before + 1);
    const mail = mailTo('sam@client.example');
    const organization = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Organization, { id: envelope.organizationId });
    expect(mail.from?.value).toEqual([{ name: organization.name, address: MAIL_FROM }]);
    expect(mail.replyTo).toBeUndefined();
    expect(mail.text).toContain(`Sent by ${organization.name} with Sigil.`);

    // The sender has no address of their own yet, and this organization has no reply-to: nobody to tell, so
    // the notice is skipped and nothing is recorded.
    const nowhere = await sendNotification(request(envelope, { kind: 'cancelled', reason: 'Replaced' }));
    expect(nowhere).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/no reply-to address/),
    });
    expect(await harness.ctx.orm.em.fork().count(Notification, { id: nowhere.notificationId })).toBe(0);

    await sendNotification(
      request(envelope, {
        kind: 'declined',
        sender: { email: 'owner@acme.example', fullName: 'Owner', language: 'he' },
        declinedByRecipientId: envelope.english.id,
        reason: 'The amount is wrong',
      }),
    );
    await sendNotification(
      request(envelope, { kind: 'cancelled', sender: { email: 'owner@acme.example' }, reason: 'Replaced' }),
    );
    await smtp.waitFor(before + 3);
    const [declined, cancelled] = smtp.received.slice(-2).map((m) => m.parsed);
    expect(declined?.subject).toBe('Sam Cohen דחה/תה את "Services agreement"');
    expect(declined?.text).toContain('The amount is wrong');
    expect(declined?.text).toContain(envelope.envelopeId);
    expect(cancelled?.subject).toBe('"Services agreement" was cancelled');
    expect(cancelled?.text).toContain('Reason: Replaced');
  });

  it('sends nothing to a ManualLink recipient, and refuses a Cc invitation for good', async () => {
    const envelope = await fourRecipientEnvelope();
    const { sendNotification } = activities();
    const skipped = await sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.manual.id }),
    );
    expect(skipped).toMatchObject({ status: 'skipped' });
    expect(await harness.ctx.orm.em.fork().count(Notification, { id: skipped.notificationId })).toBe(0);
    const cc = await failureOf(
      sendNotification(request(envelope, { kind: 'invitation', recipientId: envelope.cc.id })),
    );
    expect(cc).toMatchObject({ type: 'InvalidNotification', nonRetryable: true });
  });

  it('treats a 4xx refusal as retryable and a 5xx refusal as final, recording every attempt without secrets', async () => {
    const envelope = await fourRecipientEnvelope();
    const { sendNotification } = activities();
    const asked = request(envelope, { kind: 'reminder', recipientId: envelope.english.id });
    const before = smtp.received.length;
    try {
      smtp.refuseRecipients({ code: 451, message: 'Mailbox busy, try again later' });
      const first = await failureOf(sendNotification(asked));
      expect(first.type).toBe('ProviderUnavailable');
      expect(first.nonRetryable).toBe(false);
      expect(first.message).toContain('451');
      const failed = await harness.ctx.orm.em
        .fork()
        .findOneOrFail(Notification, { id: asked.notificationId });
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 1,
        provider: 'smtp',
        to: 'sam@client.example',
      });
      expect(failed.lastError).toContain('Mailbox busy');
      expect(failed.lastError).not.toContain(SMTP_PASSWORD);
      expect(failed.sentAt ?? null).toBeNull();

      smtp.refuseRecipients({ code: 550, message: 'No such user here' });
      const final = await failureOf(
        sendNotification(request(envelope, { kind: 'reminder', recipientId: envelope.english.id })),
      );
      expect(final).toMatchObject({ type: 'ProviderRejected', nonRetryable: true });
      expect(final.message).toContain('550');
    } finally {
      smtp.refuseRecipients(null);
    }

    // The retry (same notification id) goes through, once; a further retry sends nothing again.
    const retried = await sendNotification(asked);
    expect(retried).toMatchObject({ status: 'sent', attempts: 2, alreadySent: false });
    const again = await sendNotification(asked);
    expect(again).toMatchObject({ status: 'sent', attempts: 2, alreadySent: true });
    await smtp.waitFor(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.received.length).toBe(before + 1);
    expect(mailTo('sam@client.example').subject).toBe(
      'Reminder: "Services agreement" is waiting for your signature',
    );
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: asked.notificationId });
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    expect(row.lastError).toContain('Mailbox busy');
  });

  it('fails, retryably, when the SMTP server cannot be reached', async () => {
    const envelope = await fourRecipientEnvelope();
    const unreachable: NotificationsConfig = {
      email: { transport: { url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:1` }, from: MAIL_FROM },
      twilio: null,
    };
    const asked = request(envelope, { kind: 'invitation', recipientId: envelope.english.id });
    const failure = await failureOf(activities({ notifications: unreachable }).sendNotification(asked));
    expect(failure).toMatchObject({ type: 'ProviderUnavailable', nonRetryable: false });
    expect(failure.message).not.toContain(SMTP_PASSWORD);
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: asked.notificationId });
    expect(row.lastError).not.toContain(SMTP_PASSWORD);
  });
});

describe('without an email provider', () => {
  it('captures the invitation in development and test, link included', async () => {
    const envelope = await fourRecipientEnvelope();
    const result = await activities({ notifications: { email: null, twilio: null } }).sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.hebrew.id }),
    );
    expect(result).toMatchObject({ status: 'sent', provider: 'dev-capture' });
    const listed = await harness.app.inject({
      method: 'GET',
      url: `/api/dev/notifications?kind=invitation&recipientId=${envelope.hebrew.id}`,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    // The envelope's own workflow invites the same recipient (captured too, at a time of its own): the capture
    // this call made is the one whose id the call answered.
    const providerMessageId = result.status === 'sent' ? result.providerMessageId : null;
    const captures: { id: string; subject: string; body: string; signingLink: string }[] =
      listed.json().notifications;
    const captured = captures.find((capture) => capture.id === providerMessageId);
    expect(captured, JSON.stringify(captures.map((capture) => capture.id))).toBeDefined();
    expect(captured).toMatchObject({ kind: 'invitation', channel: 'Email', to: 'dana@provider.example' });
    expect(captured?.subject).toBe('Acme Signing שלחו לך את "Services agreement" לחתימה');
    expect(captured?.body).toContain(captured?.signingLink);
  });

  it('fails for good in production, recording why', async () => {
    const envelope = await fourRecipientEnvelope(true, false);
    const asked = request(envelope, { kind: 'invitation', recipientId: envelope.english.id });
    const failure = await failureOf(
      activities({ env: 'production', notifications: { email: null, twilio: null } }).sendNotification(asked),
    );
    expect(failure).toMatchObject({ type: 'NoProvider', nonRetryable: true });
    expect(failure.message).toMatch(
      /No email provider is configured on this server: set SMTP_URL or SMTP_HOST/,
    );
    const em = harness.ctx.orm.em.fork();
    expect(await em.findOneOrFail(Notification, { id: asked.notificationId })).toMatchObject({
      status: 'failed',
      provider: 'none',
    });
    expect(await em.count(DevNotification, { recipientId: envelope.english.id })).toBe(0);
  });
});
