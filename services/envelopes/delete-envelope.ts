// POST /api/documents/{id}/delete: the envelope is hidden at once (every application route answers 404 for it,
// and it is in no list); its rows stay, and the daily retention run purges its files once the organization's
// `retention.deletedDays` have passed since now (docs/envelope-lifecycle.md, "Retention"). A finished or
// archived envelope may be deleted, and a Draft that was never sent; a running envelope is cancelled first
// (409 `envelope_in_progress`).
//
// A Draft whose send began (its workflow id is recorded before the workflow starts) is asked of Temporal while
// the row is locked: if the workflow exists the envelope is being sent (409 `envelope_in_progress`); if not,
// the send was interrupted before it started anything, and the Draft is deleted. A send that resumes later
// finds the row Deleted under the same lock (send-envelope.ts) and starts nothing. Such a Draft gives back what its
// send reserved (docs/billing.md, "Limits under concurrency").
import { WorkflowNotFoundError } from '@temporalio/client';
import { purgeAfter } from '../../db/envelope-records.ts';
import { releaseEnvelopeCredits } from '../../db/usage-reservations.ts';
import type { DocumentLifecycleView } from '../../domain/document-lifecycle-view.ts';
import { temporalTimeoutMs, withTemporalDeadline } from '../../temporal/deadline.ts';
import type { ServiceContext } from '../context.ts';
import type { DocumentReader } from '../documents/document-reader.ts';
import { Conflict } from '../errors.ts';
import { changeEnvelopeRecord } from './envelope-record-change.ts';

export function deleteEnvelope(
  ctx: ServiceContext,
  reader: DocumentReader,
  envelopeId: string,
): Promise<DocumentLifecycleView> {
  return changeEnvelopeRecord(ctx, reader, envelopeId, {
    trigger: 'delete',
    event: 'envelope.deleted',
    async apply(envelope, now, tx, deletedDays) {
      if (envelope.status === 'Draft' && envelope.workflowId) {
        const workflowId = envelope.workflowId;
        const started = await withTemporalDeadline(
          ctx.temporal,
          temporalTimeoutMs(ctx.config),
          `looking for the workflow of envelope ${envelope.id}`,
          () =>
            ctx.temporal.workflow
              .getHandle(workflowId)
              .describe()
              .then(
                () => true,
                (error: unknown) => {
                  if (error instanceof WorkflowNotFoundError) return false;
                  throw error;
                },
              ),
        );
        if (started) {
          throw new Conflict(
            'The envelope is being sent: once it shows as Sent, cancel it first.',
            [{ field: 'status', message: envelope.status }],
            'envelope_in_progress',
          );
        }
      }
      // A Draft never sent gives back what an interrupted send reserved: its document and its text credits.
      if (envelope.status === 'Draft' && envelope.workflowId) {
        envelope.countedAt = envelope.sentAt ? envelope.countedAt : null;
        await releaseEnvelopeCredits(tx, envelope.id);
      }
      const previous = envelope.status === 'Archived' ? envelope.previousStatus : envelope.status;
      envelope.previousStatus = previous;
      envelope.status = 'Deleted';
      envelope.deletedAt = now;
      return { previous_status: previous, purge_after: purgeAfter(now, deletedDays).toISOString() };
    },
  });
}
