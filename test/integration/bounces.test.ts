// Bounces through real SMTP end to end: this file's worker sends invitations through a relay (test/support/
// bounce-relay.ts) with a VERP return path; the relay accepts a message for an unknown mailbox, then sends an
// RFC 3464 DSN to that return path by SMTP, to Sigil's own bounce receiver (api/bounces/bounce-receiver.ts),
// which marks the recipient — and the envelope, when nobody in turn can be reached — DeliveryFailed once, with
// the DSN's status and diagnostic. The receiver refuses mail for anything but a known VERP address (550) and
// messages over its bound (552).
import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { type BounceReceiver, startBounceReceiver } from '../../api/bounces/bounce-receiver.ts';
import { AuditEvent, Envelope, Notification, Recipient } from '../../db/entities/index.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import { ENVELOPE_WORKFLOW_TYPE, envelopeWorkflowId, sendEnvelopeUpdate } from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { type BounceRelay, deliveryStatusNotification, startBounceRelay } from '../support/bounce-relay.ts';
import { createOrganizationWithTemplate, openTestContext, type TestContext } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';

const TASK_QUEUE = 'envelopes-bounces';
const BOUNCE_DOMAIN = 'bounces.sigil.test';
const MAX_MESSAGE_BYTES = 64 * 1024;

let ctx: TestContext;
let relay: BounceRelay;
let receiver: BounceReceiver;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  installQuietRuntime();
  ctx = await openTestContext();
  receiver = await startBounceReceiver({
    host: '127.0.0.1',
    port: 0,
    domain: BOUNCE_DOMAIN,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    orm: ctx.orm,
    temporal: ctx.temporal,
    config: ctx.config,
    logger: pino({ level: 'silent' }),
  });
  relay = await startBounceRelay({
    knownMailboxes: ['dana@known.example', 'noa@known.example'],
    bounceServer: () => ({ host: '127.0.0.1', port: receiver.port }),
  });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: inject('temporalAddress') }),
    namespace: inject('namespace'),
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({
      orm: ctx.orm,
      notifications: {
        env: 'test',
        publicBaseUrl: 'http://localhost:3000',
        notifications: {
          email: {
            transport: { host: '127.0.0.1', port: relay.port, secure: false },
            from: 'sign@sigil.example',
          },
          twilio: null,
        },
        bounces: { domain: BOUNCE_DOMAIN },
      },
    }),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await relay?.close();
  await receiver?.close();
  await ctx?.close();
});

/** A Sequential envelope sent on this file's worker: its invitations go through the relay. */
async function sendThroughRelay(recipients: Parameters<typeof createEnvelope>[1]['recipients']) {
  const { organization, template } = await createOrganizationWithTemplate(ctx);
  const envelope = await createEnvelope(ctx, {
    organizationId: organization.id,
    templateId: template.id,
    title: 'Lease',
    workflowType: 'Sequential',
    recipients,
  });
  const { recipients: rows } = await findEnvelope(ctx, organization.id, envelope.id);
  const handle = await ctx.temporal.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
    workflowId: envelopeWorkflowId(envelope.id),
    taskQueue: TASK_QUEUE,
    args: [envelopeWorkflowInput(envelope, rows)],
  });
  await handle.executeUpdate(sendEnvelopeUpdate);
  return { envelopeId: envelope.id, recipients: rows };
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stateOf(envelopeId: string) {
  const em = ctx.orm.em.fork();
  const envelope = await em.findOneOrFail(Envelope, { id: envelopeId });
  const recipients = await em.find(Recipient, { envelopeId }, { orderBy: { signingOrder: 'asc' } });
  const events = await em.find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
  return {
    status: envelope.status,
    recipients: recipients.map((r) => r.status),
    failures: events.filter((e) => e.type === 'recipient.delivery_failed'),
    envelopeFailures: events.filter((e) => e.type === 'envelope.delivery_failed'),
  };
}

/** Sends one message to the bounce receiver: its reply, or the refusal's code. */
async function mailReceiver(to: string, raw: string): Promise<number> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: receiver.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
    return Number.parseInt(String(info.response), 10);
  } catch (error) {
    return (error as { responseCode?: number }).responseCode ?? -1;
  } finally {
    transport.close();
  }
}

