// POST /api/documents/{id}/archive: a finished envelope (Completed, Declined, Cancelled, Expired) leaves the
// active views; everything of it is kept, for the retention period and for reports. A running envelope is
// cancelled first (409 `envelope_in_progress`).
import type { DocumentLifecycleView } from '../../domain/document-lifecycle-view.ts';
import type { DataContext } from '../context.ts';
import type { DocumentReader } from '../documents/document-reader.ts';
import { changeEnvelopeRecord } from './envelope-record-change.ts';

export function archiveEnvelope(
  ctx: DataContext,
  reader: DocumentReader,
  envelopeId: string,
): Promise<DocumentLifecycleView> {
  return changeEnvelopeRecord(ctx, reader, envelopeId, {
    trigger: 'archive',
    event: 'envelope.archived',
    apply(envelope, now) {
      const previous = envelope.status;
      envelope.previousStatus = previous;
      envelope.status = 'Archived';
      envelope.archivedAt = now;
      return { previous_status: previous };
    },
  });
}
