// `npm run record:histories`: runs the envelope workflow through its main paths (and a webhook delivery with a
// retry) on real infrastructure and stores each workflow history under test/fixtures/histories/. The replay
// test replays them against the current workflow code, so a change that breaks running envelopes fails CI. Re-record only when the
// recorded behaviour is meant to change, and keep the old files: envelopes started on old code still run.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { insertBulkSend } from '../../db/bulk-sends.ts';
import { AuditEvent, Template } from '../../db/entities/index.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { resumeProjection } from '../../services/envelopes/resume-projection.ts';
import { retryFinalization } from '../../services/envelopes/retry-finalization.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { updateEnvelopeSettings } from '../../services/envelopes/update-envelope-settings.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { delegateSigning } from '../../services/signing/delegate-signing.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { viewSigningLink } from '../../services/signing/view-signing-link.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { sendTestDelivery } from '../../services/webhooks/send-test-delivery.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { startBulkSendWorkflow } from '../../temporal/bulk-sends.ts';
import { bulkSendWorkflowId, cancelBulkSendSignal } from '../../workflows/bulk-send-contracts.ts';
import {
  envelopeWorkflowId,
  recipientAuthenticationUpdate,
  recipientProgressUpdate,
} from '../../workflows/contracts.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-contracts.ts';
import {
  createOrganizationWithTemplate,
  draftTwoSignerEnvelope,
  servicesOn,
  TWO_SIGNERS,
} from '../support/context.ts';
import { startTestInfrastructure } from '../support/infrastructure.ts';
import { replaceStoredBytes } from '../support/stored-files.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const OUTPUT = new URL('../fixtures/histories/', import.meta.url);
const log = (line: string) => process.stdout.write(`[record] ${line}\n`);

const infrastructure = await startTestInfrastructure(log);
const ctx = servicesOn(infrastructure.orm, {
  temporal: infrastructure.env.client,
  config: { env: 'test' as const, publicBaseUrl: 'http://localhost:3000' },
});

async function draft(expiresAt?: string) {
  const draft = await draftTwoSignerEnvelope(ctx, {
    title: 'Recorded envelope',
    externalReference: 'recorded',
    expiresAt,
  });
  return { org: draft.organizationId, id: draft.envelopeId, recipients: draft.recipients.map((r) => r.id) };
}

const force = process.argv.includes('--force');

async function save(name: string, envelopeId: string, runId?: string) {
  const file = new URL(`${name}.json`, OUTPUT);
  // Existing recordings are kept: they stand for envelopes started on older code, which must still replay.
  if (!force && existsSync(file)) {
    log(`kept ${name}.json (exists; --force re-records)`);
    return;
  }
  const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId), runId);
  // A run that continued as new has no result of its own: wait for the envelope's last run instead.
  await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
  const history = await handle.fetchHistory();
  await writeFile(file, `${historyToJSON(history)}\n`);
  log(`saved ${name}.json (${history.events?.length ?? 0} events)`);
}

