// SMS and WhatsApp through the twilio library against a local HTTP server standing in for Twilio's REST API:
// the exact request Twilio expects (POST /2010-04-01/Accounts/<sid>/Messages.json, Basic auth sid:token,
// form fields To/From/Body, `whatsapp:` addresses), the recorded notification, failures that Temporal
// retries (500) or gives up on at once (400), and one-time codes sent through Twilio by the signer API. Status
// callbacks signed with twilio's own helper: `delivered` recorded, `undelivered`/`failed` making the recipient
// (and the envelope, when nobody in turn is reachable) DeliveryFailed once; forged ones refused with 403.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import type { TwilioSettings } from '../../config/config.ts';
import {
  AuditEvent,
  DevNotification,
  Envelope,
  Notification,
  OtpCode,
  Recipient,
} from '../../db/entities/index.ts';
import type {
  SendNotificationRequest,
  SendNotificationResult,
} from '../../workflows/notification-contracts.ts';
import { type ApiHarness, newIntegrator, openApiHarness, sentEnvelope } from '../support/api.ts';
import { testConfig } from '../support/context.ts';
import {
  startTwilioStandIn,
  TWILIO_INVALID_NUMBER,
  TWILIO_SERVER_ERROR,
  type TwilioStandIn,
} from '../support/twilio-stand-in.ts';

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'twilio-auth-token-never-logged-42';
const SMS_FROM = '+15005550006';
const WHATSAPP_FROM = '+14155238886';
const PUBLIC_BASE_URL = 'https://sign.sigil.example';
const MESSAGES_PATH = `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`;
const BASIC = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
const HEBREW = /[\u0590-\u05FF]/;

let twilio: TwilioStandIn;
let settings: TwilioSettings;
let harness: ApiHarness;

beforeAll(async () => {
  twilio = await startTwilioStandIn();
  settings = {
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    smsFrom: SMS_FROM,
    whatsappFrom: WHATSAPP_FROM,
    apiBaseUrl: twilio.baseUrl,
  };
  // The app sends one-time codes through the stand-in.
  harness = await openApiHarness({ ...testConfig(), notifications: { email: null, twilio: settings } });
});
afterAll(async () => {
  await harness?.close();
  await twilio?.close();
});

function activities() {
  return createNotificationActivities({
    orm: harness.ctx.orm,
    config: { env: 'test', publicBaseUrl: PUBLIC_BASE_URL, notifications: { email: null, twilio: settings } },
  });
}

const SMS_RECIPIENT = 'דנה לוי';
const WHATSAPP_RECIPIENT = 'Sam Cohen';

