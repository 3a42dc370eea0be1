// Uploaded and generated files: name, type, size and SHA-256 here; the bytes are an object of the storage port
// (storage/file-objects.ts) whose key is `sha256`, written before the row that references it commits — in
// PostgreSQL (`stored_object`) or S3-compatible object storage (docs/architecture.md "Object storage").
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
    /** SHA-256 of the bytes, lowercase hex: the key of the file's object. */
    sha256: p.string(),
    pageCount: p.integer().nullable(),
    /** The bytes were purged by the retention run (no longer read; the rest stays as the record). */
    purgedAt: p.datetime().nullable(),
    ...createdAtColumn(),
  },
});
export class StoredFile extends StoredFileSchema.class {}
StoredFileSchema.setClass(StoredFile);
