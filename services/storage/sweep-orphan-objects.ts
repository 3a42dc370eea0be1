// The orphan sweep's work (issue 36, docs/deployment.md "Object storage"), one page per call, run by the daily
// `sigil-object-sweep` Schedule's workflow (workflows/object-sweep.ts, activities/object-sweep.ts):
//   - registered objects (`file_object`) that no stored file references — but files purged before `before` (the
//     run's time less the grace period) — and that no put touched since `before`: the bytes are deleted from
//     their store and then the registry row, inside a transaction that holds the row `for update` and checks both conditions
//     again under the lock — so a put of the same bytes either touched the row first (the object stays) or waits
//     for the row and, finding it gone, stores the bytes again (storage/file-objects.ts);
//   - stray objects: bytes in a store without any registry row, written before `before` (a put that died between
//     its bytes and its row). Such a key is claimed by inserting its registry row in the transaction that deletes
//     the bytes and the row again, so a put that registers the key meanwhile waits for it and then finds its
//     row new and the bytes gone, and puts them again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ObjectLocation } from '../../storage/file-objects.ts';
import type { ObjectKey, ObjectStore } from '../../storage/object-store.ts';
import { type ObjectStores, storeAt } from './object-stores.ts';

export interface SweepPageRequest {
  /** Objects touched (or, for strays, stored) before this instant may go. */
  before: Date;
  /** The last key a previous page looked at; null: from the first. */
  after: ObjectKey | null;
  limit: number;
}

export interface SweepPage {
  /** Objects looked at. */
  checked: number;
  deleted: number;
  bytesFreed: number;
  /** Where the next page starts; null: this was the last. */
  next: ObjectKey | null;
}

export interface SweepContext {
  /** The process's entity manager; every transaction forks it. */
  em: EntityManager;
  stores: ObjectStores;
  /** Called after each object (the activity heartbeats with it). */
  onObject?: (page: SweepPage) => void;
}

/** One page of registered objects no stored file references (but files purged before `request.before`), untouched since then. */
export async function sweepUnreferencedObjects(
  ctx: SweepContext,
  request: SweepPageRequest,
): Promise<SweepPage> {
  const candidates = await ctx.em.fork().execute<{ key: string }[]>(
    `select f.key from file_object f
      where f.key > ? and f.touched_at < ?
        and not exists (select 1 from stored_file s
                         where s.sha256 = f.key and (s.purged_at is null or s.purged_at >= ?))
      order by f.key limit ?`,
    [request.after ?? '', request.before, request.before, request.limit],
  );
  const page: SweepPage = { checked: 0, deleted: 0, bytesFreed: 0, next: null };
  for (const { key } of candidates) {
    const freed = await deleteIfUnreferenced(ctx, key, request.before);
    page.checked += 1;
    if (freed !== null) {
      page.deleted += 1;
      page.bytesFreed += freed;
    }
    page.next = key;
    ctx.onObject?.({ ...page });
  }
  if (candidates.length < request.limit) page.next = null;
  return page;
}

/**
 * Deletes one registered object if, under its row's lock, it is still untouched since `before` and unreferenced;
 * answers the bytes freed, or null when it stays.
 */
export async function deleteIfUnreferenced(
  ctx: Pick<SweepContext, 'em' | 'stores'>,
  key: ObjectKey,
  before: Date,
): Promise<number | null> {
  return ctx.em.fork().transactional(async (tx) => {
    // The row's newest version once any put touching it has committed.
    const [row] = await tx.execute<{ location: ObjectLocation; size_bytes: string; stale: boolean }[]>(
      'select location, size_bytes, touched_at < ? as stale from file_object where key = ? for update',
      [before, key],
    );
    if (!row?.stale) return null;
    // A new statement sees the stored files committed while this one waited for the lock. A file purged within
    // the grace period still counts: the grace runs from the last reference too (a backup taken just before the
    // purge finds its files' bytes in a copy of the store made after it).
    const [referenced] = await tx.execute(
      'select 1 from stored_file where sha256 = ? and (purged_at is null or purged_at >= ?) limit 1',
      [key, before],
    );
    if (referenced) return null;
    const store = storeAt(ctx.stores, row.location);
    // Objects in S3 while this worker has no S3 settings: left for a worker that has them.
    if (!store) return null;
    await store.delete(key);
    await tx.execute('delete from file_object where key = ?', [key]);
    return Number(row.size_bytes);
  });
}

/** One page of a store's objects that have no registry row and were stored before `request.before`. */
export async function sweepStrayObjects(
  ctx: SweepContext,
  location: ObjectLocation,
  request: SweepPageRequest,
): Promise<SweepPage> {
  const page: SweepPage = { checked: 0, deleted: 0, bytesFreed: 0, next: null };
  const store = storeAt(ctx.stores, location);
  if (!store) return page;
  const listed = await store.list(request.after, request.limit);
  const unregistered = new Set(
    listed.length === 0
      ? []
      : (
          await ctx.em
            .fork()
            .execute<{ key: string }[]>(
              'select k as key from unnest(?::text[]) k where not exists (select 1 from file_object f where f.key = k)',
              [`{${listed.map((object) => object.key).join(',')}}`],
            )
        ).map((row) => row.key),
  );
  for (const object of listed) {
    page.checked += 1;
    if (unregistered.has(object.key) && object.storedAt < request.before) {
      if (await deleteStray(ctx, store, location, object.key, object.size)) {
        page.deleted += 1;
        page.bytesFreed += object.size;
      }
    }
    page.next = object.key;
    ctx.onObject?.({ ...page });
  }
  if (listed.length < request.limit) page.next = null;
  return page;
}

/** Claims a key without a registry row by inserting one, deletes the bytes and the row, and commits. */
async function deleteStray(
  ctx: Pick<SweepContext, 'em'>,
  store: ObjectStore,
  location: ObjectLocation,
  key: ObjectKey,
  size: number,
): Promise<boolean> {
  return ctx.em.fork().transactional(async (tx) => {
    const claimed = await tx.execute(
      'insert into file_object (key, location, size_bytes, touched_at) values (?, ?, ?, now()) ' +
        'on conflict (key) do nothing returning key',
      [key, location, size],
    );
    // Registered meanwhile: a put has made it an object of the registry.
    if (claimed.length === 0) return false;
    await store.delete(key);
    await tx.execute('delete from file_object where key = ?', [key]);
    return true;
  });
}
