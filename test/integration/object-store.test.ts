// The storage port's contract (storage/object-store.ts), one suite run against both implementations: PostgreSQL
// (the suite's database) and S3-compatible storage on a real SeaweedFS started for this file. A 5 MB object
// makes the round trip as a stream both ways; bytes corrupted behind the port's back are an error, never served;
// the same bytes put twice are one object; a missing key is ObjectNotFoundError; a listing goes in key order.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ObjectIntegrityError,
  ObjectNotFoundError,
  type ObjectStore,
  readAll,
} from '../../storage/object-store.ts';
import { POSTGRES_CHUNK_BYTES, PostgresObjectStore } from '../../storage/postgres-object-store.ts';
import { S3ObjectStore } from '../../storage/s3-object-store.ts';
import { openTestContext, type TestContext } from '../support/context.ts';
import { type RunningSeaweedfs, startSeaweedfs } from '../support/seaweedfs.ts';

const FIVE_MB = 5 * 1024 * 1024;
const PIECE = 64 * 1024;

/** A stream of `size` random bytes in 64 KiB pieces, and their SHA-256 once it has flowed. */
function randomStream(size: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  async function* pieces() {
    for (let sent = 0; sent < size; sent += PIECE) {
      const piece = randomBytes(Math.min(PIECE, size - sent));
      hash.update(piece);
      yield piece;
    }
  }
  let digest: string | undefined;
  return {
    stream: Readable.from(pieces()),
    digest: () => {
      digest ??= hash.digest('hex');
      return digest;
    },
  };
}

/** Reads a stream to its end, hashing it piece by piece; counts the pieces. */
async function hashStream(stream: Readable): Promise<{ sha256: string; size: number; pieces: number }> {
  const hash = createHash('sha256');
  let size = 0;
  let pieces = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
    pieces++;
  }
  return { sha256: hash.digest('hex'), size, pieces };
}

interface Implementation {
  store: () => ObjectStore;
  /** Replaces the stored bytes of `key` with others of the same length, behind the port's back. */
  corrupt: (key: string) => Promise<void>;
  /** How many copies of the bytes of `key` the backend holds (rows, objects). */
  copies: (key: string) => Promise<number>;
}

function contract(
  name: string,
  implementation: () => Implementation,
  hooks?: { before: () => Promise<void>; after: () => Promise<void> },
) {
  describe(`object store contract: ${name}`, () => {
    if (hooks) {
      beforeAll(hooks.before, 20 * 60_000);
      afterAll(hooks.after);
    }
    it('stores a 5 MB stream under its SHA-256 and streams it back verified', async () => {
      const { store } = implementation();
      const source = randomStream(FIVE_MB);
      const stored = await store().put(source.stream);
      expect(stored).toEqual({ key: source.digest(), size: FIVE_MB });
      expect(await store().has(stored.key)).toBe(true);
      const read = await hashStream(await store().get(stored.key));
      expect(read.sha256).toBe(source.digest());
      expect(read.size).toBe(FIVE_MB);
      // Streamed back in pieces, not handed over as one buffer.
      expect(read.pieces).toBeGreaterThan(1);
    });

    it('puts the same bytes twice as one object (bytes, then a stream of them)', async () => {
      const { store, copies } = implementation();
      const bytes = randomBytes(300_000);
      const first = await store().put(bytes);
      const second = await store().put(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]));
      expect(second).toEqual(first);
      expect(first.key).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(await copies(first.key)).toBe(1);
      expect(Buffer.compare(await readAll(await store().get(first.key)), bytes)).toBe(0);
    });

    it('fails the read of bytes corrupted behind its back, never ending it as the object', async () => {
      const { store, corrupt } = implementation();
      const bytes = randomBytes(200_000);
      const { key } = await store().put(bytes);
      await corrupt(key);
      const stream = await store().get(key);
      const error = await readAll(stream).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ObjectIntegrityError);
      expect((error as ObjectIntegrityError).key).toBe(key);
      expect(String((error as Error).message)).toContain('hash to');
    });

    it('answers a missing key with ObjectNotFoundError, has=false, and deletes idempotently', async () => {
      const { store } = implementation();
      const missing = createHash('sha256').update(randomBytes(16)).digest('hex');
      expect(await store().has(missing)).toBe(false);
      await expect(store().get(missing)).rejects.toBeInstanceOf(ObjectNotFoundError);
      await store().delete(missing);

      const { key } = await store().put(randomBytes(1000));
      await store().delete(key);
      expect(await store().has(key)).toBe(false);
      await expect(store().get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('lists objects in key order after a key, with their size and when they were stored', async () => {
      const { store } = implementation();
      const started = Date.now() - 60_000;
      const sizes = [1000, 2000, 3000];
      const stored = await Promise.all(sizes.map((size) => store().put(randomBytes(size))));
      const [k1, k2, k3] = stored.map((object) => object.key).sort() as [string, string, string];
      const all = await store().list(null, 100_000);
      const keys = all.map((object) => object.key);
      expect(keys).toEqual([...keys].sort());
      for (const { key, size } of stored) {
        const listed = all.find((object) => object.key === key);
        expect(listed?.size).toBe(size);
        expect(listed?.storedAt.getTime()).toBeGreaterThan(started);
      }
      const [next] = await store().list(k1, 1);
      expect(next && next.key > k1 && next.key <= k2).toBe(true);
      const after = (await store().list(k2, 100_000)).map((object) => object.key);
      expect(after).toContain(k3);
      expect(after).not.toContain(k1);
      expect(after).not.toContain(k2);
    });

    it('refuses a key that is not a SHA-256 in lowercase hex', async () => {
      const { store } = implementation();
      await expect(store().get('../etc/passwd')).rejects.toThrow(/Not an object key/);
      await expect(store().has('A'.repeat(64))).rejects.toThrow(/Not an object key/);
    });
  });
}

