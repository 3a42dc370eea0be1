// The envelope workflow on a real Temporal dev server with the real projection into PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, Template } from '../../db/entities/index.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { retryFinalization } from '../../services/envelopes/retry-finalization.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { Conflict } from '../../services/errors.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import {
  createOrganizationWithTemplate,
  draftTwoSignerEnvelope,
  openTestContext,
  type TestContext,
} from '../support/context.ts';
import { replaceStoredBytes } from '../support/stored-files.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

function draftEnvelope(externalReference?: string) {
  return draftTwoSignerEnvelope(ctx, { externalReference, workflowType: 'Sequential' });
}

async function auditTypes(envelopeId: string) {
  const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
  return events.map((event) => event.type);
}

describe('envelope workflow (Sequential)', () => {
  it('completes after every signer has signed in order, projecting each step to PostgreSQL', async () => {
    const { organizationId, envelopeId, first, second } = await draftEnvelope('PO-seq-1');

    const sent = await sendEnvelope(ctx, organizationId, envelopeId);
    expect(sent.status).toBe('Sent');
    expect(sent.recipients).toEqual([
      { id: first.id, status: 'Pending' },
      { id: second.id, status: 'WaitingForTurn' },
    ]);
    let row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Sent');
    expect(row.envelope.sentAt).toBeInstanceOf(Date);
    expect(row.envelope.workflowId).toBe(envelopeWorkflowId(envelopeId));

    const afterFirst = await completeRecipient(ctx, organizationId, envelopeId, first.id);
    expect(afterFirst.status).toBe('WaitingForNextSigner');
    row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('WaitingForNextSigner');
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Pending']);

    // The last signature starts finalization: the final PDF and the audit trail, then Completed.
    const afterSecond = await completeRecipient(ctx, organizationId, envelopeId, second.id);
    expect(afterSecond.status).toBe('ProcessingFinalPdf');
    const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId));
    const result = await handle.result();
    expect(result.status).toBe('Completed');
    row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Completed');
    expect(row.envelope.completedAt).toBeInstanceOf(Date);
    expect(row.envelope.finalPdfFileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.envelope.auditTrailFileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Completed']);
    expect(await auditTypes(envelopeId)).toEqual([
      'envelope.sent',
      'recipient.completed',
      'recipient.completed',
      'envelope.completed',
      'document.final_pdf_ready',
    ]);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
      expect.arrayContaining([
        ['SigilOrganizationId', organizationId],
        ['SigilEnvelopeStatus', 'Completed'],
        ['SigilExternalReference', 'PO-seq-1'],
      ]),
    );
  });

  it('rejects a signer who is not yet in turn and changes nothing', async () => {
    const { organizationId, envelopeId, second } = await draftEnvelope();
    await sendEnvelope(ctx, organizationId, envelopeId);

    const attempt = completeRecipient(ctx, organizationId, envelopeId, second.id);
    await expect(attempt).rejects.toBeInstanceOf(Conflict);
    await expect(attempt).rejects.toThrow(/not yet in turn/);

    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Sent');
    expect(row.recipients.map((r) => r.status)).toEqual(['Pending', 'WaitingForTurn']);
    expect(await auditTypes(envelopeId)).toEqual(['envelope.sent']);
  });

  it('answers a repeated send with the same state and keeps one workflow', async () => {
    const { organizationId, envelopeId } = await draftEnvelope();
    const firstSend = await sendEnvelope(ctx, organizationId, envelopeId);
    const secondSend = await sendEnvelope(ctx, organizationId, envelopeId);
    expect(secondSend).toEqual(firstSend);
    const runs = [];
    for await (const execution of ctx.temporal.workflow.list({
      query: `WorkflowId = '${envelopeWorkflowId(envelopeId)}'`,
    })) {
      runs.push(execution.runId);
    }
    expect(runs).toHaveLength(1);
    expect(await auditTypes(envelopeId)).toEqual(['envelope.sent']);
  });

  it('cancels: the workflow ends Cancelled and no one can complete afterwards', async () => {
    const { organizationId, envelopeId, first, second } = await draftEnvelope();
    await sendEnvelope(ctx, organizationId, envelopeId);
    await completeRecipient(ctx, organizationId, envelopeId, first.id);

    const cancelled = await cancelEnvelope(ctx, organizationId, envelopeId, 'wrong counterparty');
    expect(cancelled.status).toBe('Cancelled');
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Cancelled');
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Cancelled']);

    await expect(completeRecipient(ctx, organizationId, envelopeId, second.id)).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(cancelEnvelope(ctx, organizationId, envelopeId)).rejects.toBeInstanceOf(Conflict);
    await expect(sendEnvelope(ctx, organizationId, envelopeId)).rejects.toThrow(/Cancelled/);
    const result = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
    expect(result.status).toBe('Cancelled');
    expect(await auditTypes(envelopeId)).toEqual([
      'envelope.sent',
      'recipient.completed',
      'envelope.cancelled',
    ]);
  });

  it('hides another organization’s envelope', async () => {
    const { envelopeId } = await draftEnvelope();
    const other = await createOrganizationWithTemplate(ctx);
    await expect(sendEnvelope(ctx, other.organization.id, envelopeId)).rejects.toThrow(/not found/);
  });

  it('records reminders for the recipients in turn', async () => {
    const { organizationId, envelopeId, first } = await draftEnvelope();
    await expect(remindEnvelope(ctx, organizationId, envelopeId)).rejects.toThrow(/Draft: send it first/);
    await sendEnvelope(ctx, organizationId, envelopeId);
    await remindEnvelope(ctx, organizationId, envelopeId);
    await remindEnvelope(ctx, organizationId, envelopeId);
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.reminderCount).toBe(2);
    expect(row.envelope.lastRemindedAt).toBeInstanceOf(Date);
    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['envelope.sent', 'envelope.reminded', 'envelope.reminded']);
    expect(events[1]?.data).toEqual({ recipient_ids: [first.id] });
  });

  it('extends the deadline of a sent envelope and refuses an earlier one', async () => {
    const { organizationId, envelopeId } = await draftEnvelope();
    const sent = await sendEnvelope(ctx, organizationId, envelopeId);
    const current = Date.parse(sent.expiresAt as string);
    await expect(
      extendEnvelope(ctx, organizationId, envelopeId, {
        expiresAt: new Date(current - 60_000).toISOString(),
      }),
    ).rejects.toThrow(/later than the current deadline/);
    const later = new Date(current + 7 * 24 * 3600 * 1000).toISOString();
    const extended = await extendEnvelope(ctx, organizationId, envelopeId, { expiresAt: later });
    expect(extended?.expiresAt).toBe(later);
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.expiresAt?.toISOString()).toBe(later);
    expect(row.envelope.status).toBe('Sent');
    await cancelEnvelope(ctx, organizationId, envelopeId);
    await expect(
      extendEnvelope(ctx, organizationId, envelopeId, { expiresAt: new Date(current + 9e8).toISOString() }),
    ).rejects.toBeInstanceOf(Conflict);
  });
});

