// Chooses the storage port's implementations once, from configuration (STORAGE, S3_*): the process makes one
// FileObjects (the registry over the stores) and hands it down, like its other dependencies.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StorageConfig } from '../config/storage.ts';
import { FileObjects } from './file-objects.ts';
import type { ObjectStore } from './object-store.ts';
import { PostgresObjectStore } from './postgres-object-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';

/** The store STORAGE names; `em` is the process's global entity manager (the PostgreSQL store forks it). */
export function createObjectStore(storage: StorageConfig, em: EntityManager): ObjectStore {
  return storage.kind === 's3' ? new S3ObjectStore(storage.s3) : new PostgresObjectStore(em);
}

/**
 * The process's FileObjects: the PostgreSQL store always (objects already there stay readable under STORAGE=s3),
 * S3 when configured; new bytes go where STORAGE says. `em` is the process's global entity manager.
 */
export function createFileObjects(storage: StorageConfig, em: EntityManager): FileObjects {
  const s3Settings = 's3' in storage ? storage.s3 : undefined;
  return new FileObjects({
    em,
    stores: {
      postgres: new PostgresObjectStore(em),
      ...(s3Settings ? { s3: new S3ObjectStore(s3Settings) } : {}),
    },
    writeTo: storage.kind,
  });
}
