// GET /api/documents/{id}/files/{source|final-pdf|audit-trail}: a document of an envelope the user sees, as a
// PDF named after the envelope's title. The final PDF and the audit trail are "not found" until they exist.

import type { Readable } from 'node:stream';
import type { DataContext, FilesContext } from '../context.ts';
import { type EnvelopeFileKind, envelopeFile } from '../envelopes/envelope-document.ts';
import { type DocumentReader, findVisibleEnvelope } from './document-reader.ts';

const SUFFIXES: Record<EnvelopeFileKind, string> = {
  source: '',
  'final-pdf': ' (signed)',
  'audit-trail': ' (audit trail)',
};

export async function downloadDocumentFile(
  ctx: DataContext & FilesContext,
  reader: DocumentReader,
  id: string,
  kind: EnvelopeFileKind,
): Promise<{ filename: string; content: Readable }> {
  await findVisibleEnvelope(ctx, reader, id);
  const { envelope, content } = await envelopeFile(ctx, reader.organizationId, id, kind);
  return { filename: documentFilename(envelope.title, kind), content };
}

/** The file name of an envelope's document: its title, with " (signed)" or " (audit trail)" after it. */
export function documentFilename(title: string, kind: EnvelopeFileKind): string {
  return `${fileTitle(title)}${SUFFIXES[kind]}.pdf`;
}

/** The title as a file name: no path separators or characters file systems refuse, at most 100 characters. */
function fileTitle(title: string): string {
  const cleaned = title
    .replace(/[\\/:*?"<>|]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .trim();
  return cleaned || 'document';
}