/** A sent Parallel envelope: a Hebrew SMS recipient who verifies by SMS, and an English WhatsApp recipient. */
async function smsAndWhatsAppEnvelope() {
  const integrator = await newIntegrator(harness);
  const envelope = await sentEnvelope(
    harness,
    { organizationId: integrator.organizationId, headers: await integrator.auth() },
    {
      title: 'Services agreement',
      workflowType: 'Parallel',
      templateId: integrator.templateId,
      recipients: [
        {
          roleName: 'Client',
          fullName: SMS_RECIPIENT,
          phone: '+972501234567',
          deliveryChannel: 'Sms',
          authenticationMethod: 'OtpSms',
          language: 'he',
        },
        {
          roleName: 'Provider',
          fullName: WHATSAPP_RECIPIENT,
          phone: '+447700900123',
          deliveryChannel: 'WhatsApp',
          authenticationMethod: 'OtpWhatsApp',
        },
      ],
    },
  );
  return {
    organizationId: envelope.organizationId,
    envelopeId: envelope.id,
    sms: { id: envelope.recipientIdOf(SMS_RECIPIENT) },
    whatsapp: { id: envelope.recipientIdOf(WHATSAPP_RECIPIENT) },
    smsToken: envelope.tokenOf(SMS_RECIPIENT),
    whatsappToken: envelope.tokenOf(WHATSAPP_RECIPIENT),
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

/**
 * The request Twilio got; a message of the workflow's (`notificationId` given) carries its StatusCallback under
 * the public base URL, a one-time code none.
 */
function expectTwilioRequest(index: number, form: { To: string; From: string }, notificationId?: string) {
  const seen = twilio.requests[index];
  if (!seen) throw new Error(`no request ${index} reached the stand-in`);
  expect(seen.method).toBe('POST');
  expect(seen.path).toBe(MESSAGES_PATH);
  expect(seen.headers.authorization).toBe(BASIC);
  expect(seen.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  if (notificationId) {
    expect(Object.keys(seen.form).sort()).toEqual(['Body', 'From', 'StatusCallback', 'To']);
    expect(seen.form.StatusCallback).toBe(`${PUBLIC_BASE_URL}/api/callbacks/twilio/status/${notificationId}`);
  } else {
    expect(Object.keys(seen.form).sort()).toEqual(['Body', 'From', 'To']);
  }
  expect(seen.form).toMatchObject(form);
  return seen.form.Body as string;
}

describe('SMS and WhatsApp through Twilio', () => {
  it('sends an SMS invitation as Twilio expects it, and records the message SID', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    const before = twilio.requests.length;
    const result = await activities().sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.sms.id }),
    );
    expect(twilio.requests.length).toBe(before + 1);
    const body = expectTwilioRequest(before, { To: '+972501234567', From: SMS_FROM }, result.notificationId);
    expect(body).toMatch(HEBREW);
    const link = body.match(/https:\/\/sign\.sigil\.example\/sign\/[A-Za-z0-9_-]{43}/)?.[0];
    expect(link).toBeDefined();
    expect(body).toContain('"Services agreement"');

    expect(result).toMatchObject({ status: 'sent', channel: 'Sms', provider: 'twilio', attempts: 1 });
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: result.notificationId });
    expect(row).toMatchObject({
      status: 'sent',
      provider: 'twilio',
      channel: 'Sms',
      kind: 'invitation',
      to: '+972501234567',
      language: 'he',
      attempts: 1,
    });
    expect(row.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
    // The link opens the signer API.
    const token = (link as string).split('/sign/')[1];
    const view = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
    expect(view.statusCode, view.body).toBe(200);
  });

  it('sends WhatsApp messages from and to whatsapp: addresses', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    const before = twilio.requests.length;
    const result = await activities().sendNotification(
      request(envelope, { kind: 'reminder', recipientId: envelope.whatsapp.id }),
    );
    const body = expectTwilioRequest(
      before,
      { To: 'whatsapp:+447700900123', From: `whatsapp:${WHATSAPP_FROM}` },
      result.notificationId,
    );
    expect(body).toMatch(/^Reminder from .+: "Services agreement" is waiting for your signature: https:\/\//);
    expect(result).toMatchObject({ status: 'sent', channel: 'WhatsApp', provider: 'twilio' });
  });

  it('treats a 500 as retryable and a 400 as final, recording each without the auth token', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    const { sendNotification } = activities();
    twilio.answerNext(TWILIO_SERVER_ERROR);
    const asked = request(envelope, { kind: 'invitation', recipientId: envelope.sms.id });
    const failure = await sendNotification(asked).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ProviderUnavailable', nonRetryable: false });
    expect((failure as Error).message).toContain('HTTP 500');
    expect((failure as Error).message).not.toContain(AUTH_TOKEN);
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: asked.notificationId });
    expect(row).toMatchObject({ status: 'failed', attempts: 1, provider: 'twilio' });
    expect(row.lastError).toContain('20500');
    expect(row.lastError).not.toContain(AUTH_TOKEN);

    twilio.answerNext(TWILIO_INVALID_NUMBER);
    const rejected = await sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.sms.id }),
    ).catch((error: unknown) => error);
    expect(rejected).toMatchObject({ type: 'ProviderRejected', nonRetryable: true });
    expect((rejected as Error).message).toContain('21211');
  });
});

