// Reads stored files by id for the document renderers: finalization (the worker) and the signer's preview of
// the document (the API) both hand this loader to pdf/field-values.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { StoredFile } from './entities/index.ts';

export interface StoredFileContent {
  content: Uint8Array;
  contentType: string;
  filename: string;
}

/**
 * A loader of one organization's files by id, through `em`; unknown ids, another's files and files whose bytes
 * the retention run purged are absent.
 */
export function storedFileLoader(
  em: EntityManager,
  organizationId: string,
): (fileIds: string[]) => Promise<Map<string, StoredFileContent>> {
  return async (fileIds) => {
    if (fileIds.length === 0) return new Map();
    const files = await em.find(
      StoredFile,
      { id: { $in: fileIds }, organizationId, purgedAt: null },
      { populate: ['content'], orderBy: { id: 'asc' } },
    );
    return new Map(
      files.map((file) => [
        file.id,
        { content: new Uint8Array(file.content), contentType: file.contentType, filename: file.filename },
      ]),
    );
  };
}
