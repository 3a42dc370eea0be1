// The backoffice's notification providers (docs/backoffice.md, "Providers"): SMTP, SMS and WhatsApp settings
// stored in PostgreSQL with the secret encrypted and never answered, winning over the environment's and applied
// to the next message without a restart (real SMTP servers and a Twilio stand-in receive them), test sends with
// the provider's answer, refusals of bad input that change nothing, and the audit log. On a database of its own:
// saved providers apply to every message of the platform, and the other files run next to this one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import { BackofficeAuditEvent, NotificationProviderSetting } from '../../db/entities/index.ts';
import { asUser, callAs } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { draftTwoSignerEnvelope, TEST_ENCRYPTION_KEY, testConfig } from '../support/context.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';
import { startTwilioStandIn, type TwilioStandIn } from '../support/twilio-stand-in.ts';

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const FIRST = { user: 'first-user', password: 'first-Secret-pa55' };
const SECOND = { user: 'second-user', password: 'second-Secret-pa55' };

let harness: Awaited<ReturnType<typeof openIsolatedHarness>>;
let admin: SignedInAdmin;
let first: SmtpSink;
let second: SmtpSink;
let twilio: TwilioStandIn;

beforeAll(async () => {
  // The environment has an SMTP server of its own (the first sink with other credentials would refuse), so
  // the stored settings must win over it.
  [first, second, twilio] = await Promise.all([
    startSmtpSink(FIRST),
    startSmtpSink(SECOND),
    startTwilioStandIn(),
  ]);
  harness = await openIsolatedHarness(
    testConfig({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(first.port), MAIL_FROM: 'env@sigil.example' }),
  );
  admin = await signedInAdmin(harness, 'providers');
});
afterAll(async () => {
  await harness?.close();
  await Promise.all([first?.close(), second?.close(), twilio?.close()]);
});

const rows = () =>
  harness.ctx.orm.em.fork().find(NotificationProviderSetting, {}, { orderBy: { kind: 'asc' } });

const smtpBody = (port: number, credentials: { user: string; password?: string | null }) => ({
  host: '127.0.0.1',
  port,
  secure: false,
  user: credentials.user,
  ...(credentials.password === undefined ? {} : { password: credentials.password }),
  from: 'backoffice@sigil.example',
});

