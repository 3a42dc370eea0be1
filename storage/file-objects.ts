// Where each stored file's bytes are: the registry `file_object` (migration 0047: key, location, size, touched_at)
// over the storage port's two stores. The process makes one FileObjects from configuration and every reader and
// writer of a file's bytes goes through it: a put stores the bytes where the registry says (or in `writeTo` for
// new bytes) and touches the registry row in its own committed transaction, before the caller commits the row
// that references the key; a get reads the bytes from their registered location, verified by SHA-256.
//
// The protocol keeps concurrent puts safe against the orphan sweep and `sigil storage migrate` (issue 36,
// docs/deployment.md "Object storage"): the sweep deletes an object only while holding its registry row
// `for update` and seeing it untouched for the grace period, deleting the bytes before the row; the migration
// copies the bytes to the target store before it moves the row's location, and deletes the source copy after.
// So a put that finds it INSERTED the registry row (the sweep may just have removed the object) checks that the
// bytes are there and puts them again if not, and a get that misses reads the location once more (a migration
// moved it meanwhile).
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  assertObjectKey,
  chunksOf,
  type ObjectKey,
  ObjectNotFoundError,
  type ObjectSource,
  type ObjectStore,
  readAll,
  type StoredObject,
} from './object-store.ts';

export type ObjectLocation = 'postgres' | 's3';

export interface FileObjectsOptions {
  /** The process's global entity manager: every call forks it, so the registry's writes commit on their own. */
  em: EntityManager;
  /** The PostgreSQL store always exists (objects already there stay readable); S3 when configured. */
  stores: { postgres: ObjectStore; s3?: ObjectStore };
  /** Where new bytes go (STORAGE). */
  writeTo: ObjectLocation;
  /** Where a put of a stream spools its bytes while hashing them; the system's temporary directory by default. */
  spoolDir?: string;
}

/** STORAGE=s3 is not configured, yet an object is (or is to be) there. */
export class ObjectLocationUnavailableError extends Error {
  readonly location: ObjectLocation;
  constructor(location: ObjectLocation) {
    super(
      `Object storage "${location}" is not configured in this process (set S3_BUCKET and the other S3_* variables: ` +
        'docs/deployment.md "Object storage").',
    );
    this.name = 'ObjectLocationUnavailableError';
    this.location = location;
  }
}

export class FileObjects {
  readonly #em: EntityManager;
  readonly #stores: { postgres: ObjectStore; s3?: ObjectStore };
  readonly writeTo: ObjectLocation;
  readonly #spoolDir: string;

  constructor(options: FileObjectsOptions) {
    this.#em = options.em;
    this.#stores = options.stores;
    this.writeTo = options.writeTo;
    this.#spoolDir = options.spoolDir ?? tmpdir();
    this.store(options.writeTo);
  }

  /** The store of `location`; a clear error when it is not configured here. */
  store(location: ObjectLocation): ObjectStore {
    const store = location === 's3' ? this.#stores.s3 : this.#stores.postgres;
    if (!store) throw new ObjectLocationUnavailableError(location);
    return store;
  }

  /**
   * Stores the bytes (where the registry has them already, else in `writeTo`) and registers them, both committed
   * when this resolves — before the caller commits a row that references the key. A stream is spooled to a
   * temporary file while it is hashed (the key decides the store), never gathered in memory.
   */
  async put(source: ObjectSource): Promise<StoredObject> {
    if (source instanceof Uint8Array) {
      const key = createHash('sha256').update(source).digest('hex');
      return this.#putKnown(key, source.length, () => source);
    }
    const dir = await mkdtemp(join(this.#spoolDir, 'sigil-file-'));
    try {
      const file = join(dir, randomUUID());
      const hash = createHash('sha256');
      let size = 0;
      const out = createWriteStream(file);
      try {
        for await (const chunk of chunksOf(source)) {
          hash.update(chunk);
          size += chunk.length;
          if (!out.write(chunk)) await new Promise<void>((resume) => out.once('drain', () => resume()));
        }
      } finally {
        out.end();
        await finished(out);
      }
      return await this.#putKnown(hash.digest('hex'), size, () => createReadStream(file));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async #putKnown(key: ObjectKey, size: number, bytes: () => Uint8Array | Readable): Promise<StoredObject> {
    const target = (await this.location(key)) ?? this.writeTo;
    await this.#putInto(target, key, size, bytes);
    const [row] = await this.#em
      .fork()
      .execute<{ inserted: boolean; location: ObjectLocation }[]>(
        'insert into file_object (key, location, size_bytes, touched_at) values (?, ?, ?, now()) ' +
          'on conflict (key) do update set touched_at = now() returning (xmax = 0) as inserted, location',
        [key, target, size],
      );
    if (!row) throw new Error(`The registry answered nothing for the object ${key}.`);
    // A new registry row: a sweep may have removed the object between our put and this insert. A location other
    // than ours: a migration moved it meanwhile (its copy is there before its update; checked all the same).
    if (row.inserted || row.location !== target) {
      const store = this.store(row.location);
      if (!(await store.has(key))) await this.#putInto(row.location, key, size, bytes);
    }
    return { key, size };
  }

  async #putInto(
    location: ObjectLocation,
    key: ObjectKey,
    size: number,
    bytes: () => Uint8Array | Readable,
  ): Promise<void> {
    const stored = await this.store(location).put(bytes());
    if (stored.key !== key || stored.size !== size) {
      throw new Error(
        `The ${location} store stored ${stored.key} (${stored.size} bytes) for ${key} (${size}).`,
      );
    }
  }

  /**
   * The object's bytes as a stream verified by SHA-256 while it flows (a mismatch fails the stream with
   * ObjectIntegrityError). An unregistered key rejects with ObjectNotFoundError.
   */
  async get(key: ObjectKey): Promise<Readable> {
    assertObjectKey(key);
    const location = await this.location(key);
    if (!location) throw new ObjectNotFoundError(key);
    try {
      return await this.store(location).get(key);
    } catch (error) {
      if (!(error instanceof ObjectNotFoundError)) throw error;
      // A migration may have moved it between our read of the location and the get: once more, where it is now.
      const now = await this.location(key);
      if (!now) throw error;
      return this.store(now).get(key);
    }
  }

  /** A small object's bytes whole (PDF rendering, images), verified. */
  async readAll(key: ObjectKey): Promise<Buffer> {
    return readAll(await this.get(key));
  }

  /** Closes the stores' connections (the S3 client's); the PostgreSQL store uses the process's ORM. */
  close(): void {
    for (const store of [this.#stores.postgres, this.#stores.s3]) {
      (store as { close?: () => void } | undefined)?.close?.();
    }
  }

  /** Where the registry has the object; undefined when it has no row for it. */
  async location(key: ObjectKey): Promise<ObjectLocation | undefined> {
    assertObjectKey(key);
    const [row] = await this.#em
      .fork()
      .execute<{ location: ObjectLocation }[]>('select location from file_object where key = ?', [key]);
    return row?.location;
  }
}
