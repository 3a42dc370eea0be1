// Stored files' bytes through the registry (storage/file-objects.ts) on the suite's PostgreSQL and a real
// SeaweedFS: new bytes go where STORAGE says and bytes already registered stay where they are; every read is
// verified; the protocol against the orphan sweep and `sigil storage migrate` holds when they strike between a
// put's store write and its registry row (the put stores the bytes again) and between a get's look-up and its read
// (the get reads where the object is now).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrm, type Orm } from '../../db/orm.ts';
import { FileObjects, type ObjectLocation } from '../../storage/file-objects.ts';
import {
  ObjectIntegrityError,
  ObjectNotFoundError,
  type ObjectStore,
  readAll,
} from '../../storage/object-store.ts';
import { PostgresObjectStore } from '../../storage/postgres-object-store.ts';
import { S3ObjectStore } from '../../storage/s3-object-store.ts';
import { openTestContext, type TestContext } from '../support/context.ts';
import { type RunningSeaweedfs, startSeaweedfs } from '../support/seaweedfs.ts';

let ctx: TestContext;
let seaweedfs: RunningSeaweedfs;
let s3: S3ObjectStore;
let postgres: PostgresObjectStore;
let rawS3: S3Client;
let bucket = '';

beforeAll(async () => {
  ctx = await openTestContext();
  postgres = new PostgresObjectStore(ctx.orm.em);
  seaweedfs = await startSeaweedfs();
  bucket = `sigil-files-${randomBytes(4).toString('hex')}`;
  const settings = await seaweedfs.bucket(bucket);
  s3 = new S3ObjectStore(settings);
  rawS3 = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: settings.credentials ?? undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}, 20 * 60_000);

