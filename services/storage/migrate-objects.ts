// `sigil storage migrate --to s3|postgres` (issue 36, docs/deployment.md "Object storage"): moves every registered
// object whose location is the other store, one at a time, while the service runs:
//   1. copy: the source's bytes stream into the target store (the source's SHA-256 checked as they flow, the
//      target's key computed from what it received), then the target's copy is read back whole and checked;
//   2. move: `update file_object set location = target where key = ? and location = source` in a transaction —
//      readers from then on read the target (a reader that missed retries at the new location);
//   3. delete the source copy, a few seconds later (a download that began at the old location finishes), holding
//      the registry row `for update` and only while it still says the target.
// A kill at any point loses nothing: before 2 the object is at the source (maybe also at the target), after it at
// the target (maybe also still at the source); a rerun copies what is still at the source again (the copy is
// idempotent) and deletes the copies left at the source of objects already moved. One migration at a time: a
// session advisory lock on a connection of its own, released by PostgreSQL if the process dies.
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { ObjectLocation } from '../../storage/file-objects.ts';
import { type ObjectKey, ObjectNotFoundError, type ObjectStore } from '../../storage/object-store.ts';
import { Conflict, InvalidRequest } from '../errors.ts';
import { type ObjectStores, storeAt } from './object-stores.ts';

/** How long a source copy stays after its object moved, so that a download already reading it can finish. */
export const SOURCE_DELETE_DELAY_MS = 5_000;
/** How often progress is reported. */
export const PROGRESS_EVERY_MS = 3_000;
/** Registry rows read per query. */
const PAGE_SIZE = 100;
/** Passes over the source's rows: each picks up rows written behind the previous pass's cursor. */
const MAX_PASSES = 3;
/** pg_try_advisory_lock's key for `sigil storage migrate`. */
const MIGRATION_LOCK_KEY = 7_304_511_236;

export interface MigrationProgress {
  to: ObjectLocation;
  /** Objects moved so far, of `total` found at the source. */
  done: number;
  total: number;
  bytes: number;
  totalBytes: number;
  /** Bytes per second since the start. */
  rate: number;
  elapsedMs: number;
}

export interface MigrationResult extends MigrationProgress {
  /** Copies left at the source by an earlier, interrupted run (their objects had moved), deleted. */
  leftoversDeleted: number;
  /** Objects that could not be copied (their source bytes missing or corrupt), with why. */
  failed: { key: ObjectKey; reason: string }[];
  /** Registered objects still at the source afterwards (written there during the run, or failed). */
  remaining: number;
  /** Copies still in the source store of objects that moved (none when the run finished). */
  remainingCopies: number;
}

export interface MigrateObjectsInput {
  /** The process's entity manager (forked for every transaction). */
  em: EntityManager;
  /** For the advisory lock's own connection. */
  databaseUrl: string;
  stores: ObjectStores;
  to: string;
  onProgress?: (progress: MigrationProgress) => void;
  progressEveryMs?: number;
  sourceDeleteDelayMs?: number;
}

export async function migrateObjects(input: MigrateObjectsInput): Promise<MigrationResult> {
  if (input.to !== 's3' && input.to !== 'postgres') {
    throw new InvalidRequest('--to must be s3 or postgres.', [
      { field: 'to', message: 'must be s3 or postgres' },
    ]);
  }
  const to: ObjectLocation = input.to;
  const from: ObjectLocation = to === 's3' ? 'postgres' : 's3';
  const target = storeAt(input.stores, to);
  const source = storeAt(input.stores, from);
  if (!target || !source) {
    throw new InvalidRequest(
      'S3 is not configured: set S3_BUCKET (and S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, ' +
        'S3_FORCE_PATH_STYLE as your store needs) — docs/deployment.md "Object storage".',
      [{ field: 'S3_BUCKET', message: 'required to migrate to or from S3' }],
    );
  }
  const lock = new pg.Client({ connectionString: input.databaseUrl });
  await lock.connect();
  try {
    const [{ locked } = { locked: false }] = (
      await lock.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [MIGRATION_LOCK_KEY])
    ).rows;
    if (!locked) throw new Conflict('Another `sigil storage migrate` is running against this database.');
    return await new Migration(input, from, to, source, target).run();
  } finally {
    await lock.end();
  }
}

class Migration {
  readonly #em: EntityManager;
  readonly #progress: MigrationProgress;
  readonly #failed: { key: ObjectKey; reason: string }[] = [];
  readonly #failedKeys = new Set<ObjectKey>();
  /** Source copies to delete once SOURCE_DELETE_DELAY_MS has passed since their object moved. */
  readonly #toDelete: { key: ObjectKey; due: number }[] = [];
  readonly #started = Date.now();
  #leftoversDeleted = 0;

  readonly input: MigrateObjectsInput;
  readonly from: ObjectLocation;
  readonly to: ObjectLocation;
  readonly source: ObjectStore;
  readonly target: ObjectStore;

  constructor(
    input: MigrateObjectsInput,
    from: ObjectLocation,
    to: ObjectLocation,
    source: ObjectStore,
    target: ObjectStore,
  ) {
    this.input = input;
    this.from = from;
    this.to = to;
    this.source = source;
    this.target = target;
    this.#em = input.em;
    this.#progress = { to, done: 0, total: 0, bytes: 0, totalBytes: 0, rate: 0, elapsedMs: 0 };
  }

