// The orphan sweep (docs/deployment.md "Object storage"): the daily `sigil-object-sweep` Schedule and the run it
// starts, under the Java time-skipping test server so the grace period passes in seconds, on a database of its own
// (the sweep looks at every object of its database) and a real SeaweedFS. A purged file's object goes once the
// grace period has passed — since its last put and since the purge — and not before; an object a live file
// references stays, shared or not; bytes in either store without a registry row (a put that died before its row)
// go once older than the grace period. The races with a put of the same bytes are driven one order at a time by
// holding the registry row's lock in a transaction of the test's own: a put that touched the row first keeps the
// object, a put that comes after the sweep's delete stores the bytes again, and a key a put registers while the
// sweep claims it as a stray stays.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { deleteIfUnreferenced, sweepStrayObjects } from '../../services/storage/sweep-orphan-objects.ts';
import { FileObjects } from '../../storage/file-objects.ts';
import { PostgresObjectStore } from '../../storage/postgres-object-store.ts';
import { S3ObjectStore } from '../../storage/s3-object-store.ts';
import {
  ensureObjectSweepSchedule,
  objectSweepScheduleOptions,
} from '../../temporal/object-sweep-schedule.ts';
import type { objectSweepWorkflow } from '../../workflows/object-sweep.ts';
import {
  OBJECT_SWEEP_SCHEDULE_ID,
  OBJECT_SWEEP_TASK_QUEUE,
  OBJECT_SWEEP_WORKFLOW_TYPE,
  type ObjectSweepSummary,
} from '../../workflows/object-sweep-contracts.ts';
import type { ApiHarness } from '../support/api.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { type RunningSeaweedfs, startSeaweedfs } from '../support/seaweedfs.ts';

const HOUR_MS = 60 * 60 * 1000;
const TASK_QUEUE = 'object-sweep-time-skipping';

let harness: ApiHarness & { databaseUrl: string };
let orm: Orm;
let env: TestWorkflowEnvironment;
let seaweedfs: RunningSeaweedfs;
let stores: { postgres: PostgresObjectStore; s3: S3ObjectStore };
let objects: FileObjects;
let organizationId: string;

beforeAll(async () => {
  installQuietRuntime();
  harness = await openIsolatedHarness();
  // An ORM of the test's own: the races hold several connections at once (the harness's pool is 4).
  orm = await createOrm({ databaseUrl: harness.databaseUrl, poolMax: 12 });
  seaweedfs = await startSeaweedfs();
  const settings = await seaweedfs.bucket(`sigil-sweep-${randomBytes(4).toString('hex')}`);
  stores = { postgres: new PostgresObjectStore(orm.em), s3: new S3ObjectStore(settings) };
  objects = new FileObjects({ em: orm.em, stores, writeTo: 'postgres' });
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('timeSkippingServerPath') } },
  });
  const organization = await createOrganization(
    { em: orm.em.fork() },
    { name: 'Sweep test', plan: 'Business', apiEnabled: false },
  );
  organizationId = organization.id;
});
afterAll(async () => {
  await env?.teardown();
  stores?.s3.close();
  await seaweedfs?.stop();
  await orm?.close();
  await harness?.close();
});

// ---- Helpers ------------------------------------------------------------------------------------------------

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A stored file's row referencing `key` (as an upload, a template or a final PDF writes one). */
async function fileRow(key: string, size: number, purged = false): Promise<string> {
  const id = randomUUID();
  await orm.em
    .fork()
    .execute(
      'insert into stored_file (id, organization_id, filename, content_type, size_bytes, sha256, purged_at) ' +
        'values (?, ?, ?, ?, ?, ?, ?)',
      [id, organizationId, `${id}.bin`, 'application/octet-stream', size, key, purged ? new Date() : null],
    );
  return id;
}

/** Puts fresh random bytes through the registry; answers them and their key. */
async function putRandom(size: number): Promise<{ bytes: Buffer; key: string }> {
  const bytes = randomBytes(size);
  const stored = await objects.put(bytes);
  expect(stored.key).toBe(sha256(bytes));
  return { bytes, key: stored.key };
}