describe('decline', () => {
  it('ends the envelope Declined with the reason; the others who had not completed are Cancelled', async () => {
    const { organizationId, envelopeId, first, second } = await draftEnvelope();
    await sendEnvelope(ctx, organizationId, envelopeId);
    await expect(
      declineRecipient(ctx, organizationId, envelopeId, first.id, { reason: '  ' }),
    ).rejects.toThrow(/a reason is required/);
    await expect(
      declineRecipient(ctx, organizationId, envelopeId, second.id, { reason: 'not my turn' }),
    ).rejects.toThrow(/not yet in turn/);

    const declined = await declineRecipient(ctx, organizationId, envelopeId, first.id, {
      reason: 'Wrong amount',
    });
    expect(declined.status).toBe('Declined');
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Declined');
    expect(row.recipients.map((r) => r.status)).toEqual(['Declined', 'Cancelled']);
    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => [e.type, e.recipientId, e.data])).toEqual([
      ['envelope.sent', null, {}],
      ['recipient.declined', first.id, { reason: 'Wrong amount' }],
    ]);
    await expect(completeRecipient(ctx, organizationId, envelopeId, second.id)).rejects.toThrow(/Declined/);
    expect((await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result()).status).toBe(
      'Declined',
    );
  });
});

const FOUR_ROLES = {
  name: 'Property sale',
  roles: [
    { name: 'Buyer', required: true },
    { name: 'Seller', required: true },
    { name: 'Witness', required: false },
    { name: 'Notary', required: true },
  ],
  fields: ['Buyer', 'Seller', 'Witness', 'Notary'].map((role, index) => ({
    type: 'Signature' as const,
    role,
    label: `${role} signature`,
    page: 1,
    x: 56,
    y: 100 + index * 60,
    width: 200,
    height: 50,
  })),
};

async function fourRoleEnvelope(workflowType: 'Parallel' | 'GroupedRounds', orders: number[]) {
  const { organization, template } = await createOrganizationWithTemplate(ctx, FOUR_ROLES);
  const names = ['Buyer', 'Seller', 'Witness', 'Notary'];
  const envelope = await createEnvelope(ctx, {
    organizationId: organization.id,
    templateId: template.id,
    title: `${workflowType} sale`,
    workflowType,
    recipients: [
      ...names.map((roleName, index) => ({
        roleName,
        fullName: `${roleName} Person`,
        email: `${roleName.toLowerCase()}@example.com`,
        deliveryChannel: 'ManualLink' as const,
        signingOrder: orders[index],
      })),
      {
        roleName: 'Buyer',
        fullName: 'Buyer Lawyer',
        email: 'lawyer@example.com',
        type: 'Cc' as const,
        signingOrder: 1,
      },
    ],
  });
  const { recipients } = await findEnvelope(ctx, organization.id, envelope.id);
  const byName = (name: string) => recipients.find((r) => r.fullName === name)?.id as string;
  const statuses = async () =>
    Object.fromEntries(
      (await findEnvelope(ctx, organization.id, envelope.id)).recipients.map((r) => [r.fullName, r.status]),
    );
  return { organizationId: organization.id, envelopeId: envelope.id, byName, statuses };
}

