// What a user does to an envelope from its page (docs/documents.md, "Actions"): send, remind, cancel, extend,
// retry the final PDF, and get a fresh signing link for a recipient whose link the sender hands over. Each is the
// envelope service the public API and the CLI use (services/envelopes/, services/signing/), called once
// the envelope is found among those the user sees; so the rules, the workflow's refusals (409 with its reason) and
// the 503 of an unreachable Temporal are theirs. One file for the six: each is the same two steps.
//
// Archive and delete: a slot of their own, built separately (see docs/documents.md).
import type { DocumentDetail, SigningLinkView } from '../../domain/document.ts';
import type { ExtendEnvelopeRequest } from '../../domain/envelope.ts';
import type { ServiceContext } from '../context.ts';
import { cancelEnvelope } from '../envelopes/cancel-envelope.ts';
import { correctRecipient } from '../envelopes/correct-recipient.ts';
import { extendEnvelope } from '../envelopes/extend-envelope.ts';
import { remindEnvelope } from '../envelopes/remind-envelope.ts';
import { remindRecipient } from '../envelopes/remind-recipient.ts';
import { retryFinalization } from '../envelopes/retry-finalization.ts';
import { sendEnvelope } from '../envelopes/send-envelope.ts';
import { issueRecipientSigningLink } from '../signing/issue-signing-links.ts';
import { type DocumentReader, findVisibleEnvelope } from './document-reader.ts';
import { getDocument } from './get-document.ts';

/** Sends a Draft: its workflow starts and the first round is invited. */
export async function sendDocument(ctx: ServiceContext, reader: DocumentReader, id: string) {
  await findVisibleEnvelope(ctx, reader, id);
  await sendEnvelope(ctx, reader.organizationId, id);
  return getDocument(ctx, reader, id);
}

/** Reminds the recipients who may act now. */
export async function remindDocument(ctx: ServiceContext, reader: DocumentReader, id: string) {
  await findVisibleEnvelope(ctx, reader, id);
  await remindEnvelope(ctx, reader.organizationId, id);
  return getDocument(ctx, reader, id);
}

/** Reminds one recipient who may act now. */
export async function remindDocumentRecipient(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  recipientId: string,
) {
  await findVisibleEnvelope(ctx, reader, id);
  await remindRecipient(ctx, reader.organizationId, id, recipientId);
  return getDocument(ctx, reader, id);
}

/** Corrects a recipient who has not completed (the correction: CorrectRecipientRequest's fields). */
export async function correctDocumentRecipient(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  recipientId: string,
  correction: Record<string, unknown>,
) {
  await findVisibleEnvelope(ctx, reader, id);
  await correctRecipient(ctx, reader.organizationId, id, recipientId, correction);
  return getDocument(ctx, reader, id);
}

/** Cancels an envelope in progress, with an optional reason. */
export async function cancelDocument(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  reason: string | undefined,
): Promise<DocumentDetail> {
  await findVisibleEnvelope(ctx, reader, id);
  await cancelEnvelope(ctx, reader.organizationId, id, reason, reader.userId);
  return getDocument(ctx, reader, id);
}

/** Moves the deadline later (a Draft's in place; a sent one's, or an Expired one's in its grace window, by the workflow). */
export async function extendDocument(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  request: ExtendEnvelopeRequest,
): Promise<DocumentDetail> {
  await findVisibleEnvelope(ctx, reader, id);
  await extendEnvelope(ctx, reader.organizationId, id, request);
  return getDocument(ctx, reader, id);
}

/** Renders the final PDF again after FinalPdfFailed; the audit trail names the sender. */
export async function retryDocumentFinalPdf(ctx: ServiceContext, reader: DocumentReader, id: string) {
  await findVisibleEnvelope(ctx, reader, id);
  await retryFinalization(ctx, reader.organizationId, id, 'sender');
  return getDocument(ctx, reader, id);
}

/** A fresh signing link for a ManualLink or Api recipient; their earlier links stop working. */
export async function issueDocumentSigningLink(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
  recipientId: string,
): Promise<SigningLinkView> {
  await findVisibleEnvelope(ctx, reader, id);
  const link = await issueRecipientSigningLink(ctx, reader.organizationId, id, recipientId);
  return { recipientId: link.recipientId, fullName: link.fullName, url: link.url };
}
