// The envelope workflow's messages through a real SMTP server started here: invitations as each round comes
// into turn (English and Hebrew), the link in the email opening the signer API, completion notices to every
// recipient and the Cc; and an address the server refuses making the recipient and the envelope
// DeliveryFailed until a reminder reaches them. A worker of this file's own sends through the SMTP server.
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { AuditEvent } from '../../db/entities/index.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import { viewSigningLink } from '../../services/signing/view-signing-link.ts';
import { ENVELOPE_WORKFLOW_TYPE, envelopeWorkflowId, sendEnvelopeUpdate } from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { createOrganizationWithTemplate, openTestContext, type TestContext } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';

const TASK_QUEUE = 'envelopes-messages';
const SMTP_USER = 'sigil-messages';
const SMTP_PASSWORD = 'messages-Pa55word';
const PUBLIC_BASE_URL = 'http://localhost:3000';

let ctx: TestContext;
let smtp: SmtpSink;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  installQuietRuntime();
  ctx = await openTestContext();
  smtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: inject('temporalAddress') }),
    namespace: inject('namespace'),
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({
      orm: ctx.orm,
      notifications: {
        env: 'test',
        publicBaseUrl: PUBLIC_BASE_URL,
        notifications: {
          email: {
            transport: {
              host: '127.0.0.1',
              port: smtp.port,
              secure: false,
              user: SMTP_USER,
              password: SMTP_PASSWORD,
            },
            from: 'sign@sigil.example',
          },
          twilio: null,
        },
      },
    }),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await smtp?.close();
  await ctx?.close();
});

