// GET /api/signing/{token}/documents/{final-pdf|audit-trail|original}: a recipient's own copy (issue 32).
// Once the envelope is Completed (archived or not), every recipient's link — Signer, FormFiller, Approver,
// Viewer, Cc — downloads the final PDF and the audit trail, the very files /api/v1 serves (the same use case,
// `envelopeFile`), until the organization deletes the envelope (by hand or by its retention); before
// completion a recipient who may act downloads the original document (the envelope's source PDF, nobody's
// values). Every download is recorded in the envelope's audit log as `document.downloaded` with the recipient,
// the document, its SHA-256 and size, and where the request came from. After completion the link alone is
// enough, for OTP recipients too: nothing is left to act on, a one-time code can no longer be requested, and
// the organization may send the same final PDF to the same address as an attachment.
import type { Readable } from 'node:stream';
import { recordEnvelopeEvent } from '../../db/envelope-records.ts';
import {
  DOCUMENT_DOWNLOADED_EVENT,
  type SigningDocument,
  type SigningDownloads,
} from '../../domain/signing.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { documentFilename } from '../documents/download-document-file.ts';
import { envelopeFile } from '../envelopes/envelope-document.ts';
import { NotFound } from '../errors.ts';
import { openSigningSession, requireAuthenticated, type SigningSession } from './signing-session.ts';

export interface SigningDownload {
  filename: string;
  /** The bytes, streamed from object storage and checked by SHA-256 as they flow. */
  content: Readable;
  sizeBytes: number;
}

/** What the link offers to download now: each document's path, or null (domain/signing.ts). */
export function signingDownloads(session: SigningSession): SigningDownloads {
  const base = `/api/signing/${session.token}/documents`;
  const signed = hasSignedCopy(session.envelope);
  return {
    finalPdf: signed ? `${base}/final-pdf` : null,
    auditTrail: signed ? `${base}/audit-trail` : null,
    original: mayDownloadOriginal(session) ? `${base}/original` : null,
  };
}

export async function downloadSigningDocument(
  ctx: DataContext & FilesContext,
  token: string,
  document: SigningDocument,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningDownload> {
  const session = await openSigningSession(ctx, token, signerSession);
  const { envelope } = session;
  if (document === 'original') {
    if (hasSignedCopy(envelope)) {
      throw new NotFound(
        'This envelope is completed: download the signed document instead (GET /api/signing/{token}/documents/final-pdf), which contains the original.',
      );
    }
    if (!mayAct(session)) {
      throw new NotFound(
        `The original document is offered only while you are asked to act on it; this signing link is ${session.state}.`,
      );
    }
    requireAuthenticated(session, 'download the original document');
  } else if (!hasSignedCopy(envelope)) {
    throw new NotFound(
      `The ${document === 'final-pdf' ? 'signed document' : 'audit trail'} is not available: ${whyNoSignedCopy(session)}`,
    );
  }
  const kind = document === 'original' ? 'source' : document;
  // The same use case as /api/v1's download: a purged file (after the organization's retention) is 404 there too.
  const file = await envelopeFile(ctx, envelope.organizationId, envelope.id, kind);
  await recordDownload(ctx, session, document, file, origin);
  return {
    filename: documentFilename(file.envelope.title, kind),
    content: file.content,
    sizeBytes: file.sizeBytes,
  };
}

/** The envelope is Completed, or was when it was archived, and its final PDF and audit trail are stored. */
function hasSignedCopy(envelope: SigningSession['envelope']): boolean {
  const status: EnvelopeStatus | null | undefined =
    envelope.status === 'Archived' ? envelope.previousStatus : envelope.status;
  return status === 'Completed' && envelope.finalPdfFileId != null && envelope.auditTrailFileId != null;
}

/** A recipient asked to act now (every type but Cc, which only receives copies). */
function mayAct(session: SigningSession): boolean {
  return session.state === 'ready' && session.recipient.type !== 'Cc';
}

function mayDownloadOriginal(session: SigningSession): boolean {
  return mayAct(session) && session.authenticated && !hasSignedCopy(session.envelope);
}

function whyNoSignedCopy(session: SigningSession): string {
  const status = session.envelope.status;
  if (status === 'Deleted') return 'the organization deleted this envelope.';
  if (session.state === 'ready' || session.state === 'not_in_turn')
    return 'the envelope is not completed yet.';
  if (session.state === 'finalizing') return 'the signed document is being prepared; try again shortly.';
  return `this envelope was not completed (it is ${session.state}).`;
}

/**
 * One `document.downloaded` event in the envelope's audit log (a record event, db/envelope-records.ts), under
 * the envelope's row lock like every writer of its audit chain, before the bytes are answered: a download that
 * cannot be recorded is not served.
 */
async function recordDownload(
  ctx: DataContext,
  session: SigningSession,
  document: SigningDocument,
  file: { sha256: string; sizeBytes: number },
  origin: SignerActionOrigin,
): Promise<void> {
  const { envelope, recipient } = session;
  // The stored file's SHA-256 and size: the bytes served are checked against them as they stream.
  const { sha256 } = file;
  await ctx.em.transactional(async (tx) => {
    await tx.execute('select id from envelope where id = ? for update', [envelope.id]);
    await recordEnvelopeEvent(tx, {
      envelopeId: envelope.id,
      organizationId: envelope.organizationId,
      type: DOCUMENT_DOWNLOADED_EVENT,
      recipientId: recipient.id,
      occurredAt: new Date(),
      data: {
        document,
        sha256,
        size_bytes: file.sizeBytes,
        ip: origin.ip,
        ...(origin.userAgent ? { user_agent: origin.userAgent } : {}),
      },
    });
  });
}
