// Reads stored files by id for the document renderers: finalization (the worker) and the signer's preview of
// the document (the API) both hand this loader to pdf/field-values.ts. The rows come through the caller's entity
// manager, the bytes from the process's FileObjects (storage/file-objects.ts), verified by SHA-256.
import type { EntityManager } from '@mikro-orm/postgresql';
import { StoredFile } from './entities/index.ts';

export interface StoredFileContent {
  content: Uint8Array;
  contentType: string;
  filename: string;
}

/** What the loader reads bytes through (storage/file-objects.ts FileObjects; db/ imports no storage). */
export interface StoredBytesReader {
  readAll(key: string): Promise<Buffer>;
}

/**
 * A loader of one organization's files by id, through `em` and `files`; unknown ids, another's files and files
 * whose bytes the retention run purged are absent.
 */
export function storedFileLoader(
  em: EntityManager,
  files: StoredBytesReader,
  organizationId: string,
): (fileIds: string[]) => Promise<Map<string, StoredFileContent>> {
  return async (fileIds) => {
    if (fileIds.length === 0) return new Map();
    const rows = await em.find(
      StoredFile,
      { id: { $in: fileIds }, organizationId, purgedAt: null },
      { orderBy: { id: 'asc' } },
    );
    const loaded = await Promise.all(
      rows.map(
        async (file) =>
          [
            file.id,
            {
              content: new Uint8Array(await files.readAll(file.sha256)),
              contentType: file.contentType,
              filename: file.filename,
            },
          ] as const,
      ),
    );
    return new Map(loaded);
  };
}