describe('bounces', () => {
  it('a DSN for an unknown mailbox makes the recipient and the envelope DeliveryFailed, once, with its status and diagnostic', async () => {
    const sent = await sendThroughRelay([
      { roleName: 'Client', fullName: 'Nobody', email: 'nobody@unknown.example', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Dana Levi', email: 'dana@known.example', signingOrder: 2 },
    ]);
    const invitation = await until(
      () => ctx.orm.em.fork().findOne(Notification, { envelopeId: sent.envelopeId, kind: 'invitation' }),
      (row) => row?.status === 'sent',
      'the invitation sent',
    );
    const row = invitation as Notification;
    // The relay saw the VERP return path of exactly this message.
    const relayed = relay.received.find((mail) => mail.envelopeTo.includes('nobody@unknown.example'));
    expect(relayed?.envelopeFrom).toBe(`bounce+${row.id}@${BOUNCE_DOMAIN}`);
    const dsn = relay.dsns.find((d) => d.finalRecipient === 'nobody@unknown.example');
    expect(await dsn?.outcome).toMatchObject({ accepted: true });

    // The receiver answers once the workflow has taken the failure and it is projected.
    const after = await stateOf(sent.envelopeId);
    expect(after.status).toBe('DeliveryFailed');
    expect(after.recipients).toEqual(['DeliveryFailed', 'WaitingForTurn']);
    expect(after.failures).toHaveLength(1);
    expect(after.failures[0]?.data).toMatchObject({
      kind: 'invitation',
      failure_type: 'Bounced',
      notification_id: row.id,
    });
    expect(String(after.failures[0]?.data.message)).toBe(
      '5.1.1 550 5.1.1 <nobody@unknown.example>: Recipient address rejected: User unknown in virtual mailbox table',
    );
    expect(after.envelopeFailures).toHaveLength(1);
    expect(after.envelopeFailures[0]?.data).toEqual({ recipient_ids: [sent.recipients[0]?.id] });
    const recorded = await ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(recorded).toMatchObject({ status: 'sent', deliveryStatus: 'failed' });
    expect(recorded.deliveryFailureReportedAt).toBeInstanceOf(Date);

    // The same DSN again (a relay retrying, or a second report of the message): taken, and nothing changes.
    expect(await relay.sendDsn(dsn?.returnPath as string, dsn?.raw as string)).toMatchObject({
      accepted: true,
    });
    const again = await stateOf(sent.envelopeId);
    expect(again.failures).toHaveLength(1);
    expect(again.envelopeFailures).toHaveLength(1);
    expect(again.status).toBe('DeliveryFailed');
  });

  it('refuses mail for anything but a known VERP address (550) and messages over its bound (552)', async () => {
    const sent = await sendThroughRelay([
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@known.example', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Noa Bar', email: 'noa@known.example', signingOrder: 2 },
    ]);
    const row = (await until(
      () => ctx.orm.em.fork().findOne(Notification, { envelopeId: sent.envelopeId, kind: 'invitation' }),
      (found) => found?.status === 'sent',
      'the invitation sent',
    )) as Notification;
    const before = await until(
      () => stateOf(sent.envelopeId),
      (state) => state.recipients[0] === 'InvitationSent',
      'Dana InvitationSent',
    );
    const dsn = deliveryStatusNotification(`bounce+${row.id}@${BOUNCE_DOMAIN}`, 'dana@known.example', '');

    expect(await mailReceiver(`someone@${BOUNCE_DOMAIN}`, dsn)).toBe(550);
    expect(await mailReceiver(`bounce+${randomUUID()}@${BOUNCE_DOMAIN}`, dsn)).toBe(550);
    expect(await mailReceiver(`bounce+${row.id}@another.example`, dsn)).toBe(550);
    const oversized = dsn.replace('Your message could', `${'x'.repeat(76)}\r\n`.repeat(1000));
    expect(await mailReceiver(`bounce+${row.id}@${BOUNCE_DOMAIN}`, oversized)).toBe(552);
    // An auto-reply to the return path is no DSN: taken, and nothing changes.
    const autoReply = [
      `To: bounce+${row.id}@${BOUNCE_DOMAIN}`,
      'From: dana@known.example',
      'Subject: Out of office',
      'Auto-Submitted: auto-replied',
      '',
      'I am away until Monday.',
      '',
    ].join('\r\n');
    expect(await mailReceiver(`bounce+${row.id}@${BOUNCE_DOMAIN}`, autoReply)).toBe(250);

    expect(await stateOf(sent.envelopeId)).toEqual(before);
    const untouched = await ctx.orm.em.fork().findOneOrFail(Notification, { id: row.id });
    expect(untouched.deliveryStatus).toBeNull();
  });
});
