// One-time codes in the signer API, through the whole app: an OtpSms recipient sees a limited view and can do
// nothing until they verify a code read from the development capture (GET /api/dev/notifications); then
// every action needs the X-Signing-Session header. Wrong, expired and exhausted codes, the resend throttle,
// the audit events, the logs, and a production app (no capture route, no sending).
import { Writable } from 'node:stream';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { createLogger } from '../../config/logger.ts';
import { AuditEvent, DevNotification, OtpCode, SignerSession } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import {
  type ApiHarness,
  buildTestApp,
  type Integrator,
  newIntegrator,
  productionConfig,
  sentEnvelope,
} from '../support/api.ts';
import { openTestContext, type TestContext, testConfig } from '../support/context.ts';

let ctx: TestContext;
let app: FastifyInstance;
let acme: Integrator;
let headers: { authorization: string };
let templateId: string;
const logLines: string[] = [];

const SIGNER_IP = '203.0.113.44';
const SIGNER_AGENT = 'Mozilla/5.0 (Sigil OTP test)';
const PHONE = '+972501234567';
const MASKED = '+97250•••••67';

beforeAll(async () => {
  ctx = await openTestContext();
  // The app logs everything at trace level into memory, so the test can show codes never reach a log.
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  app = await buildApp({
    config: testConfig(),
    orm: ctx.orm,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: createLogger({ logLevel: 'trace' }, 'sigil-otp-test', sink),
  });
  const harness: ApiHarness = { app, ctx, close: async () => {} };
  acme = await newIntegrator(harness);
  headers = await acme.auth();
  const template = await createTemplate(ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(),
    filename: 'otp.pdf',
    definition: {
      name: 'OTP template',
      roles: [
        { name: 'Client', required: true },
        { name: 'Provider', required: true },
      ],
      fields: [
        {
          type: 'Full name',
          role: 'Client',
          label: 'Client name',
          page: 1,
          x: 40,
          y: 40,
          width: 150,
          height: 20,
          required: true,
        },
        {
          type: 'Full name',
          role: 'Provider',
          label: 'Provider name',
          page: 1,
          x: 300,
          y: 40,
          width: 150,
          height: 20,
          required: true,
        },
      ],
    },
    publish: true,
  });
  templateId = template.id;
});
afterAll(async () => {
  await app?.close();
  await ctx?.close();
});

/** The request of a Parallel envelope: the Client authenticates with a code (SMS unless told), the Provider does not. */
function otpAgreement(client: Record<string, unknown> = {}) {
  return {
    title: 'OTP agreement',
    workflowType: 'Parallel',
    templateId,
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        phone: PHONE,
        deliveryChannel: 'Sms',
        authenticationMethod: 'OtpSms',
        ...client,
      },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
    ],
  };
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, session?: string) {
  return app.inject({
    method,
    url,
    remoteAddress: SIGNER_IP,
    headers: { 'user-agent': SIGNER_AGENT, ...(session ? { 'x-signing-session': session } : {}) },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const view = (token: string, session?: string) => signer('GET', `/api/signing/${token}`, undefined, session);
const requestCode = (token: string) => signer('POST', `/api/signing/${token}/otp`);
const verify = (token: string, code: unknown) => signer('POST', `/api/signing/${token}/otp/verify`, { code });

/** The code last captured for the recipient, through the development route. */
async function capturedCode(recipientId: string): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/dev/notifications?recipientId=${recipientId}&kind=otp&limit=1`,
  });
  expect(response.statusCode, response.body).toBe(200);
  const [latest] = response.json().notifications;
  return latest.otpCode as string;
}

function otherThan(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

async function recipientStatus(envelopeId: string, recipientId: string): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${envelopeId}/recipients`,
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: string; status: string }[]).find((r) => r.id === recipientId)
    ?.status as string;
}

async function events(envelopeId: string, type: string) {
  return ctx.orm.em.fork().find(AuditEvent, { envelopeId, type }, { orderBy: { sequence: 'asc' } });
}

/** Moves the recipient's codes back in time, as if `seconds` had passed since they were sent. */
async function age(recipientId: string, seconds: number) {
  await ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      `update otp_code set created_at = created_at - make_interval(secs => ?) where recipient_id = ?`,
      [seconds, recipientId],
    );
}