/** Creates and sends an envelope whose workflow runs on this file's worker (SMTP provider). */
async function sendThroughSmtp(recipients: Parameters<typeof createEnvelope>[1]['recipients']) {
  const { organization, template } = await createOrganizationWithTemplate(ctx);
  const envelope = await createEnvelope(ctx, {
    organizationId: organization.id,
    templateId: template.id,
    title: 'Services agreement',
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
  return { organizationId: organization.id, envelopeId: envelope.id, recipients: rows, handle };
}

function mailsTo(address: string): ReceivedMail[] {
  return smtp.received.filter((mail) => mail.envelopeTo.includes(address));
}

async function mailTo(address: string, count = 1): Promise<ReceivedMail> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mails = mailsTo(address);
    if (mails.length >= count) return mails[count - 1] as ReceivedMail;
    if (Date.now() > deadline) throw new Error(`no email number ${count} to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function tokenIn(mail: ReceivedMail): string {
  const match = /\/sign\/([A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? '');
  if (!match?.[1]) throw new Error(`no signing link in: ${mail.parsed.text}`);
  return match[1];
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function auditTypes(envelopeId: string): Promise<string[]> {
  const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
  return events.map((e) => e.type);
}

describe('envelope messages', () => {
  it('invites each round as it comes into turn, in the recipient language, and tells everyone when it completes', async () => {
    const sent = await sendThroughSmtp([
      { roleName: 'Client', fullName: 'Sam Cohen', email: 'sam@client.example', signingOrder: 1 },
      {
        roleName: 'Provider',
        fullName: 'דנה לוי',
        email: 'dana@provider.example',
        language: 'he',
        signingOrder: 2,
      },
      { roleName: 'Client', fullName: 'Noa Bar', email: 'noa@cc.example', type: 'Cc', language: 'he' },
    ]);
    const [sam, dana, noa] = sent.recipients;
    const statuses = async () =>
      (await findEnvelope(ctx, sent.organizationId, sent.envelopeId)).recipients.map((r) => r.status);

    // Round 1: only Sam is invited, in English; the link in the email opens the signer API.
    const invitation = await mailTo('sam@client.example');
    expect(invitation.parsed.subject).toMatch(/Services agreement/);
    await until(statuses, (s) => s[0] === 'InvitationSent', 'Sam InvitationSent');
    expect(mailsTo('dana@provider.example')).toHaveLength(0);
    expect(mailsTo('noa@cc.example')).toHaveLength(0);
    const view = await viewSigningLink(ctx, tokenIn(invitation), {});
    expect(view).toMatchObject({ state: 'ready', recipient: { name: 'Sam Cohen', status: 'LinkOpened' } });

    // Round 2 comes into turn: Dana is invited in Hebrew, right to left.
    await completeRecipient(ctx, sent.organizationId, sent.envelopeId, sam?.id as string);
    const hebrew = await mailTo('dana@provider.example');
    expect(hebrew.parsed.html).toMatch(/dir="rtl"/);
    expect(hebrew.parsed.text).toMatch(/[\u0590-\u05FF]/);
    const danaView = await viewSigningLink(ctx, tokenIn(hebrew), {});
    expect(danaView).toMatchObject({ state: 'ready', recipient: { status: 'LinkOpened', language: 'he' } });

    // Completion: Sam, Dana and the Cc each get a notice.
    await completeRecipient(ctx, sent.organizationId, sent.envelopeId, dana?.id as string);
    expect((await sent.handle.result()).status).toBe('Completed');
    const samNotice = await mailTo('sam@client.example', 2);
    const danaNotice = await mailTo('dana@provider.example', 2);
    const noaNotice = await mailTo('noa@cc.example');
    expect(samNotice.parsed.subject).not.toBe(invitation.parsed.subject);
    expect(danaNotice.parsed.html).toMatch(/dir="rtl"/);
    expect(noaNotice.parsed.html).toMatch(/dir="rtl"/);
    // The notice's link opens the signer API in its completed state.
    expect((await viewSigningLink(ctx, tokenIn(noaNotice), {})).state).toBe('completed');
    expect(noa?.type).toBe('Cc');

    const types = await auditTypes(sent.envelopeId);
    expect(types.filter((t) => t === 'recipient.invitation_sent')).toHaveLength(2);
    expect(types).not.toContain('recipient.delivery_failed');
  });

  it('a refused address: recipient and envelope DeliveryFailed, then a reminder that reaches them resumes it', async () => {
    smtp.refuseRecipients({ code: 550, message: 'No such user here' });
    const sent = await sendThroughSmtp([
      { roleName: 'Client', fullName: 'Sam Cohen', email: 'sam@gone.example', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Dana Levi', email: 'dana@gone.example', signingOrder: 2 },
    ]);
    try {
      const row = await until(
        () => findEnvelope(ctx, sent.organizationId, sent.envelopeId),
        (r) => r.envelope.status === 'DeliveryFailed',
        'envelope DeliveryFailed',
      );
      expect(row.recipients.map((r) => r.status)).toEqual(['DeliveryFailed', 'WaitingForTurn']);
      const events = await ctx.orm.em
        .fork()
        .find(AuditEvent, { envelopeId: sent.envelopeId }, { orderBy: { sequence: 'asc' } });
      const failed = events.find((e) => e.type === 'recipient.delivery_failed');
      expect(failed?.data).toMatchObject({ kind: 'invitation', failure_type: 'ProviderRejected' });
      expect(events.find((e) => e.type === 'envelope.delivery_failed')?.data).toEqual({
        recipient_ids: [row.recipients[0]?.id],
      });

      // The address works again: a reminder reaches Sam, and the envelope continues where it was.
      smtp.refuseRecipients(null);
      await remindEnvelope(ctx, sent.organizationId, sent.envelopeId);
      const resumed = await until(
        () => findEnvelope(ctx, sent.organizationId, sent.envelopeId),
        (r) => r.envelope.status === 'Sent',
        'envelope Sent again',
      );
      expect(resumed.recipients.map((r) => r.status)).toEqual(['InvitationSent', 'WaitingForTurn']);
      expect(mailsTo('sam@gone.example')).toHaveLength(1);
    } finally {
      smtp.refuseRecipients(null);
      await cancelEnvelope(ctx, sent.organizationId, sent.envelopeId, 'test over');
      await sent.handle.result();
    }
  });
});