describe('Parallel and GroupedRounds', () => {
  it('Parallel: everyone may act at once; completes when every required signer has, without the optional one', async () => {
    const e = await fourRoleEnvelope('Parallel', [1, 1, 1, 1]);
    const sent = await sendEnvelope(ctx, e.organizationId, e.envelopeId);
    expect(sent.recipients.map((r) => r.status)).toEqual([
      'Pending',
      'Pending',
      'Pending',
      'Pending',
      'Pending',
    ]);
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Notary Person'))).status,
    ).toBe('InProgress');
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Seller Person'))).status,
    ).toBe('InProgress');
    await expect(
      completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Buyer Lawyer')),
    ).rejects.toThrow(/Cc recipient/);
    const done = await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Buyer Person'));
    expect(done.status).toBe('ProcessingFinalPdf');
    expect((await ctx.temporal.workflow.getHandle(envelopeWorkflowId(e.envelopeId)).result()).status).toBe(
      'Completed',
    );
    expect(await e.statuses()).toEqual({
      'Buyer Person': 'Completed',
      'Seller Person': 'Completed',
      'Witness Person': 'Pending',
      'Notary Person': 'Completed',
      'Buyer Lawyer': 'Pending',
    });
  });

  it('GroupedRounds: equal signing orders act together; the next round waits for the required ones', async () => {
    // Round 1: Buyer and Seller; round 2: Witness (optional) and Notary.
    const e = await fourRoleEnvelope('GroupedRounds', [1, 1, 2, 2]);
    await sendEnvelope(ctx, e.organizationId, e.envelopeId);
    expect(await e.statuses()).toEqual({
      'Buyer Person': 'Pending',
      'Seller Person': 'Pending',
      'Witness Person': 'WaitingForTurn',
      'Notary Person': 'WaitingForTurn',
      'Buyer Lawyer': 'Pending',
    });
    await expect(
      completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Notary Person')),
    ).rejects.toThrow(/not yet in turn/);
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Seller Person'))).status,
    ).toBe('InProgress');
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Buyer Person'))).status,
    ).toBe('WaitingForNextSigner');
    expect(await e.statuses()).toMatchObject({ 'Witness Person': 'Pending', 'Notary Person': 'Pending' });
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Witness Person'))).status,
    ).toBe('InProgress');
    expect(
      (await completeRecipient(ctx, e.organizationId, e.envelopeId, e.byName('Notary Person'))).status,
    ).toBe('ProcessingFinalPdf');
    expect((await ctx.temporal.workflow.getHandle(envelopeWorkflowId(e.envelopeId)).result()).status).toBe(
      'Completed',
    );
  });
});

describe('finalization', () => {
  it('refuses cancel, remind and extend while finalizing or failed, and an operator retry finishes it', async () => {
    const { organizationId, envelopeId, envelope, first, second } = await draftEnvelope();
    // A source PDF that no longer parses: rendering fails for good, without retries.
    const template = await ctx.orm.em.fork().findOneOrFail(Template, { id: envelope.templateId as string });
    const restore = await replaceStoredBytes(ctx, template.fileId, Buffer.from('%PDF-1.7 broken'));

    await sendEnvelope(ctx, organizationId, envelopeId);
    await completeRecipient(ctx, organizationId, envelopeId, first.id);
    await completeRecipient(ctx, organizationId, envelopeId, second.id);
    const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId));
    await expect
      .poll(async () => (await findEnvelope(ctx, organizationId, envelopeId)).envelope.status)
      .toBe('FinalPdfFailed');
    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
    expect(events.at(-1)?.type).toBe('envelope.final_pdf_failed');
    expect(String(events.at(-1)?.data.reason)).not.toBe('');

    await expect(cancelEnvelope(ctx, organizationId, envelopeId)).rejects.toThrow(/FinalPdfFailed/);
    await expect(remindEnvelope(ctx, organizationId, envelopeId)).rejects.toThrow(/FinalPdfFailed/);
    await expect(
      extendEnvelope(ctx, organizationId, envelopeId, {
        expiresAt: new Date(Date.now() + 9e10).toISOString(),
      }),
    ).rejects.toThrow(/FinalPdfFailed/);

    await restore();
    const retried = await retryFinalization(ctx, organizationId, envelopeId);
    expect(retried.status).toBe('ProcessingFinalPdf');
    expect((await handle.result()).status).toBe('Completed');
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.finalPdfFileId).not.toBeNull();
    expect(await auditTypes(envelopeId)).toEqual([
      'envelope.sent',
      'recipient.completed',
      'recipient.completed',
      'envelope.final_pdf_failed',
      'envelope.final_pdf_retried',
      'envelope.completed',
      'document.final_pdf_ready',
    ]);
    await expect(retryFinalization(ctx, organizationId, envelopeId)).rejects.toThrow(/Completed/);
  });
});
