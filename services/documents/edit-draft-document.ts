// Editing a Draft from the business app (docs/documents.md, "Editing a draft"): the edit page reads the Draft
// as its create took it (draftDocument) and saves the changes through the public API's edit
// (services/envelopes/update-draft.ts: the same checks and refusals), once the envelope is found among those
// the user sees (another's, or an unknown id, is 404).
import type { DocumentDetail } from '../../domain/document.ts';
import { DraftDocument, type EditDraftRequest } from '../../domain/sending.ts';
import type { ServiceContext } from '../context.ts';
import { envelopeView } from '../envelopes/envelope-view.ts';
import { notDraft, updateDraft } from '../envelopes/update-draft.ts';
import { type DocumentReader, findVisibleEnvelope } from './document-reader.ts';
import { getDocument } from './get-document.ts';

/** The Draft `id` as its edit page fills it; 409 `envelope_not_draft` once it is sent or being sent. */
export async function draftDocument(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
): Promise<DraftDocument> {
  const envelope = await findVisibleEnvelope(ctx, reader, id);
  if (envelope.status !== 'Draft' || envelope.workflowId) {
    throw notDraft(id, envelope.status, Boolean(envelope.workflowId));
  }
  // The view's fields the edit page fills, nothing else (a zod object keeps only its own keys).
  return DraftDocument.parse(await envelopeView(ctx, reader.organizationId, id));
}

/** Saves a Draft's edit and answers the envelope as GET /api/documents/{id} does. */
export async function editDraftDocument(
  ctx: ServiceContext,
  reader: DocumentReader,
  request: EditDraftRequest,
): Promise<DocumentDetail> {
  const { id, ...changes } = request;
  await findVisibleEnvelope(ctx, reader, id);
  await updateDraft(ctx, reader.organizationId, id, changes);
  return getDocument(ctx, reader, id);
}