  async run(): Promise<MigrationResult> {
    const atSource = await this.#countAtSource();
    this.#progress.total = atSource.count;
    this.#progress.totalBytes = atSource.bytes;
    this.#report();
    const timer = setInterval(() => this.#report(), this.input.progressEveryMs ?? PROGRESS_EVERY_MS);
    try {
      for (let pass = 0; pass < MAX_PASSES; pass++) {
        if ((await this.#pass()) === 0) break;
      }
      await this.#deleteLeftovers();
      await this.#drainDeletes(true);
    } finally {
      clearInterval(timer);
    }
    this.#report();
    const remaining = await this.#countAtSource();
    return {
      ...this.#progress,
      leftoversDeleted: this.#leftoversDeleted,
      failed: this.#failed,
      remaining: remaining.count,
      remainingCopies: await this.#countLeftovers(),
    };
  }

  async #countAtSource(): Promise<{ count: number; bytes: number }> {
    const [row] = await this.#em
      .fork()
      .execute<{ count: string; bytes: string | null }[]>(
        'select count(*) as count, sum(size_bytes) as bytes from file_object where location = ?',
        [this.from],
      );
    return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** One walk over the source's rows in key order; answers how many it tried. */
  async #pass(): Promise<number> {
    // Rows written at the source since the last count (writes keep going to STORAGE) join the total.
    const atSource = await this.#countAtSource();
    this.#progress.total = this.#progress.done + atSource.count;
    this.#progress.totalBytes = this.#progress.bytes + atSource.bytes;
    let after = '';
    let tried = 0;
    while (true) {
      const rows = await this.#em
        .fork()
        .execute<{ key: string; size_bytes: string }[]>(
          'select key, size_bytes from file_object where location = ? and key > ? order by key limit ?',
          [this.from, after, PAGE_SIZE],
        );
      for (const row of rows) {
        after = row.key;
        if (this.#failedKeys.has(row.key)) continue;
        tried += 1;
        await this.#moveOne(row.key, Number(row.size_bytes));
        await this.#drainDeletes(false);
      }
      if (rows.length < PAGE_SIZE) return tried;
    }
  }

  async #moveOne(key: ObjectKey, size: number): Promise<void> {
    try {
      const stored = await this.target.put(await this.source.get(key));
      if (stored.key !== key) throw new Error(`the ${this.to} store stored the bytes as ${stored.key}`);
      // Read back what the target holds (its put skips bytes it has already): hash and size checked as it flows.
      for await (const _ of await this.target.get(key)) {
        // the check is in the stream
      }
    } catch (error) {
      if (error instanceof ObjectNotFoundError && (await this.#locationOf(key)) !== this.from) {
        return; // swept (unreferenced) or no longer at the source meanwhile
      }
      this.#failedKeys.add(key);
      this.#failed.push({ key, reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    const moved = await this.#em
      .fork()
      .execute('update file_object set location = ? where key = ? and location = ? returning key', [
        this.to,
        key,
        this.from,
      ]);
    // The row went (the sweep) meanwhile: the copy at the target is a stray the sweep removes.
    if (moved.length === 0) return;
    this.#progress.done += 1;
    this.#progress.bytes += size;
    this.#toDelete.push({
      key,
      due: Date.now() + (this.input.sourceDeleteDelayMs ?? SOURCE_DELETE_DELAY_MS),
    });
  }

  async #locationOf(key: ObjectKey): Promise<ObjectLocation | undefined> {
    const [row] = await this.#em
      .fork()
      .execute<{ location: ObjectLocation }[]>('select location from file_object where key = ?', [key]);
    return row?.location;
  }

  /** Deletes the source copies that are due (all, waiting for them, when `all`). */
  async #drainDeletes(all: boolean): Promise<void> {
    while (this.#toDelete.length > 0) {
      const next = this.#toDelete[0] as { key: ObjectKey; due: number };
      const wait = next.due - Date.now();
      if (wait > 0) {
        if (!all) return;
        await new Promise((resume) => setTimeout(resume, wait));
      }
      this.#toDelete.shift();
      await this.#deleteSourceCopy(next.key);
    }
  }

  /** Deletes the source's copy while the registry row, locked, says the object is at the target. */
  async #deleteSourceCopy(key: ObjectKey): Promise<boolean> {
    return this.#em.fork().transactional(async (tx) => {
      const [row] = await tx.execute<{ location: ObjectLocation }[]>(
        'select location from file_object where key = ? for update',
        [key],
      );
      if (row?.location !== this.to) return false;
      await this.source.delete(key);
      return true;
    });
  }

  /** Copies at the source of objects that are at the target: an interrupted run's (or this run's, if any). */
  async #deleteLeftovers(): Promise<void> {
    const pending = new Set(this.#toDelete.map((entry) => entry.key));
    for await (const key of this.#leftovers()) {
      if (pending.has(key)) continue;
      if (await this.#deleteSourceCopy(key)) this.#leftoversDeleted += 1;
    }
  }

  async #countLeftovers(): Promise<number> {
    let count = 0;
    for await (const _ of this.#leftovers()) count += 1;
    return count;
  }

  /** Keys in the source store whose registry row says the target. */
  async *#leftovers(): AsyncGenerator<ObjectKey> {
    let after: ObjectKey | null = null;
    while (true) {
      const listed = await this.source.list(after, PAGE_SIZE);
      if (listed.length === 0) return;
      const atTarget = await this.#em
        .fork()
        .execute<{ key: string }[]>(
          'select key from file_object where key = any(?::text[]) and location = ?',
          [`{${listed.map((object) => object.key).join(',')}}`, this.to],
        );
      for (const { key } of atTarget) yield key;
      after = listed[listed.length - 1]?.key ?? null;
      if (listed.length < PAGE_SIZE) return;
    }
  }

  #report(): void {
    this.#progress.elapsedMs = Date.now() - this.#started;
    this.#progress.rate =
      this.#progress.elapsedMs > 0 ? (this.#progress.bytes * 1000) / this.#progress.elapsedMs : 0;
    this.input.onProgress?.({ ...this.#progress });
  }
}
