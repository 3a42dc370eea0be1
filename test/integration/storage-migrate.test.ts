// `sigil storage migrate --to s3|postgres` (docs/deployment.md "Object storage") as an operator runs it, a real
// process, on a database of its own populated with a few dozen files of mixed sizes up to 3.5 MB (some objects
// shared by several files, some only by purged ones) and a real SeaweedFS. The migration to S3 is SIGKILLed in
// the middle — at that moment every object is still where the registry says — and a rerun finishes while another
// writer keeps putting files into PostgreSQL (STORAGE=postgres); a last run takes those stragglers. Then every
// file's bytes read back from S3 with their hashes and the PostgreSQL store is empty; the way back to PostgreSQL
// likewise empties the bucket. Progress lines are printed; the exit code is 1 while anything is left at the source
// (an object whose bytes are corrupt there is named and stays), and a clear error without S3 settings.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Settings } from '../../config/storage.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { FileObjects, type ObjectLocation } from '../../storage/file-objects.ts';
import { type ObjectStore, readAll } from '../../storage/object-store.ts';
import { PostgresObjectStore } from '../../storage/postgres-object-store.ts';
import { S3ObjectStore } from '../../storage/s3-object-store.ts';
import type { ApiHarness } from '../support/api.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { type RunningSeaweedfs, startSeaweedfs } from '../support/seaweedfs.ts';

const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));
const KB = 1024;
const MB = 1024 * KB;

let harness: ApiHarness & { databaseUrl: string };
let orm: Orm;
let seaweedfs: RunningSeaweedfs;
let settings: S3Settings;
let stores: { postgres: PostgresObjectStore; s3: S3ObjectStore };
let organizationId: string;

beforeAll(async () => {
  harness = await openIsolatedHarness();
  // An ORM of the test's own: the races hold several connections at once (the harness's pool is 4).
  orm = await createOrm({ databaseUrl: harness.databaseUrl, poolMax: 12 });
  seaweedfs = await startSeaweedfs();
  settings = await seaweedfs.bucket(`sigil-migrate-${randomBytes(4).toString('hex')}`);
  stores = { postgres: new PostgresObjectStore(orm.em), s3: new S3ObjectStore(settings) };
  const organization = await createOrganization(
    { em: orm.em.fork() },
    { name: 'Migration test', plan: 'Business', apiEnabled: false },
  );
  organizationId = organization.id;
});
afterAll(async () => {
  stores?.s3.close();
  await seaweedfs?.stop();
  await orm?.close();
  await harness?.close();
});

