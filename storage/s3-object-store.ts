// The storage port in S3-compatible object storage (AWS S3, SeaweedFS, …) through @aws-sdk/client-s3: an object
// is `<S3_KEY_PREFIX><sha256 hex>` in S3_BUCKET. A put from a stream spools the bytes to a temporary file while
// hashing them (the key is known only at the end, and S3 wants a length up front), then uploads that file as a
// stream; bytes already stored are not uploaded again. A get streams the body through the SHA-256 check.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../config/storage.ts';
import {
  assertObjectKey,
  chunksOf,
  type ListedObject,
  type ObjectKey,
  ObjectNotFoundError,
  type ObjectSource,
  type ObjectStore,
  type StoredObject,
  verified,
} from './object-store.ts';

export interface S3ObjectStoreOptions {
  /** Where a streamed put spools its bytes while hashing them; the system's temporary directory by default. */
  spoolDir?: string;
}

export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #settings: S3Settings;
  readonly #spoolDir: string;

  constructor(settings: S3Settings, options: S3ObjectStoreOptions = {}) {
    this.#settings = settings;
    this.#spoolDir = options.spoolDir ?? tmpdir();
    this.#client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // The SDK's default CRC checksums (and aws-chunked uploads) are not understood by every S3-compatible
      // store; the port checks SHA-256 itself on every read, so only the checksums an operation requires are sent.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** The bucket's name for an object. */
  objectName(key: ObjectKey): string {
    return `${this.#settings.keyPrefix}${key}`;
  }

  async put(source: ObjectSource): Promise<StoredObject> {
    if (source instanceof Uint8Array) {
      const key = createHash('sha256').update(source).digest('hex');
      if (!(await this.has(key))) await this.#upload(key, source, source.length);
      return { key, size: source.length };
    }
    const dir = await mkdtemp(join(this.#spoolDir, 'sigil-put-'));
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
      const key = hash.digest('hex');
      if (!(await this.has(key))) await this.#upload(key, createReadStream(file), size);
      return { key, size };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async #upload(key: ObjectKey, body: Uint8Array | Readable, size: number): Promise<void> {
    const sse = this.#settings.serverSideEncryption;
    const input: PutObjectCommandInput = {
      Bucket: this.#settings.bucket,
      Key: this.objectName(key),
      Body: body,
      ContentLength: size,
      ContentType: 'application/octet-stream',
      ...(sse ? { ServerSideEncryption: sse.algorithm, SSEKMSKeyId: sse.kmsKeyId } : {}),
    };
    await this.#client.send(new PutObjectCommand(input));
  }

  async get(key: ObjectKey): Promise<Readable> {
    assertObjectKey(key);
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#settings.bucket, Key: this.objectName(key) }),
      );
      if (!(answer.Body instanceof Readable)) throw new Error('The S3 client answered no Node.js stream.');
      return verified(answer.Body, key, answer.ContentLength);
    } catch (error) {
      if (isMissing(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async has(key: ObjectKey): Promise<boolean> {
    assertObjectKey(key);
    try {
      await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#settings.bucket, Key: this.objectName(key) }),
      );
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: ObjectKey): Promise<void> {
    assertObjectKey(key);
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.#settings.bucket, Key: this.objectName(key) }),
    );
  }

  /** Lists by ListObjectsV2 under S3_KEY_PREFIX; names that are not an object key (someone else's) are passed over. */
  async list(after: ObjectKey | null, limit: number): Promise<ListedObject[]> {
    const prefix = this.#settings.keyPrefix;
    const listed: ListedObject[] = [];
    let startAfter = after === null ? undefined : this.objectName(after);
    let token: string | undefined;
    while (listed.length < limit) {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#settings.bucket,
          Prefix: prefix || undefined,
          MaxKeys: Math.min(1000, limit - listed.length),
          ...(token ? { ContinuationToken: token } : startAfter ? { StartAfter: startAfter } : {}),
        }),
      );
      for (const entry of page.Contents ?? []) {
        const key = entry.Key?.slice(prefix.length) ?? '';
        if (!/^[0-9a-f]{64}$/.test(key) || (after !== null && key <= after)) continue;
        listed.push({ key, size: entry.Size ?? 0, storedAt: entry.LastModified ?? new Date(0) });
      }
      if (!page.IsTruncated || !page.NextContinuationToken) break;
      token = page.NextContinuationToken;
      startAfter = undefined;
    }
    return listed.slice(0, limit);
  }

  /** Closes the client's connections. */
  close(): void {
    this.#client.destroy();
  }
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}
