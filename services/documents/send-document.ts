// The send page's creations (docs/documents.md, "Sending"): an envelope from a published template or from a
// one-off PDF, made by the creation services /api/v1 uses (createEnvelope, createEnvelopeFromFile) with the
// signed-in user and their team as its sender — which the documents list's visibility reads — then sent at
// once unless the request keeps it a Draft. The answer is the envelope as its page shows it.
import type {
  SendDefaults,
  SendFileView,
  SendFromFileRequest,
  SendFromTemplateRequest,
} from '../../domain/sending.ts';
import { TEMPLATE_LIMITS } from '../../domain/template-builder.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import {
  type CreatedEnvelope,
  type CreateOptions,
  createEnvelopeFromFileWithRecipients,
  createEnvelopeWithRecipients,
  DEFAULT_EXPIRATION_DAYS,
  type EnvelopeSender,
} from '../envelopes/create-envelope.ts';
import { organizationDeadlineSettings } from '../envelopes/deadline-settings.ts';
import { sendEnvelope, sendLoadedEnvelope } from '../envelopes/send-envelope.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { addStoredPdf } from '../files/upload-file.ts';
import { reserveSendWithin } from '../usage/send-reservation.ts';
import { documentReaderOf } from './document-reader.ts';
import { getDocument } from './get-document.ts';

function senderOf(principal: SessionPrincipal): EnvelopeSender {
  return { userId: principal.user.id, teamId: principal.user.teamId ?? null };
}

/**
 * Creates the envelope (`create`), sends it unless `draft`, and answers it as GET /api/documents/{id}. The
 * signed-in user's organization is handed down, and a send is reserved (one of the plan's monthly documents,
 * the credits of its first text messages: send-reservation.ts) in the transaction that writes the Draft, so a
 * send the plan cannot take makes no Draft, and the send then starts the workflow of what was written without
 * reading or checking it again.
 */
async function createAndSend(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  draft: boolean | undefined,
  create: (options: CreateOptions) => Promise<CreatedEnvelope>,
) {
  const { organization } = principal;
  const reader = documentReaderOf(principal);
  if (draft) return getDocument(ctx, reader, (await create({ organization })).envelope.id);
  const created = await create({
    organization,
    inTransaction: (tx, written) =>
      reserveSendWithin(
        tx,
        written,
        written.recipients,
        envelopeWorkflowId(written.id),
        'send this envelope',
        {
          written: true,
        },
      ),
  });
  // A retry of an Idempotency-Key request whose first attempt created the envelope finds it (createDraft) and
  // sends it as any other Draft, read again; sending a sent envelope again answers with its state.
  if (created.earlier) await sendEnvelope(ctx, organization.id, created.envelope.id);
  else await sendLoadedEnvelope(ctx, { ...created, organization, reserved: true });
  return getDocument(ctx, reader, created.envelope.id);
}

export function sendFromTemplate(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  request: SendFromTemplateRequest,
) {
  const { draft, ...envelope } = request;
  return createAndSend(ctx, principal, draft, (options) =>
    createEnvelopeWithRecipients(
      ctx,
      { ...envelope, organizationId: principal.organization.id },
      senderOf(principal),
      options,
    ),
  );
}

export function sendFromFile(ctx: ServiceContext, principal: SessionPrincipal, request: SendFromFileRequest) {
  const { draft, ...envelope } = request;
  return createAndSend(ctx, principal, draft, (options) =>
    createEnvelopeFromFileWithRecipients(
      ctx,
      { ...envelope, organizationId: principal.organization.id },
      senderOf(principal),
      options,
    ),
  );
}

/** Stores a one-off PDF of the organization, checked as every stored PDF is; its id goes in SendFromFileRequest. */
export async function uploadSendFile(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  request: { filename?: string | undefined; pdfBase64: string },
): Promise<SendFileView> {
  const bytes = new Uint8Array(Buffer.from(request.pdfBase64, 'base64'));
  const pdf = await inspectPdf(bytes, {
    maxBytes: TEMPLATE_LIMITS.pdfBytes,
    field: 'body.pdfBase64',
    client: organizationClient(principal.organization.id),
  });
  const file = await addStoredPdf(ctx.files, ctx.em, {
    organizationId: principal.organization.id,
    filename: request.filename,
    bytes,
    pdf,
  });
  await ctx.em.flush();
  return { fileId: file.id, filename: file.filename, pageCount: pdf.pageCount, pages: pdf.pages };
}

/** The organization's settings the send page prefills: the deadline, the authentication and the languages. */
export function sendDefaults(principal: SessionPrincipal): SendDefaults {
  const { organization } = principal;
  return {
    expirationDays: organization.defaultExpirationDays ?? DEFAULT_EXPIRATION_DAYS,
    authenticationMethod: organization.defaultAuthenticationMethod as SendDefaults['authenticationMethod'],
    languages: [...organization.supportedLanguages],
    deadlineSettings: organizationDeadlineSettings(organization),
  };
}
