// A stored file's bytes through the process's FileObjects (storage/file-objects.ts): a new StoredFile's bytes are
// put — durably stored and registered — before the caller's unit of work that inserts its row commits, and the
// row's `sha256` is their key; a file is read back, verified by SHA-256, from wherever its object is.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { StoredFile } from '../../db/entities/index.ts';
import type { FileObjects } from '../../storage/file-objects.ts';

export interface NewStoredFile {
  id?: string;
  organizationId: string;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
  pageCount?: number | null;
}

/**
 * Puts the bytes, then adds their StoredFile to `em`'s unit of work (flushed by the caller with its other rows):
 * should the caller's transaction roll back, the object stays unreferenced and the orphan sweep removes it.
 */
export async function addStoredFile(
  files: FileObjects,
  em: EntityManager,
  input: NewStoredFile,
): Promise<StoredFile> {
  const stored = await files.put(input.bytes);
  return em.create(StoredFile, {
    id: input.id ?? randomUUID(),
    organizationId: input.organizationId,
    filename: input.filename,
    contentType: input.contentType,
    sizeBytes: stored.size,
    sha256: stored.key,
    pageCount: input.pageCount ?? null,
  });
}

/** A file's bytes whole, verified (PDF rendering, images, attachments: files of a few megabytes at most). */
export function storedFileBytes(files: FileObjects, file: Pick<StoredFile, 'sha256'>): Promise<Buffer> {
  return files.readAll(file.sha256);
}

/** A file's bytes as a verified stream (downloads): a mismatch fails the stream instead of ending it. */
export function storedFileStream(files: FileObjects, file: Pick<StoredFile, 'sha256'>): Promise<Readable> {
  return files.get(file.sha256);
}