async function registered(key: string): Promise<boolean> {
  const rows = await orm.em.fork().execute('select 1 from file_object where key = ?', [key]);
  return rows.length > 0;
}

/** The object reads back through the registry with its hash. */
async function readable(key: string): Promise<boolean> {
  try {
    return sha256(await objects.readAll(key)) === key;
  } catch {
    return false;
  }
}

/** One sweep run on the time-skipping server, at its current time. */
async function runSweep(graceHours?: number): Promise<ObjectSweepSummary> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({ orm, objectStores: stores }),
  });
  // A plain client (as retention.test.ts explains): only the time the test sleeps passes.
  const client = new Client({ connection: env.connection });
  return worker.runUntil(
    client.workflow.execute<typeof objectSweepWorkflow>(OBJECT_SWEEP_WORKFLOW_TYPE, {
      workflowId: `object-sweep-test-${randomUUID()}`,
      taskQueue: TASK_QUEUE,
      args: [graceHours === undefined ? {} : { graceHours }],
    }),
  );
}

/** A connection of the test's own, in a transaction holding `key`'s registry row. */
async function holdRow(key: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: harness.databaseUrl });
  await client.connect();
  await client.query('begin');
  const locked = await client.query('select key from file_object where key = $1 for update', [key]);
  expect(locked.rowCount).toBe(1);
  let open = true;
  return {
    // Idempotent, so a test's finally can release what a failed expectation left held.
    release: async () => {
      if (!open) return;
      open = false;
      await client.query('commit');
      await client.end();
    },
  };
}