try {
  // A webhook delivery whose first attempt fails (HTTP 500): it waits its first backoff (about 30 s), then
  // succeeds. Recorded first and on its own, so it does not depend on the envelope scenarios. Recorded again
  // under a new name when the delivery workflow changes (the older files stand for deliveries in flight):
  // `-wait-from-attempt` waits what the attempt says (patch webhook-wait-from-attempt).
  for (const name of ['webhook-delivery-retried', 'webhook-delivery-retried-wait-from-attempt']) {
    const webhookFile = new URL(`${name}.json`, OUTPUT);
    if (!force && existsSync(webhookFile)) {
      log(`kept ${name}.json (exists; --force re-records)`);
      continue;
    }
    const receiver = await startWebhookReceiver();
    receiver.answer((request) => (request.index === 0 ? { status: 500 } : { status: 204 }));
    try {
      const organization = await createOrganization(ctx, { name: 'Recorded webhooks', plan: 'Business' });
      const endpoint = await createWebhookEndpoint(ctx, {
        organizationId: organization.id,
        url: `${receiver.url}/recorded`,
      });
      const delivery = await sendTestDelivery(ctx, organization.id, endpoint.id);
      log('webhook delivery: waiting for its retry (about 30 s)…');
      const handle = ctx.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id));
      await handle.result();
      const history = await handle.fetchHistory();
      await writeFile(webhookFile, `${historyToJSON(history)}\n`);
      log(`saved ${name}.json (${history.events?.length ?? 0} events)`);
    } finally {
      await receiver.close();
    }
  }

  const completed = await draft();
  await sendEnvelope(ctx, completed.org, completed.id);
  await sendEnvelope(ctx, completed.org, completed.id);
  await completeRecipient(ctx, completed.org, completed.id, completed.recipients[1] as string).catch(
    () => {},
  );
  await completeRecipient(ctx, completed.org, completed.id, completed.recipients[0] as string);
  await completeRecipient(ctx, completed.org, completed.id, completed.recipients[1] as string);
  await save('sequential-completed', completed.id);

  const cancelled = await draft();
  await sendEnvelope(ctx, cancelled.org, cancelled.id);
  await completeRecipient(ctx, cancelled.org, cancelled.id, cancelled.recipients[0] as string);
  await cancelEnvelope(ctx, cancelled.org, cancelled.id, 'recorded cancellation');
  await save('sequential-cancelled', cancelled.id);

  const remindedExtended = await draft(new Date(Date.now() + 3000).toISOString());
  await sendEnvelope(ctx, remindedExtended.org, remindedExtended.id);
  await remindEnvelope(ctx, remindedExtended.org, remindedExtended.id);
  await extendEnvelope(ctx, remindedExtended.org, remindedExtended.id, {
    expiresAt: new Date(Date.now() + 5000).toISOString(),
  });
  await save('sequential-reminded-extended-expired', remindedExtended.id);

  const declined = await draft();
  await sendEnvelope(ctx, declined.org, declined.id);
  await declineRecipient(ctx, declined.org, declined.id, declined.recipients[0] as string, {
    reason: 'recorded',
  });
  await save('sequential-declined', declined.id);

  const parallel = await draftTwoSignerEnvelope(ctx, {
    workflowType: 'Parallel',
    externalReference: 'recorded',
  });
  await sendEnvelope(ctx, parallel.organizationId, parallel.envelopeId);
  await completeRecipient(ctx, parallel.organizationId, parallel.envelopeId, parallel.second.id);
  await completeRecipient(ctx, parallel.organizationId, parallel.envelopeId, parallel.first.id);
  await save('parallel-completed', parallel.envelopeId);

  const finalized = await draft();
  await sendEnvelope(ctx, finalized.org, finalized.id);
  await completeRecipient(ctx, finalized.org, finalized.id, finalized.recipients[0] as string);
  await completeRecipient(ctx, finalized.org, finalized.id, finalized.recipients[1] as string);
  await save('sequential-finalized', finalized.id);

  // Finalization fails on a broken source PDF, then an operator retries once it is repaired.
  const failing = await draftTwoSignerEnvelope(ctx, {
    title: 'Recorded envelope',
    externalReference: 'recorded',
  });
  const template = await infrastructure.orm.em
    .fork()
    .findOneOrFail(Template, { id: failing.envelope.templateId as string });
  const restore = await replaceStoredBytes(
    { orm: infrastructure.orm, files: createFileObjects({ kind: 'postgres' }, infrastructure.orm.em) },
    template.fileId,
    Buffer.from('%PDF-1.7 broken'),
  );
  await sendEnvelope(ctx, failing.organizationId, failing.envelopeId);
  await completeRecipient(ctx, failing.organizationId, failing.envelopeId, failing.first.id);
  await completeRecipient(ctx, failing.organizationId, failing.envelopeId, failing.second.id);
  while (
    (await findEnvelope(ctx, failing.organizationId, failing.envelopeId)).envelope.status !== 'FinalPdfFailed'
  ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await restore();
  await retryFinalization(ctx, failing.organizationId, failing.envelopeId);
  await save('final-pdf-failed-retried', failing.envelopeId);

  // Signers open their links (recipientOpened, twice: the second records nothing) and complete with their
  // address and user agent in the events.
  const signed = await draft();
  await sendEnvelope(ctx, signed.org, signed.id);
  const origin = { ip: '203.0.113.7', userAgent: 'recorder' };
  const links = await issueSigningLinks(ctx, signed.org, signed.id);
  const tokens = links.map((link) => link.url.split('/sign/')[1] as string);
  await viewSigningLink(ctx, tokens[0] as string, origin);
  await viewSigningLink(ctx, tokens[0] as string, origin);
  await completeRecipient(ctx, signed.org, signed.id, signed.recipients[0] as string, origin);
  await viewSigningLink(ctx, tokens[1] as string, origin);
  await completeRecipient(ctx, signed.org, signed.id, signed.recipients[1] as string, origin);
  await save('signer-api-completed', signed.id);

  const declinedBySigner = await draft();
  await sendEnvelope(ctx, declinedBySigner.org, declinedBySigner.id);
  const [declineLink] = await issueSigningLinks(ctx, declinedBySigner.org, declinedBySigner.id);
  await viewSigningLink(ctx, declineLink?.url.split('/sign/')[1] as string, origin);
  await declineRecipient(
    ctx,
    declinedBySigner.org,
    declinedBySigner.id,
    declinedBySigner.recipients[0] as string,
    { reason: 'recorded' },
    origin,
  );
  await save('signer-api-declined', declinedBySigner.id);

  // A signer hands their part to someone else (patch `delegation`): recorded, the delegate invited once the change
  // is projected, who opens their own link and completes; then the second signer.
  const delegated = await draftTwoSignerEnvelope(ctx, {
    title: 'Recorded envelope',
    externalReference: 'recorded',
    allowDelegation: true,
  });
  await sendEnvelope(ctx, delegated.organizationId, delegated.envelopeId);
  const tokenOf = (link: { url: string } | undefined) => link?.url.split('/sign/')[1] as string;
  const [delegatorLink] = await issueSigningLinks(ctx, delegated.organizationId, delegated.envelopeId);
  await viewSigningLink(ctx, tokenOf(delegatorLink), origin);
  await delegateSigning(
    ctx,
    tokenOf(delegatorLink),
    { fullName: 'Noa Bar', email: 'noa@example.com', deliveryChannel: 'Email' },
    origin,
  );
  const [delegateLink] = await issueSigningLinks(ctx, delegated.organizationId, delegated.envelopeId);
  await viewSigningLink(ctx, tokenOf(delegateLink), origin);
  await completeRecipient(ctx, delegated.organizationId, delegated.envelopeId, delegated.first.id, origin);
  await completeRecipient(ctx, delegated.organizationId, delegated.envelopeId, delegated.second.id, origin);
  await save('signer-delegated-completed', delegated.envelopeId);

  // Continue-as-new: a low threshold hands the envelope over to new runs; the first and the last are kept.
  const continued = await draft();
  await sendEnvelope(ctx, continued.org, continued.id, { continueAsNewAtHistoryLength: 30 });
  const continuedHandle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(continued.id));
  const firstRunId = (await continuedHandle.describe()).runId;
  for (let i = 0; i < 4; i += 1) await remindEnvelope(ctx, continued.org, continued.id);
  await completeRecipient(ctx, continued.org, continued.id, continued.recipients[0] as string, origin);
  await completeRecipient(ctx, continued.org, continued.id, continued.recipients[1] as string, origin);
  await save('continued-as-new-last-run', continued.id);
  await save('continued-as-new-first-run', continued.id, firstRunId);

  // A one-time-code signer: code sent, a wrong code, a new code, verified, viewed, started, completed; then
  // the second signer views and completes.
  const otp = await draftTwoSignerEnvelope(ctx, {
    title: 'Recorded envelope',
    externalReference: 'recorded',
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        phone: '+972501234567',
        deliveryChannel: 'Sms',
        authenticationMethod: 'OtpSms',
      },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
    ],
  });
  await sendEnvelope(ctx, otp.organizationId, otp.envelopeId);
  const otpHandle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(otp.envelopeId));
  const otpLinks = await issueSigningLinks(ctx, otp.organizationId, otp.envelopeId);
  await viewSigningLink(ctx, otpLinks[0]?.url.split('/sign/')[1] as string, origin);
  for (const step of [
    { outcome: 'code_sent', channel: 'Sms' },
    { outcome: 'failed', reason: 'wrong_code' },
    { outcome: 'code_sent', channel: 'Sms' },
    { outcome: 'verified' },
  ] as const) {
    await otpHandle.executeUpdate(recipientAuthenticationUpdate, {
      args: [{ recipientId: otp.first.id, ...step, ...origin }],
    });
  }
  for (const step of ['viewed', 'started', 'viewed'] as const) {
    await otpHandle.executeUpdate(recipientProgressUpdate, {
      args: [{ recipientId: otp.first.id, step, ...origin }],
    });
  }
  await completeRecipient(ctx, otp.organizationId, otp.envelopeId, otp.first.id, origin);
  await otpHandle.executeUpdate(recipientProgressUpdate, {
    args: [{ recipientId: otp.second.id, step: 'viewed', ...origin }],
  });
  await completeRecipient(ctx, otp.organizationId, otp.envelopeId, otp.second.id, origin);
  await save('signer-otp-progress-completed', otp.envelopeId);

  // Messages and webhooks: email signers are invited round by round (development capture), everyone and the
  // Cc get completion notices, and every lifecycle event starts a webhook delivery child.
  // Recorded again under a new name when the messages change: `messages-heartbeat-completed` sends them with
  // a heartbeat timeout (patch notification-heartbeat); `messages-batched-projections-completed` projects the
  // queued transitions in batches (patch batched-projections).
  for (const name of [
    'messages-webhooks-completed',
    'messages-heartbeat-completed',
    'messages-batched-projections-completed',
  ]) {
    if (!force && existsSync(new URL(`${name}.json`, OUTPUT))) continue;
    const receiver = await startWebhookReceiver();
    try {
      const messaged = await createOrganizationWithTemplate(ctx);
      await createWebhookEndpoint(ctx, {
        organizationId: messaged.organization.id,
        url: `${receiver.url}/recorded-lifecycle`,
      });
      const envelope = await createEnvelope(ctx, {
        organizationId: messaged.organization.id,
        templateId: messaged.template.id,
        title: 'Recorded envelope',
        externalReference: 'recorded',
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', language: 'he' },
          { roleName: 'Client', fullName: 'Noa Bar', email: 'noa@example.com', type: 'Cc' },
        ],
      });
      const { recipients } = await findEnvelope(ctx, messaged.organization.id, envelope.id);
      await sendEnvelope(ctx, messaged.organization.id, envelope.id);
      await completeRecipient(
        ctx,
        messaged.organization.id,
        envelope.id,
        recipients[0]?.id as string,
        origin,
      );
      await remindEnvelope(ctx, messaged.organization.id, envelope.id);
      await completeRecipient(
        ctx,
        messaged.organization.id,
        envelope.id,
        recipients[1]?.id as string,
        origin,
      );
      await save(name, envelope.id);
    } finally {
      await receiver.close();
    }
  }

  // A projection PostgreSQL refuses for good (a trigger stands in for a violated constraint): the workflow
  // parks, a cancel meanwhile is refused, a resume before the repair parks again, the resume after it writes
  // the queued reminder, and the envelope is then cancelled.
  if (force || !existsSync(new URL('projection-parked-resumed.json', OUTPUT))) {
    const parked = await draft();
    await sendEnvelope(ctx, parked.org, parked.id);
    const connection = infrastructure.orm.em.getConnection();
    await connection.execute(`
      create function record_refuse() returns trigger language plpgsql as $$
      begin
        if new.envelope_id = '${parked.id}' and new.type = 'envelope.reminded' then
          raise exception 'refused while recording' using errcode = '23514';
        end if;
        return new;
      end $$`);
    await connection.execute(
      'create trigger record_refuse before insert on audit_event for each row execute function record_refuse()',
    );
    const dropTrigger = async () => {
      await connection.execute('drop trigger if exists record_refuse on audit_event');
      await connection.execute('drop function if exists record_refuse()');
    };
    try {
      await remindEnvelope(ctx, parked.org, parked.id).catch(() => {});
      while (!(await findEnvelope(ctx, parked.org, parked.id)).envelope.projectionError) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await cancelEnvelope(ctx, parked.org, parked.id, 'while parked').catch(() => {});
      await resumeProjection(ctx, parked.org, parked.id).catch(() => {});
      await dropTrigger();
      await resumeProjection(ctx, parked.org, parked.id);
      await cancelEnvelope(ctx, parked.org, parked.id, 'after the repair');
      await save('projection-parked-resumed', parked.id);
    } finally {
      await dropTrigger();
    }
  }

  // Bulk sends of three rows (docs/bulk-send.md): one sent to the end, one cancelled as it starts.
  for (const [name, cancel] of [
    ['bulk-send-completed', false],
    ['bulk-send-cancelled', true],
  ] as const) {
    const file = new URL(`${name}.json`, OUTPUT);
    if (!force && existsSync(file)) {
      log(`kept ${name}.json (exists; --force re-records)`);
      continue;
    }
    const { organization, template } = await createOrganizationWithTemplate(ctx);
    const id = randomUUID();
    const rows = [2, 3, 4].map((row) => ({
      row,
      request: {
        templateId: template.id,
        title: 'Recorded bulk send',
        workflowType: 'Sequential',
        externalReference: `recorded-${row}`,
        recipients: TWO_SIGNERS,
        initialValues: [],
      },
    }));
    await infrastructure.orm.em.fork().transactional((tx) =>
      insertBulkSend(
        tx,
        {
          id,
          organizationId: organization.id,
          templateId: template.id,
          createdByUserId: null,
          teamId: null,
          filename: 'recorded.csv',
          settings: { title: 'Recorded bulk send' },
          workflowId: bulkSendWorkflowId(id),
        },
        rows,
      ),
    );
    await startBulkSendWorkflow(
      ctx.temporal,
      { bulkSendId: id, organizationId: organization.id, total: rows.length, summary: 'Recorded bulk send' },
      10_000,
    );
    const handle = ctx.temporal.workflow.getHandle(bulkSendWorkflowId(id));
    if (cancel) await handle.signal(cancelBulkSendSignal);
    await handle.result();
    const history = await handle.fetchHistory();
    await writeFile(file, `${historyToJSON(history)}\n`);
    log(`saved ${name}.json (${history.events?.length ?? 0} events)`);
  }

  const expired = await draft(new Date(Date.now() + 3000).toISOString());
  await sendEnvelope(ctx, expired.org, expired.id);
  await save('sequential-expired', expired.id);

  // Deadline notices and settings changed while open (patch deadline-notices): a warning one day before a
  // deadline a day and a few seconds away, a reminder schedule changed, then a cancel; and an expiry that tells
  // the recipient in turn.
  const byEmail = TWO_SIGNERS.map((recipient) => ({ ...recipient, deliveryChannel: 'Email' as const }));
  if (force || !existsSync(new URL('deadline-warned-settings-cancelled.json', OUTPUT))) {
    const warned = await draftTwoSignerEnvelope(ctx, {
      title: 'Recorded envelope',
      recipients: byEmail,
      expiresAt: new Date(Date.now() + 86_400_000 + 4000).toISOString(),
      reminderIntervalDays: 1,
      maxAutomaticReminders: 2,
      expiringSoonDays: 1,
      expiredExtensionGraceDays: 0,
    });
    await sendEnvelope(ctx, warned.organizationId, warned.envelopeId);
    await updateEnvelopeSettings(ctx, warned.organizationId, warned.envelopeId, { reminderIntervalDays: 2 });
    for (let waited = 0; waited < 30_000; waited += 500) {
      const events = await infrastructure.orm.em.fork().count(AuditEvent, {
        envelopeId: warned.envelopeId,
        type: 'envelope.expiring_soon',
      });
      if (events > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await cancelEnvelope(ctx, warned.organizationId, warned.envelopeId, 'recorded cancellation');
    await save('deadline-warned-settings-cancelled', warned.envelopeId);
  }
  if (force || !existsSync(new URL('deadline-expired-notified.json', OUTPUT))) {
    const notified = await draftTwoSignerEnvelope(ctx, {
      title: 'Recorded envelope',
      recipients: byEmail,
      expiresAt: new Date(Date.now() + 3000).toISOString(),
      expiredExtensionGraceDays: 0,
    });
    await sendEnvelope(ctx, notified.organizationId, notified.envelopeId);
    await save('deadline-expired-notified', notified.envelopeId);
  }
} finally {
  await infrastructure.stop();
}
