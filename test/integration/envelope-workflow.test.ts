// The envelope workflow on a real Temporal dev server with the real projection into PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '../../api/errors.ts';
import { cancelEnvelope } from '../../api/services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../api/services/envelopes/complete-recipient.ts';
import { extendEnvelope } from '../../api/services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../api/services/envelopes/find-envelope.ts';
import { remindEnvelope } from '../../api/services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../api/services/envelopes/send-envelope.ts';
import { AuditEvent } from '../../db/entities/index.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import {
  createOrganizationWithTemplate,
  draftTwoSignerEnvelope,
  openTestContext,
  type TestContext,
} from '../support/context.ts';

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

    const afterSecond = await completeRecipient(ctx, organizationId, envelopeId, second.id);
    expect(afterSecond.status).toBe('Completed');
    row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Completed');
    expect(row.envelope.completedAt).toBeInstanceOf(Date);
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Completed']);
    expect(await auditTypes(envelopeId)).toEqual([
      'envelope.sent',
      'recipient.completed',
      'recipient.completed',
      'envelope.completed',
    ]);

    const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId));
    const result = await handle.result();
    expect(result.status).toBe('Completed');
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