describe('SMTP in the backoffice', () => {
  it('shows the environment’s server until one is saved, never a password', async () => {
    const shown = await callAs(harness.app, admin, 'GET', '/api/backoffice/smtp');
    expect(shown).toMatchObject({
      source: 'environment',
      host: '127.0.0.1',
      port: first.port,
      from: 'env@sigil.example',
      passwordSet: false,
    });
    // Without a session: 401.
    const anonymous = await harness.app.inject({ method: 'GET', url: '/api/backoffice/smtp' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses bad settings naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...smtpBody(25, FIRST), host: 'smtp example.com' }, 'host'],
      [{ ...smtpBody(25, FIRST), port: 70_000 }, 'port'],
      [{ ...smtpBody(25, FIRST), port: 'twenty-five' }, 'port'],
      [{ ...smtpBody(25, FIRST), from: 'not an address' }, 'from'],
      [{ ...smtpBody(25, FIRST), password: '' }, 'password'],
      [{ ...smtpBody(25, FIRST), password: 'a\u0000b' }, 'password'],
      [{ ...smtpBody(25, FIRST), password: 'a\uD800b' }, 'password'],
      [{ ...smtpBody(25, FIRST), user: 'line\nbreak' }, 'user'],
      [{ ...smtpBody(25, FIRST), user: 'a\u0000b' }, 'user'],
      [{ ...smtpBody(25, FIRST), host: 'smtp\u0000.example.com' }, 'host'],
      [{ ...smtpBody(25, FIRST), secure: 'yes' }, 'secure'],
      [{ ...smtpBody(25, FIRST), extra: 1 }, ''],
    ];
    for (const [body, field] of cases) {
      const response = await asUser(harness.app, admin, 'PUT', '/api/backoffice/smtp', body);
      expect(response.statusCode, response.body).toBe(400);
      const error = response.json().error;
      expect(error.code).toBe('invalid_request');
      if (field) expect(error.details.map((d: { field: string }) => d.field)).toContain(`body.${field}`);
    }
    expect(await rows()).toEqual([]);
  });

  it('stores the server with its password encrypted, sends the test through it, and the next message too', async () => {
    const saved = await callAs(
      harness.app,
      admin,
      'PUT',
      '/api/backoffice/smtp',
      smtpBody(first.port, FIRST),
    );
    expect(saved).toMatchObject({
      source: 'database',
      port: first.port,
      user: FIRST.user,
      passwordSet: true,
    });
    expect(JSON.stringify(saved)).not.toContain(FIRST.password);
    const [row] = await rows();
    expect(row?.secretEncrypted).toBeTruthy();
    expect(row?.secretEncrypted).not.toContain(FIRST.password);
    expect(JSON.stringify(row?.settings)).not.toContain(FIRST.password);
    expect(decryptSecret(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'), row?.secretEncrypted as string)).toBe(
      FIRST.password,
    );

    const before = first.received.length;
    const tested = await callAs(harness.app, admin, 'POST', '/api/backoffice/smtp/test', {
      to: 'ops@customer.example',
    });
    expect(tested).toMatchObject({ sent: true, provider: 'smtp', source: 'database' });
    expect(tested.answer).toMatch(/^250/);
    const [mail] = (await first.waitFor(before + 1)).slice(before);
    expect(mail?.user).toBe(FIRST.user);
    expect(mail?.envelopeTo).toEqual(['ops@customer.example']);
    expect(mail?.parsed.from?.value[0]?.address).toBe('backoffice@sigil.example');
    expect(mail?.parsed.subject).toBe('Sigil: a test message');

    // Another server, the password left out (kept): the next test send and the next invitation the worker's
    // activity sends go there, with nothing restarted.
    const moved = await callAs(harness.app, admin, 'PUT', '/api/backoffice/smtp', {
      ...smtpBody(second.port, { user: SECOND.user }),
    });
    expect(moved).toMatchObject({ port: second.port, passwordSet: true });
    // The kept password is the first server's: the second refuses it, and the test says why.
    const refused = await callAs(harness.app, admin, 'POST', '/api/backoffice/smtp/test', {
      to: 'ops@customer.example',
    });
    expect(refused).toMatchObject({ sent: false, provider: 'smtp', source: 'database' });
    expect(refused.answer).toMatch(/535|Invalid username or password/);
    expect(refused.answer).not.toContain(FIRST.password);

    await callAs(harness.app, admin, 'PUT', '/api/backoffice/smtp', smtpBody(second.port, SECOND));
    const draft = await draftTwoSignerEnvelope(harness.ctx, {
      title: 'Provider switch',
      recipients: [
        { roleName: 'Client', fullName: 'Sam Cohen', email: 'sam@client.example' },
        { roleName: 'Provider', fullName: 'Noa Bar', email: 'noa@provider.example' },
      ],
    });
    const { sendNotification } = createNotificationActivities({
      orm: harness.ctx.orm,
      config: {
        env: 'test',
        publicBaseUrl: 'https://sign.sigil.example',
        secretsEncryptionKey: TEST_ENCRYPTION_KEY,
      },
    });
    const secondBefore = second.received.length;
    const firstBefore = first.received.length;
    const result = await sendNotification({
      notificationId: randomUUID(),
      organizationId: draft.organizationId,
      envelopeId: draft.envelopeId,
      kind: 'invitation',
      recipientId: draft.recipients[0]?.id as string,
    });
    expect(result).toMatchObject({ status: 'sent', provider: 'smtp' });
    const [invitation] = (await second.waitFor(secondBefore + 1)).slice(secondBefore);
    expect(invitation?.user).toBe(SECOND.user);
    expect(invitation?.parsed.subject).toContain('Provider switch');
    expect(first.received.length).toBe(firstBefore);
  });

  it('removes the password with null', async () => {
    const cleared = await callAs(
      harness.app,
      admin,
      'PUT',
      '/api/backoffice/smtp',
      smtpBody(second.port, { user: SECOND.user, password: null }),
    );
    expect(cleared.passwordSet).toBe(false);
    expect((await rows()).find((row) => row.kind === 'smtp')?.secretEncrypted).toBeNull();
  });
});

