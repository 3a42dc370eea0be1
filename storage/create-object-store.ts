// Chooses the storage port's implementation once, from configuration (STORAGE): the process makes one store and
// hands it down, like its other dependencies.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StorageConfig } from '../config/storage.ts';
import type { ObjectStore } from './object-store.ts';
import { PostgresObjectStore } from './postgres-object-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';

/** The store STORAGE names; `em` is the process's global entity manager (the PostgreSQL store forks it). */
export function createObjectStore(storage: StorageConfig, em: EntityManager): ObjectStore {
  return storage.kind === 's3' ? new S3ObjectStore(storage.s3) : new PostgresObjectStore(em);
}