describe('Temporal retries', () => {
  let bundle: Awaited<ReturnType<typeof bundleWorkflowCode>>;
  let connection: NativeConnection;

  beforeAll(async () => {
    // The failures below are expected: the SDK's warnings about them would only clutter the output.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    bundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../fixtures/workflows/notify.ts', import.meta.url)),
      logger: new DefaultLogger('WARN'),
    });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection?.close();
  });

  async function notify(
    asked: SendNotificationRequest,
    maximumAttempts: number,
  ): Promise<SendNotificationResult> {
    const taskQueue = `notifications-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: inject('namespace'),
      taskQueue,
      workflowBundle: { code: bundle.code },
      activities: activities(),
    });
    return worker.runUntil(
      harness.ctx.temporal.workflow.execute('notifyWorkflow', {
        taskQueue,
        workflowId: `notify/${asked.notificationId}`,
        args: [asked, maximumAttempts],
      }),
    );
  }

  it('retries a failing provider until it answers, sending the message once', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    const before = twilio.requests.length;
    twilio.answerNext(TWILIO_SERVER_ERROR, TWILIO_SERVER_ERROR);
    const asked = request(envelope, { kind: 'invitation', recipientId: envelope.sms.id });
    const result = await notify(asked, 5);
    expect(result).toMatchObject({ status: 'sent', attempts: 3, alreadySent: false });
    expect(twilio.requests.length).toBe(before + 3);
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: asked.notificationId });
    expect(row).toMatchObject({ status: 'sent', attempts: 3 });
  });

  it('gives up after the last attempt, and at once on a final refusal', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    twilio.answerNext(TWILIO_SERVER_ERROR, TWILIO_SERVER_ERROR, TWILIO_SERVER_ERROR);
    const exhausted = request(envelope, { kind: 'invitation', recipientId: envelope.sms.id });
    const error = await notify(exhausted, 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const activityFailure = (error as WorkflowFailedError).cause;
    expect(activityFailure).toBeInstanceOf(ActivityFailure);
    expect(activityFailure?.cause).toMatchObject({ type: 'ProviderUnavailable' });
    const em = harness.ctx.orm.em.fork();
    expect(await em.findOneOrFail(Notification, { id: exhausted.notificationId })).toMatchObject({
      status: 'failed',
      attempts: 3,
    });

    const before = twilio.requests.length;
    twilio.answerNext(TWILIO_INVALID_NUMBER);
    const refused = request(envelope, { kind: 'invitation', recipientId: envelope.sms.id });
    const final = await notify(refused, 3).catch((e: unknown) => e);
    expect((final as WorkflowFailedError).cause?.cause).toMatchObject({ type: 'ProviderRejected' });
    expect(twilio.requests.length).toBe(before + 1);
    expect(await em.fork().findOneOrFail(Notification, { id: refused.notificationId })).toMatchObject({
      status: 'failed',
      attempts: 1,
    });
  });
});

describe('one-time codes through Twilio', () => {
  it('sends the code by SMS and WhatsApp through Twilio, never to the capture, and the code verifies', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    const before = twilio.requests.length;
    const sent = await harness.app.inject({ method: 'POST', url: `/api/signing/${envelope.smsToken}/otp` });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({ channel: 'Sms', sentTo: '+97250•••••67' });
    const body = expectTwilioRequest(before, { To: '+972501234567', From: SMS_FROM });
    expect(body).toMatch(HEBREW);
    const code = body.match(/\b\d{6}\b/)?.[0] as string;
    expect(code).toBeDefined();

    const verified = await harness.app.inject({
      method: 'POST',
      url: `/api/signing/${envelope.smsToken}/otp/verify`,
      payload: { code },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().sessionToken).toBeTypeOf('string');

    const whatsapp = await harness.app.inject({
      method: 'POST',
      url: `/api/signing/${envelope.whatsappToken}/otp`,
    });
    expect(whatsapp.statusCode, whatsapp.body).toBe(200);
    expectTwilioRequest(before + 1, { To: 'whatsapp:+447700900123', From: `whatsapp:${WHATSAPP_FROM}` });

    const em = harness.ctx.orm.em.fork();
    expect(await em.count(DevNotification, { envelopeId: envelope.envelopeId, kind: 'otp' })).toBe(0);
    const rows = await em.find(
      Notification,
      { envelopeId: envelope.envelopeId, kind: 'otp' },
      { orderBy: { createdAt: 'asc' } },
    );
    expect(rows.map((r) => [r.channel, r.provider, r.status])).toEqual([
      ['Sms', 'twilio', 'sent'],
      ['WhatsApp', 'twilio', 'sent'],
    ]);
    // The record shares the code's id.
    const codes = await em.find(OtpCode, { recipientId: envelope.sms.id });
    expect(codes.map((c) => c.id)).toEqual([rows[0]?.id]);
  });

  it('answers 503 when Twilio fails, forgets the code, and lets the recipient ask again at once', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    twilio.answerNext(TWILIO_SERVER_ERROR);
    const failed = await harness.app.inject({ method: 'POST', url: `/api/signing/${envelope.smsToken}/otp` });
    expect(failed.statusCode, failed.body).toBe(503);
    expect(failed.json().error.message).toMatch(/could not be sent by SMS/);
    expect(failed.body).not.toContain(AUTH_TOKEN);
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(OtpCode, { recipientId: envelope.sms.id })).toBe(0);
    expect(await em.findOneOrFail(Notification, { recipientId: envelope.sms.id, kind: 'otp' })).toMatchObject(
      {
        status: 'failed',
        provider: 'twilio',
      },
    );

    const retried = await harness.app.inject({
      method: 'POST',
      url: `/api/signing/${envelope.smsToken}/otp`,
    });
    expect(retried.statusCode, retried.body).toBe(200);

    twilio.answerNext(TWILIO_INVALID_NUMBER);
    const refused = await harness.app.inject({
      method: 'POST',
      url: `/api/signing/${envelope.whatsappToken}/otp`,
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.details).toEqual([{ field: 'phone', message: 'refused by the provider' }]);
  });
});

describe('Twilio status callbacks', () => {
  const APP_BASE_URL = 'http://localhost:3000';

  /** An SMS invitation sent through the stand-in, its row and the callback's URL as the app sees it. */
  async function sentSms() {
    const envelope = await smsAndWhatsAppEnvelope();
    const result = await activities().sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.sms.id }),
    );
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: result.notificationId });
    // The envelope's workflow sends its own invitations meanwhile: wait until both recipients have theirs, so
    // a test comparing the envelope's state before and after a callback sees only the callback's effect.
    await expect
      .poll(async () => Object.values((await stateOf(envelope.envelopeId)).recipients), { timeout: 30_000 })
      .toEqual(['InvitationSent', 'InvitationSent']);
    const path = `/api/callbacks/twilio/status/${row.id}`;
    return { envelope, row, path, sid: row.providerMessageId as string };
  }

  function form(sid: string, status: string, extra: Record<string, string> = {}) {
    return {
      AccountSid: ACCOUNT_SID,
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: status,
      SmsStatus: status,
      To: '+972501234567',
      From: SMS_FROM,
      ApiVersion: '2010-04-01',
      ...extra,
    };
  }

  /** Posts a callback signed (as Twilio signs it) with `token` over `signedParams` (default: what is posted). */
  async function postCallback(
    path: string,
    params: Record<string, string>,
    options: { token?: string | null; signedParams?: Record<string, string> } = {},
  ) {
    const { default: twilioLibrary } = await import('twilio');
    const token = options.token === undefined ? AUTH_TOKEN : options.token;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (token) {
      headers['x-twilio-signature'] = twilioLibrary.getExpectedTwilioSignature(
        token,
        `${APP_BASE_URL}${path}`,
        options.signedParams ?? params,
      );
    }
    return harness.app.inject({
      method: 'POST',
      url: path,
      headers,
      payload: new URLSearchParams(params).toString(),
    });
  }

  async function stateOf(envelopeId: string) {
    const em = harness.ctx.orm.em.fork();
    const envelope = await em.findOneOrFail(Envelope, { id: envelopeId });
    const recipients = await em.find(Recipient, { envelopeId }, { orderBy: { createdAt: 'asc' } });
    const events = await em.find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
    return {
      status: envelope.status,
      recipients: Object.fromEntries(recipients.map((r) => [r.fullName, r.status])),
      failures: events.filter((e) => e.type === 'recipient.delivery_failed'),
      envelopeFailures: events.filter((e) => e.type === 'envelope.delivery_failed'),
    };
  }

  it('records delivered, and ignores the statuses on the way', async () => {
    const { row, path, sid } = await sentSms();
    const sent = await postCallback(path, form(sid, 'sent'));
    expect(sent.statusCode, sent.body).toBe(204);
    const unchanged = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(unchanged.deliveryStatus).toBeNull();

    const delivered = await postCallback(path, form(sid, 'delivered'));
    expect(delivered.statusCode, delivered.body).toBe(204);
    const after = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(after.deliveryStatus).toBe('delivered');
    expect(after.deliveryReportedAt).toBeInstanceOf(Date);
  });

  it('undelivered: the recipient DeliveryFailed with the carrier error code, once; both unreachable: the envelope too', async () => {
    const { envelope, row, path, sid } = await sentSms();
    const before = await stateOf(envelope.envelopeId);
    expect(before.recipients[SMS_RECIPIENT]).not.toBe('DeliveryFailed');

    const failed = await postCallback(path, form(sid, 'undelivered', { ErrorCode: '30003' }));
    expect(failed.statusCode, failed.body).toBe(204);
    const after = await stateOf(envelope.envelopeId);
    expect(after.recipients[SMS_RECIPIENT]).toBe('DeliveryFailed');
    expect(after.recipients[WHATSAPP_RECIPIENT]).not.toBe('DeliveryFailed');
    expect(after.status).toBe(before.status);
    expect(after.failures).toHaveLength(1);
    expect(after.failures[0]?.data).toMatchObject({
      kind: 'invitation',
      failure_type: 'CarrierFailed',
      notification_id: row.id,
    });
    expect(String(after.failures[0]?.data.message)).toContain('30003');
    const recorded = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(recorded).toMatchObject({ deliveryStatus: 'failed' });
    expect(recorded.deliveryDetail).toBe('Twilio status undelivered (Twilio error 30003)');

    // Replays (Twilio's, or anyone's holding a signed request) change nothing; a later "delivered" neither.
    for (const status of ['undelivered', 'failed', 'delivered']) {
      const again = await postCallback(path, form(sid, status, { ErrorCode: '30005' }));
      expect(again.statusCode, again.body).toBe(204);
    }
    const replayed = await stateOf(envelope.envelopeId);
    expect(replayed.failures).toHaveLength(1);
    const kept = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(kept).toMatchObject({ deliveryStatus: 'failed', deliveryDetail: recorded.deliveryDetail });

    // The WhatsApp invitation fails too: nobody in turn can be reached, so the envelope is DeliveryFailed.
    const whatsapp = await activities().sendNotification(
      request(envelope, { kind: 'invitation', recipientId: envelope.whatsapp.id }),
    );
    const whatsappRow = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Notification, { id: whatsapp.notificationId });
    const whatsappFailed = await postCallback(
      `/api/callbacks/twilio/status/${whatsappRow.id}`,
      form(whatsappRow.providerMessageId as string, 'failed', { ErrorCode: '63016' }),
    );
    expect(whatsappFailed.statusCode, whatsappFailed.body).toBe(204);
    const both = await stateOf(envelope.envelopeId);
    expect(both.status).toBe('DeliveryFailed');
    expect(both.recipients[WHATSAPP_RECIPIENT]).toBe('DeliveryFailed');
    expect(both.envelopeFailures).toHaveLength(1);
  });

  it('takes a failure Twilio reports before the message is recorded: the callback waits for its row', async () => {
    const envelope = await smsAndWhatsAppEnvelope();
    await expect
      .poll(async () => Object.values((await stateOf(envelope.envelopeId)).recipients), { timeout: 30_000 })
      .toEqual(['InvitationSent', 'InvitationSent']);
    const asked = request(envelope, { kind: 'invitation', recipientId: envelope.sms.id });
    // Twilio reports the message undelivered while the send is still under way (before its answer reaches
    // Sigil and the row is written): the callback is posted, and the answer given 300 ms after it arrives.
    let callback: ReturnType<typeof postCallback> | undefined;
    twilio.beforeNextAnswer(async (_request, sid) => {
      callback = postCallback(
        `/api/callbacks/twilio/status/${asked.notificationId}`,
        form(sid, 'undelivered', { ErrorCode: '30003' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const result = await activities().sendNotification(asked);
    expect(result).toMatchObject({ status: 'sent', notificationId: asked.notificationId });
    expect(callback).toBeDefined();
    const answered = await callback;
    expect(answered?.statusCode, answered?.body).toBe(204);
    const row = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: asked.notificationId });
    expect(row.deliveryStatus).toBe('failed');
    const after = await stateOf(envelope.envelopeId);
    expect(after.recipients[SMS_RECIPIENT]).toBe('DeliveryFailed');
    expect(after.failures).toHaveLength(1);
  });

  it('refuses forged, unsigned and altered callbacks with 403 and changes nothing', async () => {
    const { envelope, row, path, sid } = await sentSms();
    const before = await stateOf(envelope.envelopeId);
    const params = form(sid, 'undelivered', { ErrorCode: '30003' });
    const forged = await postCallback(path, params, { token: 'not-the-auth-token' });
    expect(forged.statusCode, forged.body).toBe(403);
    expect(forged.json().error).toMatchObject({ code: 'forbidden' });
    expect(forged.body).not.toContain(AUTH_TOKEN);
    const unsigned = await postCallback(path, params, { token: null });
    expect(unsigned.statusCode, unsigned.body).toBe(403);
    // Signed over "delivered", posted as "undelivered".
    const altered = await postCallback(path, params, { signedParams: form(sid, 'delivered') });
    expect(altered.statusCode, altered.body).toBe(403);
    // A signature of another message's URL does not pass for this one.
    const other = await postCallback(`/api/callbacks/twilio/status/${randomUUID()}`, params);
    expect(other.statusCode, other.body).toBe(404);
    const moved = await harness.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': (await import('twilio')).default.getExpectedTwilioSignature(
          AUTH_TOKEN,
          `${APP_BASE_URL}/api/callbacks/twilio/status/${randomUUID()}`,
          params,
        ),
      },
      payload: new URLSearchParams(params).toString(),
    });
    expect(moved.statusCode, moved.body).toBe(403);

    expect(await stateOf(envelope.envelopeId)).toEqual(before);
    const untouched = await harness.ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(untouched.deliveryStatus).toBeNull();
  });
});
