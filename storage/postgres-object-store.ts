// The storage port in PostgreSQL (the embedded default): an object is a row of `stored_object` (key, size) and
// its bytes are rows of `stored_object_chunk` of at most 1 MiB each (migration 0046), so a put writes and a get
// reads one chunk at a time — neither holds a large file in memory, which one bytea value would. A put writes
// its chunks under a fresh id in one transaction and commits only when the key row is new; the same bytes put
// twice roll back to nothing.
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  assertObjectKey,
  chunksOf,
  type ListedObject,
  type ObjectKey,
  ObjectNotFoundError,
  type ObjectSource,
  type ObjectStore,
  readableOf,
  type StoredObject,
  verified,
} from './object-store.ts';

/** The most bytes one chunk row holds. */
export const POSTGRES_CHUNK_BYTES = 1024 * 1024;

/** The put found the key already stored: its transaction rolls back what it wrote. */
class AlreadyStored extends Error {}

export class PostgresObjectStore implements ObjectStore {
  readonly kind = 'postgres' as const;
  readonly #em: EntityManager;

  /** `em` is forked for every call: the port's writes commit on their own, before the caller's. */
  constructor(em: EntityManager) {
    this.#em = em;
  }

  async put(source: ObjectSource): Promise<StoredObject> {
    const objectId = randomUUID();
    const hash = createHash('sha256');
    let size = 0;
    let result: StoredObject | undefined;
    try {
      await this.#em.fork().transactional(async (tx) => {
        let seq = 0;
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        const flush = async (all: boolean) => {
          while (pendingBytes >= POSTGRES_CHUNK_BYTES || (all && pendingBytes > 0)) {
            const joined = Buffer.concat(pending);
            const chunk = joined.subarray(0, POSTGRES_CHUNK_BYTES);
            const rest = joined.subarray(chunk.length);
            await tx.execute('insert into stored_object_chunk (object_id, seq, data) values (?, ?, ?)', [
              objectId,
              seq++,
              chunk,
            ]);
            pending = rest.length ? [rest] : [];
            pendingBytes = rest.length;
          }
        };
        for await (const piece of chunksOf(source)) {
          hash.update(piece);
          size += piece.length;
          pending.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
          pendingBytes += piece.length;
          await flush(false);
        }
        await flush(true);
        const key = hash.digest('hex');
        result = { key, size };
        const inserted = await tx.execute<{ key: string }[]>(
          'insert into stored_object (key, object_id, size_bytes, created_at) values (?, ?, ?, now()) ' +
            'on conflict (key) do nothing returning key',
          [key, objectId, size],
        );
        if (inserted.length === 0) throw new AlreadyStored();
      });
    } catch (error) {
      if (!(error instanceof AlreadyStored)) throw error;
    }
    if (!result) throw new Error('unreachable: a put ended without a key');
    return result;
  }

  async get(key: ObjectKey): Promise<Readable> {
    assertObjectKey(key);
    const em = this.#em.fork();
    const [row] = await em.execute<{ object_id: string; size_bytes: string | number }[]>(
      'select object_id, size_bytes from stored_object where key = ?',
      [key],
    );
    if (!row) throw new ObjectNotFoundError(key);
    const objectId = row.object_id;
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let seq = 0; ; seq++) {
        const [chunk] = await em.execute<{ data: Buffer }[]>(
          'select data from stored_object_chunk where object_id = ? and seq = ?',
          [objectId, seq],
        );
        if (!chunk) return;
        yield chunk.data;
      }
    }
    return verified(readableOf(chunks()), key, Number(row.size_bytes));
  }

  async has(key: ObjectKey): Promise<boolean> {
    assertObjectKey(key);
    const rows = await this.#em.fork().execute('select 1 from stored_object where key = ?', [key]);
    return rows.length > 0;
  }

  async list(after: ObjectKey | null, limit: number): Promise<ListedObject[]> {
    const rows = await this.#em
      .fork()
      .execute<{ key: string; size_bytes: string | number; created_at: Date }[]>(
        'select key, size_bytes, created_at from stored_object where key > ? order by key limit ?',
        [after ?? '', limit],
      );
    return rows.map((row) => ({
      key: row.key,
      size: Number(row.size_bytes),
      storedAt: new Date(row.created_at),
    }));
  }

  async delete(key: ObjectKey): Promise<void> {
    assertObjectKey(key);
    await this.#em.fork().transactional(async (tx) => {
      const removed = await tx.execute<{ object_id: string }[]>(
        'delete from stored_object where key = ? returning object_id',
        [key],
      );
      for (const { object_id } of removed) {
        await tx.execute('delete from stored_object_chunk where object_id = ?', [object_id]);
      }
    });
  }
}
