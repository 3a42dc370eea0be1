// The document as a signer sees it: the base PDF with the initial values and the values of recipients who
// already completed. A ready and (for OTP) authenticated recipient only; the first load records
// `recipient.viewed` (a Viewer may complete only after it).
import {
  EnvelopeFieldValue,
  Recipient,
  StoredFile,
  Template,
  TemplateField,
} from '../../db/entities/index.ts';
import { storedFileLoader } from '../../db/stored-files.ts';
import { finalPdfValues, placedFields } from '../../pdf/field-values.ts';
import { documentLanguage } from '../../pdf/i18n.ts';
import { renderFinalPdf } from '../../pdf/render-final-pdf.ts';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { DataContext, FilesContext, ServiceContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { storedFileBytes } from '../files/stored-file-bytes.ts';
import { recordSignerProgress } from './signer-progress.ts';
import { openSigningSession, requireActing, type SigningSession } from './signing-session.ts';

export async function openSigningDocument(
  ctx: ServiceContext,
  token: string,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<Uint8Array> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'show the document');
  const pdf = await signingDocument(ctx, session);
  await recordSignerProgress(ctx, session, 'viewed', origin);
  return pdf;
}

/** The document with the values drawn so far: initial values and those of recipients who completed. */
export async function signingDocument(
  ctx: DataContext & FilesContext,
  session: SigningSession,
): Promise<Uint8Array> {
  const { envelope } = session;
  const { em } = ctx;
  if (!envelope.templateId) throw new InvalidRequest('This envelope has no document.');
  const template = await em.findOneOrFail(Template, { id: envelope.templateId });
  const [source, fields, values] = await Promise.all([
    em.findOneOrFail(StoredFile, { id: template.fileId }),
    em.find(TemplateField, { templateId: template.id }, { orderBy: { position: 'asc' } }),
    drawnValues(ctx, envelope.id),
  ]);
  const drawn = await finalPdfValues(
    fields,
    fields.map((field) => values.get(field.id)),
    storedFileLoader(em, ctx.files, envelope.organizationId),
  );
  return renderFinalPdf({
    basePdf: await storedFileBytes(ctx.files, source),
    envelopeId: envelope.id,
    completedAt: new Date(),
    fields: placedFields(fields, drawn),
    language: documentLanguage(session.organization.defaultLanguage),
  });
}

/** Initial values and the values of recipients who completed, by field id. */
async function drawnValues(ctx: DataContext, envelopeId: string): Promise<Map<string, unknown>> {
  const [values, completed] = await Promise.all([
    ctx.em.find(EnvelopeFieldValue, { envelopeId }),
    ctx.em.find(Recipient, { envelopeId, status: 'Completed' }),
  ]);
  const done = new Set(completed.map((recipient) => recipient.id));
  return new Map(
    values
      .filter((v) => v.source === 'initial' || (v.recipientId != null && done.has(v.recipientId)))
      .map((value) => [value.fieldId, value.value]),
  );
}
