// The documents of an organization's envelope as files: the final PDF and the audit trail ("not found" until
// they exist), and the source, the PDF it was made from (its uploaded file, or its template's PDF): the business
// app's download and /api/v1's `documents/original`. The bytes stream from the storage port, verified by SHA-256
// as they flow (a mismatch cuts the answer off: corrupt bytes never arrive as a whole file), never gathered whole.
import type { Readable } from 'node:stream';
import { type Envelope, StoredFile, Template } from '../../db/entities/index.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { storedFileStream } from '../files/stored-file-bytes.ts';
import { findEnvelope } from './find-envelope.ts';

export type EnvelopeDocument = 'final-pdf' | 'audit-trail';
/** Every document of an envelope that can be downloaded. */
export type EnvelopeFileKind = EnvelopeDocument | 'source';

const DOCUMENTS = {
  'final-pdf': { column: 'finalPdfFileId', what: 'final PDF' },
  'audit-trail': { column: 'auditTrailFileId', what: 'audit trail' },
} as const;

/** A document's bytes as a verified stream, with their size and SHA-256 (the stored file's). */
export interface DocumentContent {
  content: Readable;
  sizeBytes: number;
  sha256: string;
}

type Context = DataContext & FilesContext;

export async function envelopeDocument(
  ctx: Context,
  organizationId: string,
  envelopeId: string,
  document: EnvelopeDocument,
): Promise<DocumentContent> {
  return envelopeFile(ctx, organizationId, envelopeId, document);
}

/** A document of the envelope with the envelope it belongs to; "not found" when it does not exist (yet). */
export async function envelopeFile(
  ctx: Context,
  organizationId: string,
  envelopeId: string,
  kind: EnvelopeFileKind,
): Promise<DocumentContent & { envelope: Envelope }> {
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  const fileId = kind === 'source' ? await sourceFileIdOf(ctx, envelope) : envelope[DOCUMENTS[kind].column];
  return { envelope, ...(await storedDocument(ctx, envelope, fileId, kind)) };
}

/**
 * The PDF an envelope was made from — for the sandbox's synthetic envelopes too, which are made from the
 * organization's real template or upload.
 */
export async function sourceDocument(
  ctx: Context,
  envelope: Pick<Envelope, 'id' | 'status' | 'organizationId' | 'sourceFileId' | 'templateId'>,
): Promise<DocumentContent> {
  return storedDocument(ctx, envelope, await sourceFileIdOf(ctx, envelope), 'source');
}

async function storedDocument(
  ctx: Context,
  envelope: Pick<Envelope, 'id' | 'status' | 'organizationId'>,
  fileId: string | null | undefined,
  kind: EnvelopeFileKind,
): Promise<DocumentContent> {
  const organizationId = envelope.organizationId;
  const file = fileId ? await ctx.em.findOne(StoredFile, { id: fileId, organizationId }) : null;
  if (!file) {
    const what = kind === 'source' ? 'source document' : DOCUMENTS[kind].what;
    throw new NotFound(`The ${what} of envelope ${envelope.id} is not ready (status ${envelope.status}).`);
  }
  if (file.purgedAt) {
    // A deleted envelope's files after the organization's retention (docs/envelope-lifecycle.md).
    throw new NotFound(
      `The files of envelope ${envelope.id} were purged on ${file.purgedAt.toISOString()}: it was deleted and ` +
        "the organization's retention period has passed.",
    );
  }
  return { content: await storedFileStream(ctx.files, file), sizeBytes: file.sizeBytes, sha256: file.sha256 };
}

/** The uploaded file an envelope was created from, or its template's PDF. */
async function sourceFileIdOf(
  ctx: DataContext,
  envelope: Pick<Envelope, 'sourceFileId' | 'templateId' | 'organizationId'>,
): Promise<string | null> {
  if (envelope.sourceFileId) return envelope.sourceFileId;
  if (!envelope.templateId) return null;
  const template = await ctx.em.findOne(Template, {
    id: envelope.templateId,
    organizationId: envelope.organizationId,
  });
  return template?.fileId ?? null;
}
