// The storage port's stores by location, as the orphan sweep and `sigil storage migrate` need them: PostgreSQL
// always, S3 when configured (S3_BUCKET; docs/deployment.md "Object storage").
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StorageConfig } from '../../config/storage.ts';
import type { ObjectLocation } from '../../storage/file-objects.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { PostgresObjectStore } from '../../storage/postgres-object-store.ts';
import { S3ObjectStore } from '../../storage/s3-object-store.ts';

export interface ObjectStores {
  postgres: ObjectStore;
  s3?: ObjectStore;
}

/** The stores the configuration names; `em` is the process's global entity manager (the PostgreSQL store forks it). */
export function createObjectStores(
  storage: StorageConfig,
  em: EntityManager,
): ObjectStores & { close(): void } {
  const s3 = storage.s3 ? new S3ObjectStore(storage.s3) : undefined;
  return {
    postgres: new PostgresObjectStore(em),
    ...(s3 ? { s3 } : {}),
    close: () => s3?.close(),
  };
}

/** The store of `location`, or undefined when this process has none (S3 not configured). */
export function storeAt(stores: ObjectStores, location: ObjectLocation): ObjectStore | undefined {
  return location === 's3' ? stores.s3 : stores.postgres;
}