/** Waits until `count` statements of this database wait for a lock. */
async function waitForLockWaiters(count: number): Promise<void> {
  await expect
    .poll(async () => {
      const [row] = await orm.em.fork().execute<{ waiting: string }[]>(
        `select count(*) as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return Number(row?.waiting ?? 0);
    })
    .toBeGreaterThanOrEqual(count);
}

/** The object's last put, and the purge of the files that referenced it, `hours` ago. */
async function ageRow(key: string, hours: number): Promise<void> {
  const at = new Date(Date.now() - hours * HOUR_MS);
  await orm.em.fork().execute('update file_object set touched_at = ? where key = ?', [at, key]);
  await orm.em
    .fork()
    .execute('update stored_file set purged_at = ? where sha256 = ? and purged_at is not null', [at, key]);
}

// ---- The tests ----------------------------------------------------------------------------------------------

describe('the sweep run, the grace period passing under the time-skipping server', () => {
  it('deletes a purged file’s object and stray objects after the grace period and not before; referenced objects stay', async () => {
    // A live file's object; one shared by a purged and a live file; one only purged files reference.
    const live = await putRandom(40_000);
    await fileRow(live.key, live.bytes.length);
    const shared = await putRandom(70_000);
    await fileRow(shared.key, shared.bytes.length, true);
    await fileRow(shared.key, shared.bytes.length);
    const purged = await putRandom(1_500_000);
    await fileRow(purged.key, purged.bytes.length, true);
    await fileRow(purged.key, purged.bytes.length, true);
    // Strays: bytes in each store without a registry row (a put that died before its row).
    const strayPostgres = randomBytes(30_000);
    const strayS3 = randomBytes(50_000);
    expect((await stores.postgres.put(strayPostgres)).key).toBe(sha256(strayPostgres));
    expect((await stores.s3.put(strayS3)).key).toBe(sha256(strayS3));

    const start = await env.currentTimeMs();
    expect(Math.abs(start - Date.now())).toBeLessThan(60_000);

    // Now: within the grace period, nothing goes.
    const today = await runSweep();
    expect(today).toMatchObject({ graceHours: 24, deleted: 0, strays: 0, bytesFreed: 0 });
    // The PostgreSQL store's four objects and S3's one were looked at.
    expect(today.checked).toBe(5);
    for (const key of [live.key, shared.key, purged.key]) expect(await readable(key)).toBe(true);
    expect(await stores.postgres.has(sha256(strayPostgres))).toBe(true);
    expect(await stores.s3.has(sha256(strayS3))).toBe(true);

    // 23 hours on: still within.
    await env.sleep(23 * HOUR_MS);
    expect(await runSweep()).toMatchObject({ deleted: 0, bytesFreed: 0 });
    expect(await readable(purged.key)).toBe(true);

    // Past the grace period: the purged file's object and both strays go, with their bytes counted.
    await env.sleep(2 * HOUR_MS);
    const due = await runSweep();
    expect(due).toMatchObject({
      graceHours: 24,
      deleted: 3,
      strays: 2,
      bytesFreed: purged.bytes.length + strayPostgres.length + strayS3.length,
    });
    // The registry's one candidate, then the three objects left in PostgreSQL and the stray in S3.
    expect(due.checked).toBe(5);
    expect(await registered(purged.key)).toBe(false);
    expect(await stores.postgres.has(purged.key)).toBe(false);
    expect(await stores.postgres.has(sha256(strayPostgres))).toBe(false);
    expect(await stores.s3.has(sha256(strayS3))).toBe(false);
    // Referenced objects stay and read back whole.
    expect(await readable(live.key)).toBe(true);
    expect(await readable(shared.key)).toBe(true);

    // A run after that finds nothing more.
    expect(await runSweep()).toMatchObject({ deleted: 0, bytesFreed: 0 });
  });

  it('takes its grace period from its input (the Schedule passes OBJECT_SWEEP_GRACE_HOURS)', async () => {
    const purged = await putRandom(10_000);
    await fileRow(purged.key, purged.bytes.length, true);
    // Touched 3 hours before the test server's now (its clock ran ahead in the test above).
    const touchedAt = async (hoursAgo: number) => {
      const at = new Date((await env.currentTimeMs()) - hoursAgo * HOUR_MS);
      await orm.em.fork().execute('update file_object set touched_at = ? where key = ?', [at, purged.key]);
    };
    await touchedAt(3);
    expect(await runSweep(4)).toMatchObject({ graceHours: 4, deleted: 0 });
    expect(await registered(purged.key)).toBe(true);
    await touchedAt(5);
    expect(await runSweep(4)).toMatchObject({ deleted: 1, bytesFreed: purged.bytes.length });
    expect(await registered(purged.key)).toBe(false);
  });
});

describe('the grace period after a purge', () => {
  it('keeps an object put long ago until the grace period has passed since its file was purged', async () => {
    const object = await putRandom(25_000);
    await fileRow(object.key, object.bytes.length, true);
    // Put two days ago, purged just now.
    await orm.em
      .fork()
      .execute('update file_object set touched_at = ? where key = ?', [
        new Date(Date.now() - 48 * HOUR_MS),
        object.key,
      ]);
    const before = new Date(Date.now() - 24 * HOUR_MS);
    expect(await deleteIfUnreferenced({ em: orm.em, stores }, object.key, before)).toBeNull();
    expect(await readable(object.key)).toBe(true);
    // Purged 25 hours ago: it goes.
    await ageRow(object.key, 25);
    expect(await deleteIfUnreferenced({ em: orm.em, stores }, object.key, before)).toBe(object.bytes.length);
    expect(await registered(object.key)).toBe(false);
    expect(await stores.postgres.has(object.key)).toBe(false);
  });
});

describe('a put of the same bytes racing the sweep', () => {
  it('keeps the object when the put touched the registry row before the sweep took it', async () => {
    const object = await putRandom(200_000);
    await fileRow(object.key, object.bytes.length, true);
    await ageRow(object.key, 48);
    const before = new Date(Date.now() - 24 * HOUR_MS);
    const held = await holdRow(object.key);
    try {
      // The put waits for the row first, the sweep behind it.
      const put = objects.put(object.bytes);
      await waitForLockWaiters(1);
      const swept = deleteIfUnreferenced({ em: orm.em, stores }, object.key, before);
      await waitForLockWaiters(2);
      await held.release();
      expect(await put).toEqual({ key: object.key, size: object.bytes.length });
      // Under the lock the sweep sees the row touched now: it stays.
      expect(await swept).toBeNull();
    } finally {
      await held.release();
    }
    expect(await registered(object.key)).toBe(true);
    expect(await readable(object.key)).toBe(true);
  });

  it('stores the bytes again when the put comes after the sweep deleted the object', async () => {
    const object = await putRandom(300_000);
    await fileRow(object.key, object.bytes.length, true);
    await ageRow(object.key, 48);
    const before = new Date(Date.now() - 24 * HOUR_MS);
    const held = await holdRow(object.key);
    try {
      // The sweep waits for the row first, the put behind it.
      const swept = deleteIfUnreferenced({ em: orm.em, stores }, object.key, before);
      await waitForLockWaiters(1);
      const put = objects.put(object.bytes);
      await waitForLockWaiters(2);
      await held.release();
      // The sweep deleted the bytes and the row; the put found its row new and the bytes gone, and stored them.
      expect(await swept).toBe(object.bytes.length);
      expect(await put).toEqual({ key: object.key, size: object.bytes.length });
    } finally {
      await held.release();
    }
    expect(await registered(object.key)).toBe(true);
    expect(await stores.postgres.has(object.key)).toBe(true);
    expect(await readable(object.key)).toBe(true);
  });

  it('leaves a stray that a put registers while the sweep claims it', async () => {
    const bytes = randomBytes(20_000);
    const key = sha256(bytes);
    await stores.postgres.put(bytes);
    // A put's registry insert, not yet committed, in the test's own transaction.
    const client = new pg.Client({ connectionString: harness.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(
        "insert into file_object (key, location, size_bytes, touched_at) values ($1, 'postgres', $2, now())",
        [key, bytes.length],
      );
      const swept = sweepStrayObjects({ em: orm.em, stores }, 'postgres', {
        before: new Date(Date.now() + HOUR_MS),
        after: null,
        limit: 1000,
      });
      await waitForLockWaiters(1);
      await client.query('commit');
      const page = await swept;
      expect(page.deleted).toBe(0);
    } finally {
      await client.end();
    }
    expect(await registered(key)).toBe(true);
    expect(await readable(key)).toBe(true);
  });
});

describe('the Temporal Schedule', () => {
  afterAll(async () => {
    await harness.ctx.temporal.schedule
      .getHandle(OBJECT_SWEEP_SCHEDULE_ID)
      .delete()
      .catch(() => {});
  });

  it('is created once with the configured grace period, updated when it changes, and starts a sweep', async () => {
    const client = harness.ctx.temporal;
    expect(await ensureObjectSweepSchedule(client, 24)).toBe('created');
    expect(await ensureObjectSweepSchedule(client, 24)).toBe('unchanged');
    const handle = client.schedule.getHandle(OBJECT_SWEEP_SCHEDULE_ID);
    const described = await handle.describe();
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: OBJECT_SWEEP_WORKFLOW_TYPE,
      taskQueue: OBJECT_SWEEP_TASK_QUEUE,
    });
    expect(described.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 4, end: 4, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
    });
    expect(described.policies).toMatchObject({ overlap: 'SKIP' });
    expect(await ensureObjectSweepSchedule(client, 36)).toBe('updated');
    const updated = await handle.describe();
    expect(updated.action.memo).toEqual(objectSweepScheduleOptions(36).action.memo);
    if (updated.action.type !== 'startWorkflow') throw new Error('not a workflow start');
    expect(updated.action.args).toEqual([{ graceHours: 36 }]);

    // "Trigger" in the Web UI: a run on the suite's envelope workers, against the suite's database.
    await handle.trigger();
    await expect.poll(async () => (await handle.describe()).info.recentActions.length).toBeGreaterThan(0);
    const action = (await handle.describe()).info.recentActions[0];
    const workflowId = action?.action.workflow.workflowId as string;
    expect(workflowId.startsWith('object-sweep-')).toBe(true);
    const summary = (await client.workflow.getHandle(workflowId).result()) as ObjectSweepSummary;
    expect(summary).toMatchObject({ graceHours: 36 });
    expect(summary.checked).toBeGreaterThanOrEqual(0);
  });
});
