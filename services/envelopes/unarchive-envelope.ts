// POST /api/documents/{id}/unarchive: an archived envelope returns to the active views with the status it had
// before it was archived.
import type { DocumentLifecycleView } from '../../domain/document-lifecycle-view.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';
import type { DocumentReader } from '../documents/document-reader.ts';
import { changeEnvelopeRecord } from './envelope-record-change.ts';

export function unarchiveEnvelope(
  ctx: DataContext,
  reader: DocumentReader,
  envelopeId: string,
): Promise<DocumentLifecycleView> {
  return changeEnvelopeRecord(ctx, reader, envelopeId, {
    trigger: 'unarchive',
    event: 'envelope.unarchived',
    apply(envelope) {
      // Every archived envelope has one (a check of migration 0019).
      const restored = envelope.previousStatus as EnvelopeStatus;
      envelope.status = restored;
      envelope.previousStatus = null;
      envelope.archivedAt = null;
      return { status: restored };
    },
  });
}
