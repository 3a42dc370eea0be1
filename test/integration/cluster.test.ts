// `npm run cluster`'s deployment (scripts/cluster/cluster.ts) in a temporary directory: every part a live
// process, /api/health through HAProxy, an API process SIGKILLed while requests flow through HAProxy (none of
// them fails) and started again, PostgreSQL SIGKILLed and started again, the Temporal Web UI showing the
// namespace; stop() leaves no process behind, and a second start on the same directory finds the first one's
// data (PostgreSQL rows, the Temporal databases and namespace, the S3 object) instead of recreating it.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../../scripts/cluster/cluster.ts';
import { parseHaproxyStats } from '../../scripts/cluster/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stdout.write(`[cluster] ${line}\n`);
};
let dataDir: string;
let cluster: Cluster | undefined;
const MARKER = `marker-${Date.now()}`;

/** Every process whose command line names the data directory (what a start left must be none after stop). */
async function processesOf(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dir)) found.push(`${entry}: ${cmdline.replaceAll('\0', ' ').slice(0, 160)}`);
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function s3Client(c: Cluster): S3Client {
  return new S3Client({
    endpoint: c.s3.endpoint,
    region: c.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: c.s3.accessKeyId, secretAccessKey: c.s3.secretAccessKey },
  });
}

async function query<T extends pg.QueryResultRow>(databaseUrl: string, sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sigil-cluster-'));
  await chmod(dataDir, 0o755);
  const started = Date.now();
  cluster = await startCluster({ dataDir, say });
  say(`first start ready after ${Date.now() - started} ms`);
});

