// What a signer's checked value becomes in envelope_field_value: images and uploaded files are stored as files
// (their bytes put by putSignerValueBytes before the caller's transaction, their StoredFile rows in it) and the
// value keeps a reference to them; other values as they are.
import { createHash, randomUUID } from 'node:crypto';
import { StoredFile } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import type { SignerValueCheck } from './field-value.ts';

export type SignerValueSuccess = Extract<SignerValueCheck, { ok: true }>;

/** A signature, initials or stamp image: the stored PNG and the typed name. */
export interface StoredImageValue {
  fileId: string;
  typedName: string | null;
}

/** A file uploaded to a File upload or Image upload field, described so a reader needs no second query. */
export interface StoredUploadValue {
  fileId: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * Puts the bytes of the checks' images and uploaded files (storage/file-objects.ts), before the transaction that
 * inserts their StoredFile rows (storeSignerValue) commits — and before it begins, so no transaction is held open
 * while bytes travel to object storage.
 */
export async function putSignerValueBytes(files: FileObjects, checks: SignerValueSuccess[]): Promise<void> {
  for (const check of checks) {
    if ('image' in check) await files.put(check.image.png);
    else if ('upload' in check) await files.put(check.upload.content);
  }
}

/**
 * Adds the image or file of a successful check (its bytes already put) as a StoredFile of the envelope's organization (flushed with
 * the transaction) and returns the JSON value to save; `null` clears the field.
 */
export function storeSignerValue(
  tx: Pick<Orm['em'], 'create'>,
  envelope: { organizationId: string },
  field: { label: string },
  check: SignerValueSuccess,
): string | boolean | StoredImageValue | StoredUploadValue | null {
  if ('image' in check) {
    const file = tx.create(StoredFile, {
      id: randomUUID(),
      organizationId: envelope.organizationId,
      filename: `${field.label.replace(/[^\p{L}\p{N} ._-]+/gu, '').slice(0, 100) || 'image'}.png`,
      contentType: 'image/png',
      sizeBytes: check.image.png.byteLength,
      sha256: sha256(check.image.png),
      pageCount: null,
    });
    return { fileId: file.id, typedName: check.image.typedName };
  }
  if ('upload' in check) {
    const { content, filename, contentType } = check.upload;
    const file = tx.create(StoredFile, {
      id: randomUUID(),
      organizationId: envelope.organizationId,
      filename,
      contentType,
      sizeBytes: content.byteLength,
      sha256: sha256(content),
      pageCount: null,
    });
    return { fileId: file.id, filename, contentType, sizeBytes: file.sizeBytes, sha256: file.sha256 };
  }
  return check.value;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