afterAll(async () => {
  s3?.close();
  rawS3?.destroy();
  await seaweedfs?.stop();
  await ctx?.close();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function files(writeTo: ObjectLocation, stores: { postgres?: ObjectStore; s3?: ObjectStore } = {}) {
  return new FileObjects({
    em: ctx.orm.em,
    stores: { postgres: stores.postgres ?? postgres, s3: stores.s3 ?? s3 },
    writeTo,
  });
}

async function registry(key: string) {
  const rows = await ctx.em.execute<{ location: string; size_bytes: string; touched_ms: string }[]>(
    'select location, size_bytes, (extract(epoch from touched_at) * 1000)::bigint::text as touched_ms from file_object where key = ?',
    [key],
  );
  return rows[0];
}

async function inBucket(key: string): Promise<boolean> {
  try {
    await rawS3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** `store` with some of its methods replaced (the others bound to it). */
function wrapped(store: ObjectStore, overrides: Partial<ObjectStore>): ObjectStore {
  return new Proxy(store, {
    get(target, property) {
      const replaced = (overrides as Record<string | symbol, unknown>)[property];
      if (replaced) return replaced;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** What the orphan sweep does to an object: its bytes, then its registry row. */
async function sweep(store: ObjectStore, key: string) {
  await store.delete(key);
  await ctx.em.execute('delete from file_object where key = ?', [key]);
}

describe('FileObjects', () => {
  it('puts new bytes where writeTo says, registers them, and reads them back verified', async () => {
    const bytes = randomBytes(150_000);
    const stored = await files('s3').put(bytes);
    expect(stored).toEqual({ key: sha256(bytes), size: bytes.length });
    expect(await registry(stored.key)).toMatchObject({ location: 's3', size_bytes: String(bytes.length) });
    expect(await inBucket(stored.key)).toBe(true);
    expect(await postgres.has(stored.key)).toBe(false);
    expect(await files('s3').location(stored.key)).toBe('s3');
    expect(Buffer.compare(await files('s3').readAll(stored.key), bytes)).toBe(0);

    const other = randomBytes(20_000);
    const inPostgres = await files('postgres').put(other);
    expect(await registry(inPostgres.key)).toMatchObject({ location: 'postgres' });
    expect(await postgres.has(inPostgres.key)).toBe(true);
    expect(await inBucket(inPostgres.key)).toBe(false);
  });

  it('puts bytes already registered where they are, and touches their row', async () => {
    const bytes = randomBytes(40_000);
    const { key } = await files('postgres').put(bytes);
    const first = await registry(key);
    await new Promise((resume) => setTimeout(resume, 20));
    // The process now writes to S3, yet these bytes are PostgreSQL's: they stay there, one copy.
    await files('s3').put(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]));
    const second = await registry(key);
    expect(second?.location).toBe('postgres');
    expect(Number(second?.touched_ms)).toBeGreaterThan(Number(first?.touched_ms));
    expect(await inBucket(key)).toBe(false);
    expect(Buffer.compare(await files('s3').readAll(key), bytes)).toBe(0);
  });

  it('stores the bytes again when a sweep removed the object between the store write and the registry row', async () => {
    const bytes = randomBytes(30_000);
    const key = sha256(bytes);
    // An object the sweep is about to remove: registered, untouched, unreferenced.
    await files('s3').put(bytes);
    let swept = false;
    const racing = wrapped(s3, {
      put: async (source) => {
        const stored = await s3.put(source);
        if (!swept) {
          swept = true;
          await sweep(s3, key);
        }
        return stored;
      },
    });
    await files('s3', { s3: racing }).put(bytes);
    expect(swept).toBe(true);
    expect(await registry(key)).toMatchObject({ location: 's3' });
    expect(await inBucket(key)).toBe(true);
    expect(Buffer.compare(await files('s3').readAll(key), bytes)).toBe(0);
  });

  it('reads where a migration moved the object between the look-up and the read', async () => {
    const bytes = randomBytes(25_000);
    const { key } = await files('postgres').put(bytes);
    let moved = false;
    const migrating = wrapped(postgres, {
      get: async (k) => {
        if (!moved) {
          // `sigil storage migrate --to s3` of this object: copy, move the row, delete the source.
          moved = true;
          await s3.put(await postgres.get(k).then(readAll));
          await ctx.em.execute(
            "update file_object set location = 's3' where key = ? and location = 'postgres'",
            [k],
          );
          await postgres.delete(k);
        }
        return postgres.get(k);
      },
    });
    const read = await files('s3', { postgres: migrating }).readAll(key);
    expect(moved).toBe(true);
    expect(Buffer.compare(read, bytes)).toBe(0);
  });

  it('refuses bytes corrupted in the bucket: the read fails, the corrupt bytes never end as the file', async () => {
    const bytes = randomBytes(60_000);
    const { key } = await files('s3').put(bytes);
    const other = randomBytes(bytes.length);
    await rawS3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: other, ContentLength: other.length }),
    );
    const error = await files('s3')
      .readAll(key)
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(ObjectIntegrityError);
  });

  it('answers an unregistered key with ObjectNotFoundError and an unconfigured S3 with a clear error', async () => {
    const missing = sha256(randomBytes(8));
    await expect(files('postgres').get(missing)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await files('postgres').location(missing)).toBeUndefined();

    const postgresOnly = new FileObjects({ em: ctx.orm.em, stores: { postgres }, writeTo: 'postgres' });
    expect(() => postgresOnly.store('s3')).toThrow(/not configured/);
    expect(() => new FileObjects({ em: ctx.orm.em, stores: { postgres }, writeTo: 's3' })).toThrow(
      /not configured/,
    );
    const { key } = await files('s3').put(randomBytes(5000));
    await expect(postgresOnly.get(key)).rejects.toThrow(/not configured/);
  });
});

/** A new database migrated up to `to` on the suite's PostgreSQL; `drop` removes it. */
async function databaseAt(to: string) {
  const suiteUrl = inject('databaseUrl');
  const name = `sigil_files_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: suiteUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(suiteUrl);
  url.pathname = `/${name}`;
  const orm = await createOrm({ databaseUrl: url.toString(), poolMax: 2 });
  await orm.migrator.up({ to });
  return {
    orm,
    drop: async () => {
      await orm.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Files as they were before migration 0047: bytes in stored_file.content. */
async function insertFile(
  orm: Orm,
  organizationId: string,
  content: Buffer,
  overrides: { sha256?: string } = {},
) {
  const id = randomUUID();
  await orm.em
    .fork()
    .execute(
      'insert into stored_file (id, organization_id, filename, content_type, size_bytes, sha256, content) values (?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        organizationId,
        'f.pdf',
        'application/pdf',
        content.length,
        overrides.sha256 ?? sha256(content),
        content,
      ],
    );
  return id;
}

async function organizationIn(orm: Orm) {
  const id = randomUUID();
  await orm.em
    .fork()
    .execute("insert into organization (id, name, plan_name) values (?, 'Migrated', 'Business')", [id]);
  return id;
}

describe('migration 0047 (stored_file.content into the PostgreSQL store)', () => {
  it('moves every file’s bytes into 1 MiB chunks, one object per hash, registers them, and drops the column', async () => {
    const db = await databaseAt('0046-stored-objects');
    try {
      const organizationId = await organizationIn(db.orm);
      const large = randomBytes(2 * 1024 * 1024 + 1234);
      const small = randomBytes(777);
      const empty = Buffer.alloc(0);
      await insertFile(db.orm, organizationId, large);
      await insertFile(db.orm, organizationId, large);
      await insertFile(db.orm, organizationId, small);
      await insertFile(db.orm, organizationId, empty);
      const purged = await insertFile(db.orm, organizationId, Buffer.alloc(0), {
        sha256: sha256(randomBytes(9)),
      });
      await db.orm.em.fork().execute('update stored_file set purged_at = now() where id = ?', [purged]);

      await db.orm.migrator.up();

      const em = db.orm.em.fork();
      const columns = await em.execute<{ column_name: string }[]>(
        "select column_name from information_schema.columns where table_name = 'stored_file' and column_name = 'content'",
      );
      expect(columns).toEqual([]);
      const registered = await em.execute<{ key: string; location: string; size_bytes: string }[]>(
        'select key, location, size_bytes from file_object order by size_bytes',
      );
      expect(registered).toEqual([
        { key: sha256(empty), location: 'postgres', size_bytes: '0' },
        { key: sha256(small), location: 'postgres', size_bytes: '777' },
        { key: sha256(large), location: 'postgres', size_bytes: String(large.length) },
      ]);
      const chunks = await em.execute<{ n: string; largest: number }[]>(
        `select count(*) as n, max(length(data)) as largest from stored_object_chunk
          where object_id = (select object_id from stored_object where key = ?)`,
        [sha256(large)],
      );
      expect(chunks[0]).toEqual({ n: '3', largest: 1024 * 1024 });
      const objects = new FileObjects({
        em: db.orm.em,
        stores: { postgres: new PostgresObjectStore(db.orm.em) },
        writeTo: 'postgres',
      });
      expect(Buffer.compare(await objects.readAll(sha256(large)), large)).toBe(0);
      expect(Buffer.compare(await objects.readAll(sha256(small)), small)).toBe(0);
      expect((await objects.readAll(sha256(empty))).length).toBe(0);
    } finally {
      await db.drop();
    }
  });

  it('stops, changing nothing, when a file’s bytes do not hash to its recorded SHA-256', async () => {
    const db = await databaseAt('0046-stored-objects');
    try {
      const organizationId = await organizationIn(db.orm);
      await insertFile(db.orm, organizationId, randomBytes(500));
      const bad = await insertFile(db.orm, organizationId, randomBytes(500), {
        sha256: sha256(randomBytes(5)),
      });

      await expect(db.orm.migrator.up()).rejects.toThrow(
        new RegExp(`do not match their recorded SHA-256.*${bad}`),
      );

      const em = db.orm.em.fork();
      const kept = await em.execute<{ n: string }[]>('select count(content) as n from stored_file');
      expect(kept[0]?.n).toBe('2');
      expect(
        await em.execute("select 1 from information_schema.tables where table_name = 'file_object'"),
      ).toEqual([]);
      expect(await em.execute('select 1 from stored_object')).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});