describe('SMS and WhatsApp in the backoffice', () => {
  it('shows no provider until one is saved, then sends test messages through each with Twilio’s answer', async () => {
    expect(await callAs(harness.app, admin, 'GET', '/api/backoffice/sms')).toMatchObject({
      source: 'none',
      authTokenSet: false,
    });
    const token = 'twilio-auth-token-0123456789';
    const sms = await callAs(harness.app, admin, 'PUT', '/api/backoffice/sms', {
      accountSid: ACCOUNT_SID,
      authToken: token,
      from: '+15005550006',
      apiBaseUrl: twilio.baseUrl,
    });
    expect(sms).toMatchObject({ source: 'database', accountSid: ACCOUNT_SID, authTokenSet: true });
    expect(JSON.stringify(sms)).not.toContain(token);
    const whatsapp = await callAs(harness.app, admin, 'PUT', '/api/backoffice/whatsapp', {
      accountSid: ACCOUNT_SID,
      authToken: token,
      from: '+14155238886',
      apiBaseUrl: twilio.baseUrl,
    });
    expect(whatsapp).toMatchObject({ source: 'database', from: '+14155238886' });

    const before = twilio.requests.length;
    const smsTest = await callAs(harness.app, admin, 'POST', '/api/backoffice/sms/test', {
      to: '+972501234567',
    });
    expect(smsTest).toMatchObject({ sent: true, provider: 'twilio', source: 'database' });
    expect(smsTest.providerMessageId).toMatch(/^SM/);
    const whatsappTest = await callAs(harness.app, admin, 'POST', '/api/backoffice/whatsapp/test', {
      to: '+972501234567',
    });
    expect(whatsappTest).toMatchObject({ sent: true, provider: 'twilio' });
    const [smsRequest, whatsappRequest] = twilio.requests.slice(before);
    expect(smsRequest?.form).toMatchObject({ To: '+972501234567', From: '+15005550006' });
    expect(whatsappRequest?.form).toMatchObject({
      To: 'whatsapp:+972501234567',
      From: 'whatsapp:+14155238886',
    });
    expect(smsRequest?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${ACCOUNT_SID}:${token}`).toString('base64')}`,
    );
  });

  it('refuses a malformed account, sender or number naming the field', async () => {
    const stored = JSON.stringify(await rows());
    for (const [url, body, field] of [
      ['/api/backoffice/sms', { accountSid: 'AC123', from: '+15005550006' }, 'accountSid'],
      ['/api/backoffice/sms', { accountSid: ACCOUNT_SID, from: '050-1234567' }, 'from'],
      ['/api/backoffice/whatsapp', { accountSid: ACCOUNT_SID, from: `MG${'0'.repeat(32)}` }, 'from'],
      [
        '/api/backoffice/sms',
        { accountSid: ACCOUNT_SID, from: '+15005550006', apiBaseUrl: 'ftp://x' },
        'apiBaseUrl',
      ],
      ['/api/backoffice/sms/test', { to: '0501234567' }, 'to'],
      ['/api/backoffice/smtp/test', { to: 'nobody' }, 'to'],
      ['/api/backoffice/smtp/test', { to: 'a\u0000@example.com' }, 'to'],
      ['/api/backoffice/whatsapp/test', { to: '+97250\u00001234567' }, 'to'],
      [
        '/api/backoffice/sms',
        { accountSid: ACCOUNT_SID, authToken: 'a\uDC00', from: '+15005550006' },
        'authToken',
      ],
    ] as const) {
      const response = await asUser(harness.app, admin, url.endsWith('/test') ? 'POST' : 'PUT', url, body);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.details.map((d: { field: string }) => d.field)).toContain(`body.${field}`);
    }
    expect(JSON.stringify(await rows())).toBe(stored);
  });

  it('records every change and test send in the audit log, never a secret', async () => {
    const events = await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { action: { $like: 'provider.%' } }, { orderBy: { occurredAt: 'asc' } });
    const actions = events.map((event) => event.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'provider.smtp.updated',
        'provider.smtp.tested',
        'provider.sms.updated',
        'provider.sms.tested',
        'provider.whatsapp.updated',
        'provider.whatsapp.tested',
      ]),
    );
    expect(events.every((event) => event.actorEmail === admin.admin.email)).toBe(true);
    const text = JSON.stringify(events.map((event) => event.details));
    for (const secret of [FIRST.password, SECOND.password, 'twilio-auth-token-0123456789']) {
      expect(text).not.toContain(secret);
    }
    expect(events.find((event) => event.action === 'provider.smtp.updated')?.details).toMatchObject({
      secret: 'replaced',
    });
  });
});