// ---- Helpers ------------------------------------------------------------------------------------------------

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The CLI's environment: the test database, and S3 settings unless `withoutS3`. */
function cliEnv(withoutS3 = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SIGIL_ENV: 'test', DATABASE_URL: harness.databaseUrl };
  for (const name of Object.keys(env)) if (name === 'STORAGE' || name.startsWith('S3_')) delete env[name];
  if (withoutS3) return env;
  return {
    ...env,
    S3_ENDPOINT: settings.endpoint,
    S3_BUCKET: settings.bucket,
    S3_ACCESS_KEY_ID: settings.credentials?.accessKeyId,
    S3_SECRET_ACCESS_KEY: settings.credentials?.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function migrate(to: string, env = cliEnv()): Run {
  const child = spawn(process.execPath, [CLI, 'storage', 'migrate', '--to', to], { env });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** A stored file's row referencing `key`, as an upload writes one. */
async function fileRow(key: string, size: number, purged = false): Promise<void> {
  const id = randomUUID();
  await orm.em
    .fork()
    .execute(
      'insert into stored_file (id, organization_id, filename, content_type, size_bytes, sha256, purged_at) ' +
        'values (?, ?, ?, ?, ?, ?, ?)',
      [id, organizationId, `${id}.bin`, 'application/octet-stream', size, key, purged ? new Date() : null],
    );
}

async function countAt(location: ObjectLocation): Promise<number> {
  const [row] = await orm.em
    .fork()
    .execute<{ count: string }[]>('select count(*) as count from file_object where location = ?', [location]);
  return Number(row?.count ?? 0);
}

async function registry(): Promise<{ key: string; location: ObjectLocation }[]> {
  return orm.em.fork().execute('select key, location from file_object order by key');
}

async function storedFileKeys(): Promise<string[]> {
  const rows = await orm.em
    .fork()
    .execute<{ sha256: string }[]>('select distinct sha256 from stored_file order by sha256');
  return rows.map((row) => row.sha256);
}

async function everyKeyIn(store: ObjectStore): Promise<string[]> {
  return (await store.list(null, 10_000)).map((object) => object.key);
}

/** Reads the object from `store` (verified as it streams) and answers whether its bytes hash to its key. */
async function intact(store: ObjectStore, key: string): Promise<boolean> {
  return sha256(await readAll(await store.get(key))) === key;
}

const PROGRESS = /storage migrate to (s3|postgres): \d+\/\d+ objects, [\d.]+\/[\d.]+ MB, [\d.]+ MB\/s/;

// ---- The tests ----------------------------------------------------------------------------------------------

describe('sigil storage migrate', () => {
  it('refuses without S3 settings and with an unknown target, changing nothing', async () => {
    const objects = new FileObjects({ em: orm.em, stores, writeTo: 'postgres' });
    const bytes = randomBytes(5 * KB);
    await objects.put(bytes);
    await fileRow(sha256(bytes), bytes.length);
    const before = await registry();

    const unconfigured = await migrate('s3', cliEnv(true)).done;
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain('S3 is not configured: set S3_BUCKET');
    const unknown = await migrate('disk').done;
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--to must be s3 or postgres');
    expect(await registry()).toEqual(before);
    expect(await everyKeyIn(stores.s3)).toEqual([]);
  });

  it('moves every object to S3 through a SIGKILL and a rerun while files keep coming, and back to PostgreSQL', async () => {
    // A few dozen objects of mixed sizes, written as STORAGE=postgres writes them.
    const objects = new FileObjects({ em: orm.em, stores, writeTo: 'postgres' });
    const sizes = [
      ...Array.from({ length: 24 }, (_, i) => KB + i * 2_500),
      ...Array.from({ length: 8 }, (_, i) => 200 * KB + i * 110 * KB),
      2 * MB,
      2.5 * MB,
      3 * MB,
      3.5 * MB,
    ];
    const keys: string[] = [];
    for (const [i, size] of sizes.entries()) {
      const bytes = randomBytes(size);
      const stored = await objects.put(bytes);
      keys.push(stored.key);
      // Every fifth object is shared by three files; every seventh is referenced by purged files only.
      const rows = i % 5 === 0 ? 3 : 1;
      for (let row = 0; row < rows; row++) await fileRow(stored.key, size, i % 7 === 3);
    }
    const total = await countAt('postgres');
    expect(total).toBeGreaterThanOrEqual(sizes.length);

    // The first run, killed in the middle.
    const first = migrate('s3');
    await expect.poll(() => countAt('s3'), { timeout: 300_000, interval: 50 }).toBeGreaterThanOrEqual(8);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const left = await countAt('postgres');
    expect(left, 'the run was killed before it finished').toBeGreaterThan(0);
    expect(killed.stderr).toMatch(PROGRESS);
    // Nothing lost: every object is where the registry says (and possibly also still at the other store).
    for (const { key, location } of await registry()) {
      expect(await (location === 's3' ? stores.s3 : stores.postgres).has(key), key).toBe(true);
    }

    // The rerun, with another writer putting files into PostgreSQL (the service, still STORAGE=postgres).
    const written: string[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const bytes = randomBytes(16 * KB + written.length * 997);
        const stored = await objects.put(bytes);
        await fileRow(stored.key, bytes.length);
        written.push(stored.key);
        await new Promise((resume) => setTimeout(resume, 100));
      }
    })();
    const rerun = await migrate('s3').done;
    writing = false;
    await writer;
    expect(written.length).toBeGreaterThan(0);
    expect(rerun.stderr).toMatch(PROGRESS);
    if (rerun.code === 0) {
      expect(rerun.stdout).toContain('nothing left at the source');
    } else {
      expect(rerun.code).toBe(1);
      expect(rerun.stderr).toMatch(/object\(s\) are still in postgres/);
    }
    // The stragglers: a last run once the writer has stopped (after STORAGE=s3 and a restart, in production).
    const last = await migrate('s3').done;
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain('nothing left at the source');

    // Every file's bytes, the writer's too, read back from S3 with their hashes; the PostgreSQL store is empty.
    expect(await countAt('postgres')).toBe(0);
    const fileKeys = await storedFileKeys();
    for (const key of [...keys, ...written]) expect(fileKeys).toContain(key);
    for (const key of fileKeys) expect(await intact(stores.s3, key), key).toBe(true);
    expect(await everyKeyIn(stores.postgres)).toEqual([]);
    const [chunks] = await orm.em
      .fork()
      .execute<{ count: string }[]>('select count(*) as count from stored_object_chunk');
    expect(Number(chunks?.count)).toBe(0);
    // And through the registry, as the service reads them.
    for (const key of fileKeys) expect(sha256(await objects.readAll(key))).toBe(key);

    // Back to PostgreSQL: the same checks the other way.
    const back = await migrate('postgres').done;
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/storage migrate to postgres: \d+\/\d+ objects/);
    expect(await countAt('s3')).toBe(0);
    for (const key of fileKeys) expect(await intact(stores.postgres, key), key).toBe(true);
    expect(await everyKeyIn(stores.s3)).toEqual([]);
  });

  it('exits 1 naming an object whose source bytes are corrupt, leaving it where it is', async () => {
    const objects = new FileObjects({ em: orm.em, stores, writeTo: 'postgres' });
    const bytes = randomBytes(40 * KB);
    const { key } = await objects.put(bytes);
    await fileRow(key, bytes.length);
    // One byte changed behind the port's back.
    await orm.em.fork().execute(
      `update stored_object_chunk set data = set_byte(data, 7, (get_byte(data, 7) + 1) % 256)
          where object_id = (select object_id from stored_object where key = ?) and seq = 0`,
      [key],
    );
    const run = await migrate('s3').done;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('object(s) are still in postgres');
    expect(run.stderr).toContain(key);
    expect(await registry()).toContainEqual({ key, location: 'postgres' });
    expect(await stores.s3.has(key)).toBe(false);
  });
});