describe('one-time codes', () => {
  it('lets an OTP recipient act only after verifying a code, with the session header', async () => {
    const envelope = await sentEnvelope(
      { app, ctx },
      { organizationId: acme.organizationId, headers },
      otpAgreement({ language: 'he' }),
    );
    const origin = { ip: SIGNER_IP, user_agent: SIGNER_AGENT };

    // Before verification: who and what, never the fields; the first open is still recorded.
    const limited = await view(envelope.tokenOf('Dana Levi'));
    expect(limited.statusCode, limited.body).toBe(200);
    expect(limited.json()).toMatchObject({
      state: 'ready',
      title: 'OTP agreement',
      recipient: { name: 'Dana Levi', status: 'LinkOpened', type: 'Signer', language: 'he' },
      authenticationRequired: true,
      authenticated: false,
      authenticationMethod: 'OtpSms',
      maskedPhone: MASKED,
      fields: [],
      awaitingCount: 0,
      requiredFields: [],
    });
    expect(await events(envelope.id, 'recipient.opened')).toHaveLength(1);
    const template = await app.inject({ method: 'GET', url: `/api/v1/templates/${templateId}`, headers });
    const nameField = (template.json().fields as { label: string; fieldDefinitionId: string }[]).find(
      (f) => f.label === 'Client name',
    )?.fieldDefinitionId as string;
    const values = { values: [{ fieldDefinitionId: nameField, value: 'Dana Levi' }] };
    for (const refused of [
      await signer('GET', `/${envelope.tokenOf('Dana Levi')}/document`),
      await signer('PUT', `/api/signing/${envelope.tokenOf('Dana Levi')}/fields`, values),
      await signer('POST', `/api/signing/${envelope.tokenOf('Dana Levi')}/complete`, { consent: true }),
      await signer('POST', `/api/signing/${envelope.tokenOf('Dana Levi')}/decline`, { reason: 'No' }),
    ]) {
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error.message).toMatch(/verify the one-time code first/);
    }
    expect((await verify(envelope.tokenOf('Dana Levi'), '123456')).statusCode).toBe(409); // no code requested yet

    // A code goes out (captured in development and test), in the recipient's language.
    const before = Date.now();
    const sent = await requestCode(envelope.tokenOf('Dana Levi'));
    expect(sent.statusCode, sent.body).toBe(200);
    const body = sent.json();
    expect(body).toMatchObject({ channel: 'Sms', sentTo: MASKED });
    expect(Date.parse(body.expiresAt) - before).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
    expect(Date.parse(body.expiresAt) - before).toBeLessThanOrEqual(10 * 60_000 + 5000);
    expect(Date.parse(body.resendAvailableAt) - before).toBeGreaterThanOrEqual(29_000);
    expect(Date.parse(body.resendAvailableAt) - before).toBeLessThanOrEqual(35_000);
    const byPhone = await app.inject({
      method: 'GET',
      url: `/api/dev/notifications?to=${encodeURIComponent(PHONE)}`,
    });
    const captured = (byPhone.json().notifications as Record<string, unknown>[]).find(
      (n) => n.recipientId === envelope.recipientIdOf('Dana Levi'),
    );
    expect(captured).toMatchObject({
      kind: 'otp',
      channel: 'Sms',
      to: PHONE,
      envelopeId: envelope.id,
      organizationId: acme.organizationId,
      signingLink: null,
    });
    const code = captured?.otpCode as string;
    expect(code).toMatch(/^\d{6}$/);
    expect(captured?.body).toContain(code);
    expect(captured?.body).toMatch(/[\u0590-\u05FF]/);
    // Only a hash is stored.
    const row = await ctx.orm.em
      .fork()
      .findOneOrFail(OtpCode, { recipientId: envelope.recipientIdOf('Dana Levi') });
    expect(row.codeHash).not.toContain(code);
    expect(row.codeHash).toMatch(/^[0-9a-f]{64}$/);

    const early = await requestCode(envelope.tokenOf('Dana Levi'));
    expect(early.statusCode).toBe(429);
    expect(early.json().error.code).toBe('rate_limited');
    expect(Number(early.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(early.headers['retry-after'])).toBeLessThanOrEqual(30);

    for (const malformed of ['12345', '1234567', 'abcdef', 123456]) {
      const response = await verify(envelope.tokenOf('Dana Levi'), malformed);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    const wrong = await verify(envelope.tokenOf('Dana Levi'), otherThan(code));
    expect(wrong.statusCode, wrong.body).toBe(400);
    expect(wrong.json().error.code).toBe('invalid_code');
    expect(wrong.json().error.message).toMatch(/4 attempts left/);
    expect(await recipientStatus(envelope.id, envelope.recipientIdOf('Dana Levi'))).toBe(
      'AuthenticationFailed',
    );

    const verified = await verify(envelope.tokenOf('Dana Levi'), code);
    expect(verified.statusCode, verified.body).toBe(200);
    const { sessionToken, expiresAt } = verified.json();
    expect(sessionToken).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(await recipientStatus(envelope.id, envelope.recipientIdOf('Dana Levi'))).toBe(
      'AuthenticationVerified',
    );
    const stored = await ctx.orm.em
      .fork()
      .findOneOrFail(SignerSession, { recipientId: envelope.recipientIdOf('Dana Levi') });
    expect(stored.tokenHash).not.toBe(sessionToken);
    // A code opens one session only.
    expect((await verify(envelope.tokenOf('Dana Levi'), code)).statusCode).toBe(409);

    // With the header, everything; without it (or with a wrong one) still nothing.
    const full = await view(envelope.tokenOf('Dana Levi'), sessionToken);
    expect(full.json()).toMatchObject({
      authenticationRequired: true,
      authenticated: true,
      awaitingCount: 1,
    });
    expect(full.json().fields.map((f: { label: string }) => f.label)).toEqual(['Client name']);
    expect((await view(envelope.tokenOf('Dana Levi'), 'A'.repeat(43))).json()).toMatchObject({
      authenticated: false,
      fields: [],
    });
    expect(
      (await signer('PUT', `/api/signing/${envelope.tokenOf('Dana Levi')}/fields`, values)).statusCode,
    ).toBe(403);
    const document = await signer(
      'GET',
      `/${envelope.tokenOf('Dana Levi')}/document`,
      undefined,
      sessionToken,
    );
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-type']).toBe('application/pdf');
    expect(await recipientStatus(envelope.id, envelope.recipientIdOf('Dana Levi'))).toBe('Viewed');
    const saved = await signer(
      'PUT',
      `/api/signing/${envelope.tokenOf('Dana Levi')}/fields`,
      values,
      sessionToken,
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().awaitingCount).toBe(0);
    expect(await recipientStatus(envelope.id, envelope.recipientIdOf('Dana Levi'))).toBe('InProgress');
    const anonymous = await signer('POST', `/api/signing/${envelope.tokenOf('Dana Levi')}/complete`, {
      consent: true,
    });
    expect(anonymous.statusCode).toBe(403);
    const done = await signer(
      'POST',
      `/api/signing/${envelope.tokenOf('Dana Levi')}/complete`,
      { consent: true },
      sessionToken,
    );
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ state: 'completed', envelopeStatus: 'InProgress' });

    const requested = await events(envelope.id, 'recipient.authentication_requested');
    expect(requested).toHaveLength(1);
    expect(requested[0]?.data).toMatchObject({ channel: 'Sms', ...origin });
    const failed = await events(envelope.id, 'recipient.authentication_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data).toMatchObject({ reason: 'wrong_code', ...origin });
    const verifiedEvents = await events(envelope.id, 'recipient.authentication_verified');
    expect(verifiedEvents).toHaveLength(1);
    expect(verifiedEvents[0]?.data).toMatchObject(origin);
    for (const type of ['recipient.viewed', 'recipient.started', 'recipient.completed']) {
      expect(await events(envelope.id, type), type).toHaveLength(1);
    }

    // Neither the code nor the session token reached a log line.
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toMatch(new RegExp(`(?<!\\d)${code}(?!\\d)`));
    expect(logs).not.toContain(sessionToken);
  });

  it('answers code_expired for a code past its lifetime, and a new code supersedes the old one', async () => {
    const envelope = await sentEnvelope(
      { app, ctx },
      { organizationId: acme.organizationId, headers },
      otpAgreement({ authenticationMethod: 'OtpWhatsApp', deliveryChannel: 'WhatsApp' }),
    );
    expect((await requestCode(envelope.tokenOf('Dana Levi'))).json()).toMatchObject({
      channel: 'WhatsApp',
      sentTo: MASKED,
    });
    const first = await capturedCode(envelope.recipientIdOf('Dana Levi'));
    const notification = await ctx.orm.em
      .fork()
      .findOneOrFail(DevNotification, { recipientId: envelope.recipientIdOf('Dana Levi'), kind: 'otp' });
    expect(notification.channel).toBe('WhatsApp');
    expect(notification.body).toMatch(/verification code is \d{6}/); // the organization's default: English

    await ctx.orm.em
      .fork()
      .nativeUpdate(
        OtpCode,
        { recipientId: envelope.recipientIdOf('Dana Levi') },
        { expiresAt: new Date(Date.now() - 1000) },
      );
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const expired = await verify(envelope.tokenOf('Dana Levi'), first);
      expect(expired.statusCode, expired.body).toBe(400);
      expect(expired.json().error.code).toBe('code_expired');
    }
    const failed = await events(envelope.id, 'recipient.authentication_failed');
    expect(failed.map((e) => e.data.reason)).toEqual(['expired']);
    expect(await recipientStatus(envelope.id, envelope.recipientIdOf('Dana Levi'))).toBe(
      'AuthenticationFailed',
    );

    await age(envelope.recipientIdOf('Dana Levi'), 31);
    expect((await requestCode(envelope.tokenOf('Dana Levi'))).statusCode).toBe(200);
    const second = await capturedCode(envelope.recipientIdOf('Dana Levi'));
    if (second !== first) {
      const old = await verify(envelope.tokenOf('Dana Levi'), first);
      expect(old.json().error.code).toBe('invalid_code');
    }
    expect((await verify(envelope.tokenOf('Dana Levi'), second)).statusCode).toBe(200);
  });

  it('kills a code after 5 wrong attempts, and allows 5 codes per hour', async () => {
    const envelope = await sentEnvelope(
      { app, ctx },
      { organizationId: acme.organizationId, headers },
      otpAgreement(),
    );
    expect((await requestCode(envelope.tokenOf('Dana Levi'))).statusCode).toBe(200);
    const code = await capturedCode(envelope.recipientIdOf('Dana Levi'));
    const wrong = otherThan(code);
    for (const left of [4, 3, 2, 1]) {
      const response = await verify(envelope.tokenOf('Dana Levi'), wrong);
      expect(response.json().error).toMatchObject({ code: 'invalid_code' });
      expect(response.json().error.message).toContain(`${left} attempt`);
    }
    const fifth = await verify(envelope.tokenOf('Dana Levi'), wrong);
    expect(fifth.statusCode).toBe(400);
    expect(fifth.json().error.code).toBe('too_many_attempts');
    // Dead: even the right code no longer works.
    expect((await verify(envelope.tokenOf('Dana Levi'), code)).json().error.code).toBe('too_many_attempts');
    const reasons = (await events(envelope.id, 'recipient.authentication_failed')).map((e) => e.data.reason);
    expect(reasons).toEqual(['wrong_code', 'wrong_code', 'wrong_code', 'wrong_code', 'too_many_attempts']);

    // Codes 2 to 5, each after the resend interval; the sixth within the hour is refused until the first
    // leaves the window.
    for (let sent = 2; sent <= 5; sent += 1) {
      await age(envelope.recipientIdOf('Dana Levi'), 31);
      const response = await requestCode(envelope.tokenOf('Dana Levi'));
      expect(response.statusCode, `code ${sent}: ${response.body}`).toBe(200);
    }
    await age(envelope.recipientIdOf('Dana Levi'), 31);
    const sixth = await requestCode(envelope.tokenOf('Dana Levi'));
    expect(sixth.statusCode).toBe(429);
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3600 - 5 * 31 - 10);
    expect(retryAfter).toBeLessThanOrEqual(3600 - 5 * 31 + 1);
    // The latest code still verifies.
    expect(
      (await verify(envelope.tokenOf('Dana Levi'), await capturedCode(envelope.recipientIdOf('Dana Levi'))))
        .statusCode,
    ).toBe(200);
  });

  it('refuses codes for a recipient who does not use them', async () => {
    const envelope = await sentEnvelope(
      { app, ctx },
      { organizationId: acme.organizationId, headers },
      otpAgreement({
        authenticationMethod: 'SecureLink',
        deliveryChannel: 'ManualLink',
      }),
    );
    const body = (await view(envelope.tokenOf('Dana Levi'))).json();
    expect(body).toMatchObject({
      authenticationRequired: false,
      authenticated: true,
      authenticationMethod: 'SecureLink',
      maskedPhone: null,
    });
    expect(body.fields).toHaveLength(1);
    const refused = await requestCode(envelope.tokenOf('Dana Levi'));
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/does not use one-time codes/);
    expect((await verify(envelope.tokenOf('Dana Levi'), '123456')).statusCode).toBe(409);
  });
});

describe('in production', () => {
  it('serves no development route and sends no code', async () => {
    const production = await buildTestApp(
      ctx,
      productionConfig({ TOKEN_RATE_LIMIT_PER_MINUTE: '1000000', SIGNING_RATE_LIMIT_PER_MINUTE: '1000000' }),
    );
    try {
      const dev = await production.inject({ method: 'GET', url: '/api/dev/notifications' });
      expect(dev.statusCode).toBe(404);
      const envelope = await sentEnvelope(
        { app, ctx },
        { organizationId: acme.organizationId, headers },
        otpAgreement(),
      );
      const refused = await production.inject({
        method: 'POST',
        url: `/api/signing/${envelope.tokenOf('Dana Levi')}/otp`,
      });
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.json().error.message).toMatch(/no SMS provider/);
      expect(
        await ctx.orm.em.fork().count(OtpCode, { recipientId: envelope.recipientIdOf('Dana Levi') }),
      ).toBe(0);
      expect(
        await ctx.orm.em
          .fork()
          .count(DevNotification, { recipientId: envelope.recipientIdOf('Dana Levi'), kind: 'otp' }),
      ).toBe(0);
    } finally {
      await production.close();
    }
  });
});
