// Uploaded and generated files. Content lives in PostgreSQL (bytea) so a backup of the database is a
// backup of everything; see docs/architecture.md.
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, tenantKeys } from './columns.ts';

export const StoredFileSchema = defineEntity({
  name: 'StoredFile',
  tableName: 'stored_file',
  properties: {
    ...tenantKeys(),
    filename: p.string(),
    contentType: p.string(),
    sizeBytes: p.integer(),
    sha256: p.string(),
    pageCount: p.integer().nullable(),
    content: p.blob().lazy(),
    /** The bytes were purged by the retention run (the content is empty; the rest stays as the record). */
    purgedAt: p.datetime().nullable(),
    ...createdAtColumn(),
  },
});
export class StoredFile extends StoredFileSchema.class {}
StoredFileSchema.setClass(StoredFile);
