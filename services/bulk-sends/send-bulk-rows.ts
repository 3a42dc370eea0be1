// The work of a bulk send's workflow (activities/bulk-send.ts): each row's envelope created and sent as the
// send page would — created by the run's sender, from the request its row was checked as — and the row marked.
// Exactly once per row: the envelope's id is written on the row in the transaction that creates it, so a retry
// after a crash finds it and only sends it (a send of a sent envelope answers with its state). A row the service
// refuses when its turn comes (the template archived meanwhile, credits used up by other envelopes) is marked
// Failed with the refusal's message; an envelope created and then refused stays a Draft. Anything else — the
// database or Temporal unreachable — is thrown, and the activity's retry continues with the rows not done.

import {
  type BulkSendRowRecord,
  bulkSendForWork,
  countRowsToSend,
  finishRow,
  recordRowEnvelope,
  rowsToSend,
} from '../../db/bulk-sends.ts';
import { Envelope } from '../../db/entities/index.ts';
import type { BulkSendPage, BulkSendPageRequest } from '../../workflows/bulk-send-contracts.ts';
import type { ServiceContext } from '../context.ts';
import { type CreateEnvelopeInput, createEnvelope } from '../envelopes/create-envelope.ts';
import { sendEnvelope } from '../envelopes/send-envelope.ts';
import { AppError } from '../errors.ts';

/** Another attempt recorded an envelope for the row first: this one's creation is rolled back. */
class RowTaken extends Error {}

/** A refusal that is the row's outcome rather than a reason to try again (a 4xx of the services). */
function refusal(error: unknown): string | undefined {
  return error instanceof AppError && error.status < 500 ? error.message : undefined;
}

/**
 * Sends the next `limit` rows of the run, `concurrency` at a time, each with its own unit of work (`context()`
 * makes one). `onRow` is called after each row (the activity heartbeats there).
 */
export async function sendBulkRows(
  context: () => ServiceContext,
  request: BulkSendPageRequest,
  onRow: () => void = () => {},
): Promise<BulkSendPage> {
  const { em } = context();
  const run = await bulkSendForWork(em, request.bulkSendId);
  if (run?.status !== 'Running') return { sent: 0, failed: 0, remaining: 0 };
  const rows = await rowsToSend(em, run.id, request.limit);
  const page = { sent: 0, failed: 0 };
  let next = 0;
  const lane = async () => {
    while (next < rows.length) {
      const row = rows[next++] as BulkSendRowRecord;
      const outcome = await sendRow(context(), run, row);
      if (outcome) page[outcome] += 1;
      onRow();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, request.concurrency) }, lane));
  return { ...page, remaining: await countRowsToSend(em, run.id) };
}

async function sendRow(
  ctx: ServiceContext,
  run: { id: string; organization_id: string; created_by_user_id: string | null; team_id: string | null },
  row: BulkSendRowRecord,
): Promise<'sent' | 'failed' | null> {
  const at = { bulkSendId: run.id, row: row.row_number };
  let envelopeId = row.envelope_id;
  if (!envelopeId) {
    try {
      const input = { ...row.request, organizationId: run.organization_id } as CreateEnvelopeInput;
      const sender = run.created_by_user_id
        ? { userId: run.created_by_user_id, teamId: run.team_id }
        : undefined;
      const envelope = await createEnvelope(ctx, input, sender, {
        inTransaction: async (tx, created) => {
          if (!(await recordRowEnvelope(tx, at, created.id))) throw new RowTaken();
        },
      });
      envelopeId = envelope.id;
    } catch (error) {
      // Another attempt (one Temporal gave up on that is still running) has the row: it sends and counts it.
      if (error instanceof RowTaken) return null;
      const message = refusal(error);
      if (message === undefined) throw error;
      await finishRow(ctx.em, at, { status: 'Failed', error: message });
      return 'failed';
    }
  }
  // A retry after a crash between sending and marking the row: the envelope left Draft already.
  const envelope = await ctx.em.findOne(Envelope, { id: envelopeId }, { fields: ['status'] });
  if (envelope?.status === 'Draft') {
    try {
      await sendEnvelope(ctx, run.organization_id, envelopeId);
    } catch (error) {
      const message = refusal(error);
      if (message === undefined) throw error;
      await finishRow(ctx.em, at, {
        status: 'Failed',
        error: `${message} The envelope was created and stays a Draft.`,
      });
      return 'failed';
    }
  }
  await finishRow(ctx.em, at, { status: 'Sent' });
  return 'sent';
}
