// The final PDF or the audit trail of an organization's envelope; "not found" until it exists.
import { StoredFile } from '../../../db/entities/index.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { findEnvelope } from './find-envelope.ts';

export type EnvelopeDocument = 'final-pdf' | 'audit-trail';

const DOCUMENTS = {
  'final-pdf': { column: 'finalPdfFileId', what: 'final PDF' },
  'audit-trail': { column: 'auditTrailFileId', what: 'audit trail' },
} as const;

export async function envelopeDocument(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  document: EnvelopeDocument,
): Promise<Uint8Array> {
  const { column, what } = DOCUMENTS[document];
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  const fileId = envelope[column];
  const file = fileId
    ? await ctx.em.findOne(StoredFile, { id: fileId, organizationId }, { populate: ['content'] })
    : null;
  if (!file)
    throw new NotFound(`The ${what} of envelope ${envelope.id} is not ready (status ${envelope.status}).`);
  return file.content;
}
