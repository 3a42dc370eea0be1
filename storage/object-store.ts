// The storage port: where the bytes of files live, behind one interface with two implementations — PostgreSQL
// (`postgres-object-store.ts`, the embedded default) and S3-compatible object storage (`s3-object-store.ts`).
// Objects are content-addressed and immutable: the key is the SHA-256 of the bytes (hex), a put of bytes already
// stored changes nothing, and every read checks the hash while it streams. See docs/architecture.md "Object
// storage".
import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';

/** A SHA-256 in lowercase hex: the key of an object. */
export type ObjectKey = string;

/** What a put reads: the bytes themselves, or a stream of them (never gathered whole in memory). */
export type ObjectSource = Uint8Array | Readable | AsyncIterable<Uint8Array>;

export interface StoredObject {
  /** SHA-256 of the bytes, lowercase hex. */
  key: ObjectKey;
  size: number;
}

export interface ObjectStore {
  /** Which implementation: 'postgres' or 's3'. */
  readonly kind: 'postgres' | 's3';
  /**
   * Stores the bytes under their SHA-256 and answers the key and size once they are durably stored (before a
   * row that references them is written). Storing bytes already stored is a no-op with the same answer.
   */
  put(source: ObjectSource): Promise<StoredObject>;
  /**
   * The object's bytes as a stream that checks their SHA-256 (and size) while it flows: a mismatch makes the
   * stream fail with ObjectIntegrityError instead of ending, so a reader never takes corrupt bytes for the
   * object. A missing key rejects with ObjectNotFoundError.
   */
  get(key: ObjectKey): Promise<Readable>;
  has(key: ObjectKey): Promise<boolean>;
  /** Removes the object (the orphan sweep's call); removing a missing key is a no-op. */
  delete(key: ObjectKey): Promise<void>;
  /**
   * The stored objects whose keys sort after `after` (null: from the first), in key order, at most `limit`: how
   * the orphan sweep finds objects without a registry row and `sigil storage migrate` finds copies left behind.
   */
  list(after: ObjectKey | null, limit: number): Promise<ListedObject[]>;
}

/** An object as a store lists it. */
export interface ListedObject {
  key: ObjectKey;
  size: number;
  /** When the store wrote it (PostgreSQL: the row's created_at; S3: LastModified). */
  storedAt: Date;
}

export class ObjectNotFoundError extends Error {
  readonly key: ObjectKey;
  constructor(key: ObjectKey) {
    super(`No stored object has the key ${key}.`);
    this.name = 'ObjectNotFoundError';
    this.key = key;
  }
}

/** The bytes read do not hash to their key (or are not the stored size): they are never handed on as the object. */
export class ObjectIntegrityError extends Error {
  readonly key: ObjectKey;
  constructor(key: ObjectKey, problem: string) {
    super(`The stored object ${key} is corrupt: ${problem}.`);
    this.name = 'ObjectIntegrityError';
    this.key = key;
  }
}

const KEY_PATTERN = /^[0-9a-f]{64}$/;

/** Refuses anything but a SHA-256 in lowercase hex, so a key can never name a path or a prefix. */
export function assertObjectKey(key: string): asserts key is ObjectKey {
  if (!KEY_PATTERN.test(key)) throw new TypeError(`Not an object key (a SHA-256 in lowercase hex): ${key}`);
}

/** The source as chunks, without copying a stream into memory. */
export async function* chunksOf(source: ObjectSource): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  for await (const chunk of source) {
    yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
  }
}

/**
 * A pass-through that hashes what flows and, at its end, compares with `key` (and `size` when known): on a
 * mismatch it fails instead of ending. It holds back the last chunk until the check passes, so the bytes that
 * have flowed before a failure are never the whole object — an HTTP response fed from it (even one that
 * announced its Content-Length) is cut off, never completed — which is the price of not holding a large file
 * in memory.
 */
export function verifyingStream(key: ObjectKey, size?: number): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  let held: Buffer | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      seen += chunk.length;
      if (size !== undefined && seen > size) {
        done(new ObjectIntegrityError(key, `more than the ${size} bytes stored`));
        return;
      }
      hash.update(chunk);
      const previous = held;
      held = chunk;
      done(null, previous);
    },
    flush(done: TransformCallback) {
      if (size !== undefined && seen !== size) {
        done(new ObjectIntegrityError(key, `${seen} bytes read of the ${size} stored`));
        return;
      }
      const actual = hash.digest('hex');
      if (actual !== key) {
        done(new ObjectIntegrityError(key, `its bytes hash to ${actual}`));
        return;
      }
      done(null, held);
    },
  });
}

/** Pipes `source` through verifyingStream, passing a source's error on. */
export function verified(source: Readable, key: ObjectKey, size?: number): Readable {
  const check = verifyingStream(key, size);
  source.once('error', (error) => check.destroy(error));
  return source.pipe(check);
}

/** Reads a whole object into memory: for small objects and tests only (the port itself never does this). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** `Readable.from` for a generator of chunks, in binary mode. */
export function readableOf(chunks: AsyncIterable<Uint8Array>): Readable {
  return Readable.from(chunks, { objectMode: false });
}
