// Continue-as-new on the real dev server: with a low history threshold an envelope passes through several
// runs of the same workflow id, and keeps its state, its reminders and an exactly-once projection — and its
// workflow task timeout (workflows/contracts.ts ENVELOPE_WORKFLOW_TASK_TIMEOUT), set at the start.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../db/entities/index.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import {
  ENVELOPE_WORKFLOW_TASK_TIMEOUT,
  envelopeWorkflowId,
  recipientProgressUpdate,
  searchAttributes,
} from '../../workflows/contracts.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext } from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const ENVELOPE_WORKFLOW_TASK_TIMEOUT_MS = msToNumber(ENVELOPE_WORKFLOW_TASK_TIMEOUT);

/** The run's workflow task timeout as Temporal recorded it, in ms. */
function taskTimeoutMs(description: WorkflowExecutionDescription): number {
  const timeout = description.raw.executionConfig?.defaultWorkflowTaskTimeout;
  return Number(timeout?.seconds ?? 0) * 1000 + Math.floor((timeout?.nanos ?? 0) / 1_000_000);
}

async function runIds(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const execution of ctx.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs.push(execution.runId);
  }
  return runs;
}

describe('continue-as-new', () => {
  it('hands an envelope over to new runs without losing or repeating anything, then completes it', async () => {
    const { organizationId, envelopeId, first, second } = await draftTwoSignerEnvelope(ctx, {
      externalReference: 'PO-can-1',
    });
    const workflowId = envelopeWorkflowId(envelopeId);
    await sendEnvelope(ctx, organizationId, envelopeId, { continueAsNewAtHistoryLength: 30 });
    const handle = ctx.temporal.workflow.getHandle(workflowId);
    const firstDescription = await handle.describe();
    const firstRun = firstDescription.runId;
    // Started with the envelope's workflow task timeout (a task held by a dead worker blocks it 5 s, not 10 s).
    expect(taskTimeoutMs(firstDescription)).toBe(ENVELOPE_WORKFLOW_TASK_TIMEOUT_MS);

    let deadline = Date.now() + 40 * DAY_MS;
    for (let i = 0; i < 6; i += 1) {
      await remindEnvelope(ctx, organizationId, envelopeId);
      deadline += DAY_MS;
      await extendEnvelope(ctx, organizationId, envelopeId, { expiresAt: new Date(deadline).toISOString() });
    }
    await handle.executeUpdate(recipientProgressUpdate, {
      args: [{ recipientId: first.id, step: 'started' }],
    });
    const afterFirst = await completeRecipient(ctx, organizationId, envelopeId, first.id);
    expect(afterFirst.status).toBe('WaitingForNextSigner');

    // Several runs by now, each started by the previous one, all under the envelope's workflow id.
    const describeNow = await handle.describe();
    expect(describeNow.runId).not.toBe(firstRun);
    // Each new run carries the workflow task timeout over.
    expect(taskTimeoutMs(describeNow)).toBe(ENVELOPE_WORKFLOW_TASK_TIMEOUT_MS);
    expect((await runIds(workflowId)).length).toBeGreaterThanOrEqual(3);

    // A repeated send reaches the current run and changes nothing.
    const resent = await sendEnvelope(ctx, organizationId, envelopeId);
    expect(resent.status).toBe('WaitingForNextSigner');
    expect(resent.recipients).toEqual([
      { id: first.id, status: 'Completed' },
      { id: second.id, status: 'Pending' },
    ]);

    const done = await completeRecipient(ctx, organizationId, envelopeId, second.id);
    expect(done.status).toBe('ProcessingFinalPdf');
    const result = await ctx.temporal.workflow.getHandle(workflowId).result();
    expect(result.status).toBe('Completed');

    // Exactly one audit row per decided transition, numbered without gaps or repeats across the runs.
    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'envelope.sent')).toHaveLength(1);
    expect(types.filter((t) => t === 'envelope.reminded')).toHaveLength(6);
    expect(types.filter((t) => t === 'envelope.extended')).toHaveLength(6);
    expect(types.slice(-4)).toEqual([
      'recipient.completed',
      'recipient.completed',
      'envelope.completed',
      'document.final_pdf_ready',
    ]);
    const row = await findEnvelope(ctx, organizationId, envelopeId);
    expect(row.envelope.status).toBe('Completed');
    expect(row.envelope.reminderCount).toBe(6);
    expect(row.envelope.expiresAt?.getTime()).toBe(deadline);
    expect(row.envelope.finalPdfFileId).toBeTruthy();
    // The last run kept the status search attribute current.
    const attributes = (await handle.describe()).typedSearchAttributes;
    expect(attributes.get(searchAttributes.envelopeStatus)).toBe('Completed');
    expect(attributes.get(searchAttributes.externalReference)).toBe('PO-can-1');
  });
});
