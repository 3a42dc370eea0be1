// POST /api/documents/{id}/settings: the envelope page changes an envelope's reminder and deadline settings
// (a draft's in place, an open one's by its workflow: services/envelopes/update-envelope-settings.ts), for a
// reader who manages it; the page's view answers.
import type { DocumentDetail } from '../../domain/document.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelopeSettings } from '../envelopes/update-envelope-settings.ts';
import { type DocumentReader, findVisibleEnvelope } from './document-reader.ts';
import { getDocument } from './get-document.ts';

export async function updateDocumentSettings(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  settings: unknown,
): Promise<DocumentDetail> {
  await findVisibleEnvelope(ctx, reader, id);
  await updateEnvelopeSettings(ctx, reader.organizationId, id, settings);
  return getDocument(ctx, reader, id);
}