let ctx: TestContext;
let seaweedfs: RunningSeaweedfs | undefined;
let s3Store: S3ObjectStore | undefined;
let rawS3: S3Client | undefined;
let bucket = '';

beforeAll(async () => {
  ctx = await openTestContext();
});

afterAll(async () => {
  await ctx?.close();
});

/** SeaweedFS only for the S3 half (its first build takes minutes: `npm run provision -- --seaweedfs`). */
async function startS3(): Promise<void> {
  seaweedfs = await startSeaweedfs();
  bucket = `sigil-objects-${randomBytes(4).toString('hex')}`;
  const settings = await seaweedfs.bucket(bucket);
  s3Store = new S3ObjectStore(settings);
  rawS3 = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: settings.credentials ?? undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

async function stopS3(): Promise<void> {
  s3Store?.close();
  rawS3?.destroy();
  await seaweedfs?.stop();
}

contract('PostgreSQL', () => ({
  store: () => new PostgresObjectStore(ctx.orm.em),
  corrupt: async (key) => {
    // Flip one byte of the first chunk: same length, other bytes.
    await ctx.em.execute(
      `update stored_object_chunk set data = overlay(data placing decode(lpad(to_hex(255 - get_byte(data, 10)), 2, '0'), 'hex') from 11 for 1)
       where seq = 0 and object_id = (select object_id from stored_object where key = ?)`,
      [key],
    );
  },
  copies: async (key) => {
    const rows = await ctx.em.execute<{ n: string }[]>(
      'select count(*) as n from stored_object where key = ?',
      [key],
    );
    return Number(rows[0]?.n);
  },
}));

contract(
  'S3 (SeaweedFS)',
  () => ({
    store: () => {
      if (!s3Store) throw new Error('SeaweedFS did not start');
      return s3Store;
    },
    corrupt: async (key) => {
      const other = randomBytes(200_000);
      await rawS3?.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: other, ContentLength: other.length }),
      );
    },
    copies: async (key) => ((await s3Store?.has(key)) ? 1 : 0),
  }),
  { before: startS3, after: stopS3 },
);

describe('PostgreSQL object store layout', () => {
  it('keeps a 5 MB object as 1 MiB chunks, and deleting it removes them', async () => {
    const store = new PostgresObjectStore(ctx.orm.em);
    const source = randomStream(FIVE_MB);
    const { key } = await store.put(source.stream);
    const chunks = async () =>
      ctx.em.execute<{ n: string; largest: number | null }[]>(
        `select count(*) as n, max(length(data)) as largest from stored_object_chunk
         where object_id = (select object_id from stored_object where key = ?)`,
        [key],
      );
    const [before] = await chunks();
    expect(Number(before?.n)).toBe(FIVE_MB / POSTGRES_CHUNK_BYTES);
    expect(before?.largest).toBe(POSTGRES_CHUNK_BYTES);
    const [row] = await ctx.em.execute<{ object_id: string }[]>(
      'select object_id from stored_object where key = ?',
      [key],
    );
    const objectId = row?.object_id;
    expect(objectId).toBeDefined();
    await store.delete(key);
    const left = await ctx.em.execute<{ n: string }[]>(
      'select count(*) as n from stored_object_chunk where object_id = ?',
      [objectId],
    );
    expect(Number(left[0]?.n)).toBe(0);
  });

  it('leaves no chunks behind when the same bytes are put again', async () => {
    const store = new PostgresObjectStore(ctx.orm.em);
    const bytes = randomBytes(50_000);
    await store.put(bytes);
    const count = async () =>
      Number((await ctx.em.execute<{ n: string }[]>('select count(*) as n from stored_object_chunk'))[0]?.n);
    const before = await count();
    await store.put(bytes);
    expect(await count()).toBe(before);
  });
});
