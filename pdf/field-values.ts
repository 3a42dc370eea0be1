// From stored field values to what the renderers draw: the mapping shared by finalization (the worker) and
// the signer's document preview (the API). Pure but for the file loader each caller passes in (backed by its own
// database session), so this folder stays free of the database.
import { createHash } from 'node:crypto';
import type { DateFormat, FieldType } from '../domain/vocabulary.ts';
import type { AuditTrailPersonalStamp, AuditTrailUpload } from './render-audit-trail.ts';
import type { FinalPdfField, FinalPdfFieldValue } from './render-final-pdf.ts';

/** A stored file's bytes and description. */
export interface LoadedFile {
  content: Uint8Array;
  contentType: string;
  filename: string;
}

/** Loads the files with these ids (of the envelope's organization); ids it does not find are left out. */
export type StoredFileLoader = (fileIds: string[]) => Promise<Map<string, LoadedFile>>;

/** What a field needs here: its type and its label. */
export interface ValuedField {
  type: FieldType;
  label: string;
}

/** Field types whose stored value is an upload `{ fileId, filename, contentType, sizeBytes, sha256 }`. */
const UPLOAD_TYPES: readonly FieldType[] = ['File upload', 'Image upload'];

interface FileReference {
  fileId: string;
  typedName: string | null;
  /** The name the signer gave the upload (uploads only). */
  filename: string | null;
}

/** The stored file a saved value refers to (a signer's image or an upload), if any. */
export function fileReference(value: unknown): FileReference | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { fileId, typedName, filename } = value as Record<string, unknown>;
  if (typeof fileId !== 'string') return undefined;
  return {
    fileId,
    typedName: typeof typedName === 'string' ? typedName : null,
    filename: typeof filename === 'string' ? filename : null,
  };
}

/**
 * Where a Company stamp's value came from when the signer chose one of their personal stamps rather than
 * uploading an image (docs/stamps.md): the value is `{ fileId, typedName: null, personalStamp }`, `fileId` the
 * envelope's own copy of the version's image.
 */
export interface PersonalStampReference {
  stampId: string;
  versionId: string;
  version: number;
  /** The stamp's name when it was chosen. */
  name: string;
}

/** The personal stamp a saved value was chosen from, if it was. */
export function personalStampOf(value: unknown): PersonalStampReference | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stamp = (value as { personalStamp?: unknown }).personalStamp;
  if (typeof stamp !== 'object' || stamp === null) return undefined;
  const { stampId, versionId, version, name } = stamp as Record<string, unknown>;
  if (typeof stampId !== 'string' || typeof versionId !== 'string' || typeof name !== 'string')
    return undefined;
  if (typeof version !== 'number' || !Number.isSafeInteger(version)) return undefined;
  return { stampId, versionId, version, name };
}

/**
 * Stored field values (by position in `fields`) as the renderer draws them: strings and booleans as they
 * are; a signer's image `{ fileId, typedName }` as the stored PNG with the typed name; an upload `{ fileId,
 * filename, contentType, … }` in a File upload or Image upload field as the stored file with its name;
 * anything else (a file that cannot be found among them) as nothing.
 */
export async function finalPdfValues(
  fields: ValuedField[],
  values: unknown[],
  loadFiles: StoredFileLoader,
): Promise<FinalPdfFieldValue[]> {
  const fileIds = [...new Set(values.flatMap((value) => fileReference(value)?.fileId ?? []))];
  const files = fileIds.length === 0 ? new Map<string, LoadedFile>() : await loadFiles(fileIds);
  return values.map((value, index) => {
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    const reference = fileReference(value);
    const file = reference && files.get(reference.fileId);
    if (!reference || !file) return null;
    const type = fields[index]?.type;
    // An Image upload saved before uploads existed holds a signature-like PNG `{ fileId, typedName }`.
    if (type === 'File upload' || (type === 'Image upload' && 'contentType' in (value as object))) {
      return {
        upload: {
          content: file.content,
          filename: reference.filename ?? file.filename,
          contentType: file.contentType,
        },
      };
    }
    return {
      imagePng: file.content,
      ...(reference.typedName ? { typedName: reference.typedName } : {}),
    };
  });
}

/** Template fields with the value drawn in each (by position in `fields`), as the renderer takes them. */
export function placedFields(
  fields: (Pick<FinalPdfField, 'type' | 'page' | 'x' | 'y' | 'width' | 'height'> & {
    label?: string;
    /** The field's type-specific properties (a Date's format). */
    properties?: { dateFormat?: DateFormat | undefined } | null;
  })[],
  drawn: (FinalPdfFieldValue | undefined)[],
): FinalPdfField[] {
  return fields.map((field, index) => ({
    type: field.type,
    ...(field.label !== undefined ? { label: field.label } : {}),
    ...(field.properties?.dateFormat ? { dateFormat: field.properties.dateFormat } : {}),
    page: field.page,
    x: field.x,
    y: field.y,
    width: field.width,
    height: field.height,
    value: drawn[index] ?? null,
  }));
}

/**
 * The Company stamps chosen from personal stamps, in field order, for the audit trail: the stamp as it was
 * chosen (`values`, the stored values) and the image the envelope holds (`drawn`).
 */
export function chosenPersonalStamps(
  fields: ValuedField[],
  values: unknown[],
  drawn: (FinalPdfFieldValue | undefined)[],
): AuditTrailPersonalStamp[] {
  return fields.flatMap((field, index) => {
    const stamp = personalStampOf(values[index]);
    const image = drawn[index];
    if (!stamp || typeof image !== 'object' || image === null || !('imagePng' in image)) return [];
    const bytes = image.imagePng;
    return [
      {
        fieldLabel: field.label,
        stampName: stamp.name,
        version: stamp.version,
        contentType: bytes[0] === 0xff && bytes[1] === 0xd8 ? 'image/jpeg' : 'image/png',
        sizeBytes: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    ];
  });
}

/** The files signers uploaded (File upload and Image upload fields), in field order, for the audit trail. */
export function uploadedFiles(
  fields: ValuedField[],
  drawn: (FinalPdfFieldValue | undefined)[],
): AuditTrailUpload[] {
  return fields.flatMap((field, index) => {
    const value = drawn[index];
    if (!UPLOAD_TYPES.includes(field.type) || typeof value !== 'object' || value === null) return [];
    if (!('upload' in value)) return [];
    const { upload } = value;
    return [
      {
        fieldLabel: field.label,
        filename: upload.filename,
        contentType: upload.contentType,
        sizeBytes: upload.content.byteLength,
        sha256: createHash('sha256').update(upload.content).digest('hex'),
      },
    ];
  });
}
