// Stores an uploaded source document of an organization after the shared PDF inspection; returns the file
// record the public API answers with.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StoredFile } from '../../db/entities/index.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import type { PdfInspection } from './check-pdf.ts';
import { inspectPdf } from './inspect-pdf.ts';
import { organizationClient } from './inspection-pool.ts';
import { addStoredFile } from './stored-file-bytes.ts';

export const DEFAULT_FILENAME = 'document.pdf';
const MAX_FILENAME_LENGTH = 255;

export interface UploadFileInput {
  organizationId: string;
  /** The name the client gave; only its sanitized base name is kept. */
  filename: string;
  bytes: Uint8Array;
  /** The upload size limit in bytes (config.api.uploadMaxBytes). */
  maxBytes: number;
}

export interface FileRecord {
  id: string;
  name: string;
  size: number;
  pageCount: number;
  sha256: string;
  contentType: 'application/pdf';
  createdAt: Date;
}

export async function uploadFile(
  ctx: DataContext & FilesContext,
  input: UploadFileInput,
): Promise<FileRecord> {
  const organization = await findOrganization(ctx, input.organizationId);
  const pdf = await inspectPdf(input.bytes, {
    maxBytes: input.maxBytes,
    field: 'file',
    client: organizationClient(organization.id),
  });
  const em = ctx.em;
  const file = await addStoredPdf(ctx.files, em, {
    organizationId: organization.id,
    filename: input.filename,
    bytes: input.bytes,
    pdf,
  });
  await em.flush();
  return {
    id: file.id,
    name: file.filename,
    size: file.sizeBytes,
    pageCount: pdf.pageCount,
    sha256: file.sha256,
    contentType: 'application/pdf',
    createdAt: file.createdAt,
  };
}

/**
 * A name safe to store and show: the base name only (either slash separates directories), without
 * control or bidirectional-override characters (which can disguise an extension), trimmed, at most 255
 * characters (the extension is kept when the stem is shortened); `document.pdf` when nothing is left.
 */
export function sanitizeFilename(name: string | undefined): string {
  const base = (name ?? '').normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '')
    .trim()
    .replace(/\s+/g, ' ');
  if (cleaned === '' || /^\.+$/.test(cleaned)) return DEFAULT_FILENAME;
  const characters = Array.from(cleaned);
  if (characters.length <= MAX_FILENAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(cleaned.slice(dot)) : [];
  if (extension.length > 0 && extension.length <= 16) {
    const stem = Array.from(cleaned.slice(0, dot)).slice(0, MAX_FILENAME_LENGTH - extension.length);
    return `${stem.join('').trimEnd()}${extension.join('')}`;
  }
  return characters.slice(0, MAX_FILENAME_LENGTH).join('').trimEnd();
}

/**
 * Stores an inspected PDF's bytes (storage/file-objects.ts) and adds its StoredFile to the unit of work (flushed
 * by the caller, with its other rows).
 */
export function addStoredPdf(
  files: FileObjects,
  em: EntityManager,
  input: { organizationId: string; filename: string | undefined; bytes: Uint8Array; pdf: PdfInspection },
): Promise<StoredFile> {
  return addStoredFile(files, em, {
    organizationId: input.organizationId,
    filename: sanitizeFilename(input.filename),
    contentType: 'application/pdf',
    bytes: input.bytes,
    pageCount: input.pdf.pageCount,
  });
}