afterAll(async () => {
  await cluster?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run cluster: a production-shaped deployment, every part its own process', () => {
  it('runs every part as a live process and answers /api/health through HAProxy', async () => {
    const c = cluster as Cluster;
    expect(c.parts.map((part) => part.name).sort()).toEqual(
      [
        'haproxy',
        'postgres',
        's3',
        'seaweedfs',
        'sigil-api-1',
        'sigil-api-2',
        'sigil-worker-1',
        'sigil-worker-2',
        'temporal-frontend',
        'temporal-history',
        'temporal-matching',
        'temporal-worker',
        'web-ui',
      ].sort(),
    );
    for (const part of c.parts) {
      const pids = part.pids();
      expect(pids.length, part.name).toBeGreaterThan(0);
      for (const pid of pids) expect(alive(pid), `${part.name} pid ${pid}`).toBe(true);
    }
    // Every part a process of its own.
    const allPids = c.parts.flatMap((part) => part.pids());
    expect(new Set(allPids).size).toBe(allPids.length);

    const response = await fetch(`${c.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', db: 'ok', temporal: 'ok' });
    const stats = parseHaproxyStats(await (await fetch(`${c.statsUrl}/;csv`)).text());
    expect(
      stats
        .filter((row) => row.proxy === 'sigil-api' && row.server !== 'BACKEND')
        .map((row) => `${row.server} ${row.status}`)
        .sort(),
    ).toEqual(['sigil-api-1 UP', 'sigil-api-2 UP']);

    // The Sigil processes store files in the cluster's S3 bucket.
    expect(c.env()).toMatchObject({ STORAGE: 's3', S3_ENDPOINT: c.s3.endpoint, S3_BUCKET: c.s3.bucket });
    // The Temporal Web UI (built like the Temporal Server; the suite's provisioning has Go) shows the cluster's
    // namespace through its own API.
    expect(c.webUiMissing).toBeUndefined();
    const ui = await fetch(c.webUiUrl as string);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<html');
    const namespaces = (await (await fetch(`${c.webUiUrl}/api/v1/namespaces`)).json()) as {
      namespaces: Array<{ namespaceInfo: { name: string } }>;
    };
    expect(namespaces.namespaces.map((ns) => ns.namespaceInfo.name)).toContain(c.namespace);
  });

  it('loses no request through HAProxy while an API process is SIGKILLed and started again', async () => {
    const c = cluster as Cluster;
    const api = c.part('sigil-api-1');
    const outcomes: Array<{ at: number; status: number | string }> = [];
    let running = true;
    // Four clients in a closed loop, each request a new connection through HAProxy.
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          const response = await fetch(`${c.url}/api/health`, { signal: AbortSignal.timeout(15_000) });
          await response.arrayBuffer();
          outcomes.push({ at: Date.now(), status: response.status });
        } catch (error) {
          outcomes.push({ at: Date.now(), status: error instanceof Error ? error.message : String(error) });
        }
      }
    });
    await sleep(1000);
    const killedAt = Date.now();
    await api.kill();
    expect(api.pids()).toEqual([]);
    // While it is gone (HAProxy's checks take it out within about a second).
    await sleep(2500);
    await api.start();
    const backAt = Date.now();
    expect(api.pids().length).toBe(1);
    await sleep(1500);
    running = false;
    await Promise.all(clients);

    const during = outcomes.filter((o) => o.at >= killedAt && o.at <= backAt);
    say(
      `${outcomes.length} requests, ${during.length} while sigil-api-1 was down or starting (${backAt - killedAt} ms)`,
    );
    expect(during.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    // HAProxy sends requests to it again.
    const stats = parseHaproxyStats(await (await fetch(`${c.statsUrl}/;csv`)).text());
    expect(stats.find((row) => row.server === 'sigil-api-1')?.status).toMatch(/^UP/);
  });

  it('serves again after PostgreSQL is SIGKILLed (a crash) and started again', async () => {
    const c = cluster as Cluster;
    const postgres = c.part('postgres');
    await postgres.kill();
    expect(postgres.pids()).toEqual([]);
    const down = await fetch(`${c.url}/api/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ db: 'unavailable' });
    const killedAt = Date.now();
    await postgres.start();
    await expect.poll(async () => (await fetch(`${c.url}/api/health`)).status, { timeout: 30_000 }).toBe(200);
    say(`PostgreSQL: SIGKILL → started → /api/health 200 through HAProxy after ${Date.now() - killedAt} ms`);
  });

  it('stops every part in order, leaves no process behind, and a second start reuses the data', async () => {
    const c = cluster as Cluster;
    // Something of the first start in each store.
    await query(c.databaseUrl, 'create table cluster_test_marker (value text)');
    await query(c.databaseUrl, 'insert into cluster_test_marker values ($1)', [MARKER]);
    const s3 = s3Client(c);
    await s3.send(new PutObjectCommand({ Bucket: c.s3.bucket, Key: 'cluster-test/marker', Body: MARKER }));
    s3.destroy();
    const pids = c.parts.flatMap((part) => part.pids());

    lines.length = 0;
    await c.stop();
    cluster = undefined;
    expect(
      lines.filter((line) => line.startsWith('stopped ')).map((line) => line.replace(/ \(.*$/, '')),
    ).toEqual([
      'stopped HAProxy',
      'stopped the Temporal Web UI',
      'stopped the APIs',
      'stopped the Sigil workers',
      'stopped Temporal',
      'stopped the S3 gateway',
      'stopped SeaweedFS',
      'stopped PostgreSQL',
    ]);
    expect(pids.filter(alive)).toEqual([]);
    expect(await processesOf(dataDir)).toEqual([]);

    lines.length = 0;
    const started = Date.now();
    cluster = await startCluster({ dataDir, say });
    say(`second start ready after ${Date.now() - started} ms`);
    const again = cluster;
    expect(lines).toContain('database temporal exists');
    expect(lines).toContain('database temporal_visibility exists');
    expect(lines).toContain('namespace default exists');
    expect(lines.some((line) => line.startsWith('created bucket'))).toBe(false);
    expect(await query(again.databaseUrl, 'select value from cluster_test_marker')).toEqual([
      { value: MARKER },
    ]);
    const client = s3Client(again);
    const object = await client.send(
      new GetObjectCommand({ Bucket: again.s3.bucket, Key: 'cluster-test/marker' }),
    );
    expect(await object.Body?.transformToString()).toBe(MARKER);
    client.destroy();
    expect((await fetch(`${again.url}/api/health`)).status).toBe(200);

    await again.stop();
    cluster = undefined;
    expect(await processesOf(dataDir)).toEqual([]);
  });

  it('stops what a cluster whose process was SIGKILLed left running, and refuses a second cluster on the same data', async () => {
    // `npm run cluster` in a process of its own (one API, one worker), SIGKILLed once it is ready: nothing
    // stops PostgreSQL, Temporal, SeaweedFS, HAProxy or the Web UI, which keep the directory's locks.
    const child = spawn(process.execPath, [join(ROOT, 'scripts/cluster/main.ts')], {
      env: { ...process.env, CLUSTER_DATA_DIR: dataDir, CLUSTER_SIGIL_WORKERS: '1', CLUSTER_APIS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const deadline = Date.now() + 240_000;
    while (!output.includes('Sigil cluster is running') && child.exitCode === null && Date.now() < deadline) {
      await sleep(200);
    }
    expect(output).toContain('Sigil cluster is running');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const left = await processesOf(dataDir);
    expect(left.length).toBeGreaterThanOrEqual(5);

    lines.length = 0;
    cluster = await startCluster({ dataDir, say });
    expect(
      lines.some((line) =>
        new RegExp(`^\\d+ processes of an earlier start on ${dataDir} are still running`).test(line),
      ),
      lines.join('\n'),
    ).toBe(true);
    expect(lines.some((line) => line.startsWith("stopped the earlier start's processes"))).toBe(true);
    const running = cluster;
    expect((await fetch(`${running.url}/api/health`)).status).toBe(200);
    // None of the earlier start's processes is left (a zombie no init reaped has no command line).
    const now = new Set((await processesOf(dataDir)).map((entry) => entry.split(':')[0]));
    expect(left.filter((entry) => now.has(entry.split(':')[0]))).toEqual([]);

    // A second cluster on the same data is refused before it starts anything; the first one keeps serving.
    await expect(startCluster({ dataDir, say })).rejects.toThrow(
      `a cluster is running on ${dataDir} already (this process)`,
    );
    expect((await fetch(`${running.url}/api/health`)).status).toBe(200);
    await running.stop();
    cluster = undefined;
    expect(await processesOf(dataDir)).toEqual([]);

    // Another live process recorded as the directory's cluster: refused too, naming it.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dataDir, 'cluster.pid'), `${other.pid}\n`);
      await expect(startCluster({ dataDir, say })).rejects.toThrow(
        `a cluster is running on ${dataDir} already (process ${other.pid})`,
      );
    } finally {
      other.kill('SIGKILL');
    }
  }, 420_000);
});
