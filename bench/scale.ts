// `npm run bench:scale`: does Sigil scale out, and what does an envelope cost each kind of process? Two kinds of
// layout, measured in the same run, one after the other on the same machine:
// - dev-server layouts (issue 19, "Scale out on Temporal, not on our own code"): one PostgreSQL and one Temporal
//   dev server, and in turn one worker process with one API process, then two of each. The load goes round robin
//   to the APIs. Every process is a separate `node` process, as in production (`temporal/worker/main.ts`,
//   `api/main.ts`, SIGIL_ENV=development).
// - the cluster (issue 36): `npm run cluster`'s deployment (scripts/cluster/cluster.ts) — PostgreSQL, the
//   production Temporal Server's frontend, history, matching and worker services as four processes, SeaweedFS
//   with its S3 gateway (STORAGE=s3), two Sigil workers and two APIs behind HAProxy, which gets all the load.
// The load generator is this process.
//
// For each layout, after a warm-up: BENCH_IDLE_SECONDS (default 15) with no load, to measure what every process
// spends doing nothing (pollers, shard timers, health checks); then two-signer Sequential envelopes driven through
// the public API and the signer API (the chaos run's careful integrator, scripts/chaos/integrator.ts),
// BENCH_IN_FLIGHT (default 16) at a time in a closed loop, BENCH_ENVELOPES (default 64) of them; an envelope counts
// when PostgreSQL shows it Completed. Prints envelopes per second, create → Completed p50/p99, the CPU seconds each
// kind of process spent per envelope (from /proc: a process and all its descendants, PostgreSQL's backends
// included), the idle CPU, PostgreSQL's WAL, rows written and transactions per envelope (by database), the files stored per
// envelope, and the load average. A progress line every 10 seconds. Asserts nothing. BENCH_LAYOUTS (default
// "1x1,2x2,cluster") lists the layouts: <workers>x<APIs> or `cluster`.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CarefulIntegrator, driveEnvelope, type EnvelopeProgress } from '../scripts/chaos/integrator.ts';
import { prepareOrganization, type Setup } from '../scripts/chaos/run.ts';
import { localChaosStack } from '../scripts/chaos/stack.ts';
import type { Cluster, ClusterPartKind } from '../scripts/cluster/cluster.ts';
import { freePort } from '../scripts/ports.ts';
import { percentile } from './figures.ts';
import { allProcesses, descendants, serverKind } from './process-cpu.ts';

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 64);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const WARM_UP = 8;
const PROGRESS_EVERY_MS = 10_000;
type Layout =
  | { kind: 'dev'; workers: number; apis: number; name: string }
  | { kind: 'cluster'; name: string };
const LAYOUTS: Layout[] = (process.env.BENCH_LAYOUTS ?? '1x1,2x2,cluster').split(',').map((layout) => {
  if (layout.trim() === 'cluster') return { kind: 'cluster', name: 'cluster' };
  const [workers, apis] = layout.split('x').map(Number);
  if (!workers || !apis)
    throw new Error(`BENCH_LAYOUTS: "${layout}" is neither <workers>x<APIs> nor cluster`);
  return { kind: 'dev', workers, apis, name: `${workers} × ${apis}` };
});
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIGNERS = [
  { roleName: 'Client', fullName: 'Dana Levi' },
  { roleName: 'Provider', fullName: 'Sam Cohen' },
];
/** The load generator is one address: the signer API's and the token endpoint's throttles never answer 429. */
const LOAD_ENV = { SIGNING_RATE_LIMIT_PER_MINUTE: '100000000', TOKEN_RATE_LIMIT_PER_MINUTE: '100000' };
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** The kinds of process the figures name, in the order they are printed. */
const KINDS = [
  ['sigil-worker', 'Sigil workers'],
  ['sigil-api', 'Sigil APIs'],
  ['temporal-dev', 'Temporal dev server'],
  ['temporal-frontend', 'Temporal frontend'],
  ['temporal-history', 'Temporal history'],
  ['temporal-matching', 'Temporal matching'],
  ['temporal-worker', 'Temporal worker'],
  ['postgres', 'PostgreSQL'],
  ['s3', 'S3 (SeaweedFS)'],
  ['haproxy', 'HAProxy'],
] as const;
type Kind = (typeof KINDS)[number][0];
type CpuByKind = Partial<Record<Kind, number>>;

/** A worker or API process of a dev-server layout, ready when it polls (worker) or answers HTTP (API). */
async function startPart(
  part: 'worker' | 'api',
  env: NodeJS.ProcessEnv,
  port: number,
): Promise<{ child: ChildProcess; url: string }> {
  const script = join(ROOT, part === 'worker' ? 'temporal/worker/main.ts' : 'api/main.ts');
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [script], {
    // `info`: the worker says `worker started` once it polls.
    env: { ...env, PORT: String(port), PUBLIC_BASE_URL: url, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`${part} exited before it was ready (${signal ?? code}):\n${output.slice(-2000)}`)),
    );
    // The last few kilobytes, to show if the process dies.
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (part === 'worker' && output.includes('worker started')) resolve();
    });
    child.stderr?.on('data', keep);
    if (part === 'api') {
      void (async () => {
        for (;;) {
          try {
            await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
            resolve();
            return;
          } catch {
            await sleep(100);
          }
        }
      })();
    }
  });
  await ready;
  return { child, url };
}

async function stopPart(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
  if (!done) child.kill('SIGKILL');
}

/** CPU seconds so far of each kind: every process `rootsOf` names for it, with all its descendants. */
async function cpuOf(rootsOf: () => Map<Kind, number[]>): Promise<CpuByKind> {
  const processes = await allProcesses();
  const byKind: CpuByKind = {};
  const counted = new Set<number>();
  for (const [kind, roots] of rootsOf()) {
    for (const entry of descendants(processes, roots)) {
      if (counted.has(entry.pid)) continue;
      counted.add(entry.pid);
      byKind[kind] = (byKind[kind] ?? 0) + entry.cpu + entry.reaped;
    }
  }
  return byKind;
}

const minus = (after: CpuByKind, before: CpuByKind): CpuByKind =>
  Object.fromEntries(Object.keys(after).map((k) => [k, (after[k as Kind] ?? 0) - (before[k as Kind] ?? 0)]));

/** What PostgreSQL wrote so far: WAL bytes (the whole server) and rows inserted, updated or deleted per database. */
interface Writes {
  walBytes: number;
  rows: Record<string, number>;
  /** Transactions committed per database (read-only ones too: this benchmark's polling is in `sigil`'s). */
  commits: Record<string, number>;
  objects: { count: number; bytes: number } | null;
}

async function writesOf(monitor: pg.Pool): Promise<Writes> {
  const wal = await monitor.query<{ bytes: string }>(
    'select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text as bytes',
    ['0/0'],
  );
  const rows = await monitor.query<{ datname: string; written: string; commits: string }>(
    `select datname, (tup_inserted + tup_updated + tup_deleted)::text as written, xact_commit::text as commits
       from pg_stat_database where datname is not null and datname not in ('postgres', 'template0', 'template1')`,
  );
  // Stored files (uploads, final PDFs, audit trails, signature images): what the object store receives.
  const objects = await monitor
    .query<{ count: string; bytes: string }>(
      'select count(*)::text as count, coalesce(sum(size_bytes), 0)::text as bytes from stored_file',
    )
    .then((r) => ({ count: Number(r.rows[0]?.count ?? 0), bytes: Number(r.rows[0]?.bytes ?? 0) }))
    .catch(() => null);
  return {
    walBytes: Number(wal.rows[0]?.bytes ?? 0),
    rows: Object.fromEntries(rows.rows.map((r) => [r.datname, Number(r.written)])),
    commits: Object.fromEntries(rows.rows.map((r) => [r.datname, Number(r.commits)])),
    objects,
  };
}

interface LayoutResult {
  name: string;
  envelopes: number;
  seconds: number;
  envelopesPerSecond: number;
  p50: number;
  p99: number;
  /** CPU seconds per envelope while the load ran, idle included. */
  cpuPerEnvelope: CpuByKind;
  /** The same less what the process kind spends idle over as long: the cost that grows with envelopes. */
  cpuNetPerEnvelope: CpuByKind;
  /** CPU seconds per second with no load. */
  idlePerSecond: CpuByKind;
  walBytesPerEnvelope: number;
  rowsPerEnvelope: Record<string, number>;
  commitsPerEnvelope: Record<string, number>;
  objectsPerEnvelope: { count: number; bytes: number } | null;
  loadAverage: number;
}

/**
 * Warms up, measures idle, then drives ENVELOPES envelopes IN_FLIGHT at a time through `clients` (round robin) and
 * returns the layout's figures.
 */
async function measure(options: {
  name: string;
  clients: CarefulIntegrator[];
  setup: Setup;
  monitor: pg.Pool;
  rootsOf: () => Map<Kind, number[]>;
}): Promise<LayoutResult> {
  const { name, clients, setup, monitor, rootsOf } = options;
  let runs = 0;
  /** Drives `count` envelopes, `inFlight` at a time; returns create → Completed of each, in ms. */
  const drive = async (
    count: number,
    inFlight: number,
    progress?: (done: number) => void,
  ): Promise<number[]> => {
    runs += 1;
    const durations: number[] = [];
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const index = next;
        next += 1;
        const envelope: EnvelopeProgress = {
          externalReference: `scale-${name.replace(/[^A-Za-z0-9]+/g, 'x')}-${runs}-${index}`,
          signedAt: [],
        };
        const startedAt = Date.now();
        await driveEnvelope(
          clients[index % clients.length] as CarefulIntegrator,
          {
            index,
            externalReference: envelope.externalReference,
            templateId: setup.templateId,
            signers: SIGNERS,
          },
          envelope,
          () => {},
        );
        for (;;) {
          const { rows } = await monitor.query<{ status: string }>(
            'select status from envelope where id = $1',
            [envelope.envelopeId],
          );
          if (rows[0]?.status === 'Completed') break;
          await sleep(20);
        }
        durations.push(Date.now() - startedAt);
        progress?.(durations.length);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
    return durations;
  };

  await drive(WARM_UP, Math.min(IN_FLIGHT, WARM_UP));
  say(`  ${name}: warmed up; ${IDLE_SECONDS} s with no load…`);
  const idleBefore = await cpuOf(rootsOf);
  const idleStarted = Date.now();
  await sleep(IDLE_SECONDS * 1000);
  const idle = minus(await cpuOf(rootsOf), idleBefore);
  const idleSeconds = (Date.now() - idleStarted) / 1000;

  say(`  ${name}: ${ENVELOPES} envelopes, ${IN_FLIGHT} in flight…`);
  const cpuBefore = await cpuOf(rootsOf);
  const writesBefore = await writesOf(monitor);
  const t0 = Date.now();
  const loads: number[] = [];
  let done = 0;
  const ticker = setInterval(() => {
    const seconds = (Date.now() - t0) / 1000;
    const load = loadavg()[0] ?? 0;
    loads.push(load);
    say(
      `  ${name}: ${done}/${ENVELOPES} Completed after ${seconds.toFixed(0)} s ` +
        `(${(done / seconds).toFixed(2)} envelopes/s; load average ${load.toFixed(2)})`,
    );
  }, PROGRESS_EVERY_MS);
  let durations: number[];
  try {
    durations = await drive(ENVELOPES, IN_FLIGHT, (count) => {
      done = count;
    });
  } finally {
    clearInterval(ticker);
  }
  const elapsed = (Date.now() - t0) / 1000;
  const cpuAfter = await cpuOf(rootsOf);
  // PostgreSQL's statistics reach pg_stat_database when a backend next reports (at most about a second later).
  await sleep(1500);
  const writesAfter = await writesOf(monitor);
  loads.push(loadavg()[0] ?? 0);
  const cpu = minus(cpuAfter, cpuBefore);
  const result: LayoutResult = {
    name,
    envelopes: ENVELOPES,
    seconds: elapsed,
    envelopesPerSecond: ENVELOPES / elapsed,
    p50: percentile(durations, 50),
    p99: percentile(durations, 99),
    cpuPerEnvelope: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / ENVELOPES])),
    cpuNetPerEnvelope: Object.fromEntries(
      Object.entries(cpu).map(([k, v]) => [
        k,
        (v - ((idle[k as Kind] ?? 0) / idleSeconds) * elapsed) / ENVELOPES,
      ]),
    ),
    idlePerSecond: Object.fromEntries(Object.entries(idle).map(([k, v]) => [k, v / idleSeconds])),
    walBytesPerEnvelope: (writesAfter.walBytes - writesBefore.walBytes) / ENVELOPES,
    rowsPerEnvelope: Object.fromEntries(
      Object.keys(writesAfter.rows).map((db) => [
        db,
        ((writesAfter.rows[db] ?? 0) - (writesBefore.rows[db] ?? 0)) / ENVELOPES,
      ]),
    ),
    commitsPerEnvelope: Object.fromEntries(
      Object.keys(writesAfter.commits).map((db) => [
        db,
        ((writesAfter.commits[db] ?? 0) - (writesBefore.commits[db] ?? 0)) / ENVELOPES,
      ]),
    ),
    objectsPerEnvelope:
      writesAfter.objects && writesBefore.objects
        ? {
            count: (writesAfter.objects.count - writesBefore.objects.count) / ENVELOPES,
            bytes: (writesAfter.objects.bytes - writesBefore.objects.bytes) / ENVELOPES,
          }
        : null,
    loadAverage: loads.reduce((a, b) => a + b, 0) / loads.length,
  };
  say(
    `  ${name}: ${result.envelopesPerSecond.toFixed(2)} envelopes/s, p50 ${(result.p50 / 1000).toFixed(2)} s, ` +
      `p99 ${(result.p99 / 1000).toFixed(2)} s`,
  );
  return result;
}

const integrator = (baseUrl: string, setup: Setup) =>
  new CarefulIntegrator({
    baseUrl,
    clientId: setup.clientId,
    clientSecret: setup.clientSecret,
    requestTimeoutMs: 60_000,
    giveUpAfterMs: 5 * 60_000,
    onAttempt: () => {},
  });

/** The dev-server layouts, on one PostgreSQL and one Temporal dev server that are stopped when they are done. */
async function devServerLayouts(layouts: Extract<Layout, { kind: 'dev' }>[]): Promise<LayoutResult[]> {
  const results: LayoutResult[] = [];
  if (layouts.length === 0) return results;
  const { stack, dataDir } = await localChaosStack({
    run: 'bench:scale',
    dataDirPrefix: 'sigil-bench-scale-',
    env: LOAD_ENV,
    say,
  });
  const started: ChildProcess[] = [];
  const monitor = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  try {
    await stack.prepare();
    await stack.startStores();
    const setup = await prepareOrganization(stack.databaseUrl, null);
    say(`PostgreSQL and the Temporal dev server ready; organization ${setup.organizationId}`);
    const env = stack.childEnv();
    for (const layout of layouts) {
      say(
        `layout ${layout.name}: ${layout.workers} worker(s), ${layout.apis} API(s) on the Temporal dev server…`,
      );
      const workers = [];
      for (let i = 0; i < layout.workers; i += 1)
        workers.push(await startPart('worker', env, await freePort()));
      const apis = [];
      for (let i = 0; i < layout.apis; i += 1) apis.push(await startPart('api', env, await freePort()));
      started.push(...workers.map((w) => w.child), ...apis.map((a) => a.child));
      const pidsOf = (parts: { child: ChildProcess }[]) => parts.map((p) => p.child.pid as number);
      // PostgreSQL and the dev server are told by their names among this process's descendants.
      const mine = descendants(await allProcesses(), [process.pid]);
      const serverRoots = (kind: 'PostgreSQL' | 'Temporal dev server') =>
        mine.filter((p) => serverKind(p.name) === kind).map((p) => p.pid);
      const roots = new Map<Kind, number[]>([
        ['sigil-worker', pidsOf(workers)],
        ['sigil-api', pidsOf(apis)],
        ['temporal-dev', serverRoots('Temporal dev server')],
        ['postgres', serverRoots('PostgreSQL')],
      ]);
      results.push(
        await measure({
          name: layout.name,
          clients: apis.map((api) => integrator(api.url, setup)),
          setup,
          monitor,
          rootsOf: () => roots,
        }),
      );
      for (const part of [...apis, ...workers]) await stopPart(part.child);
    }
  } finally {
    for (const child of started) await stopPart(child);
    await monitor.end();
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return results;
}

const CLUSTER_KINDS: Record<ClusterPartKind, Kind | null> = {
  postgres: 'postgres',
  'temporal-frontend': 'temporal-frontend',
  'temporal-history': 'temporal-history',
  'temporal-matching': 'temporal-matching',
  'temporal-worker': 'temporal-worker',
  s3: 's3',
  'sigil-worker': 'sigil-worker',
  'sigil-api': 'sigil-api',
  haproxy: 'haproxy',
  'web-ui': null,
};

/** `npm run cluster`'s deployment: two workers and two APIs behind HAProxy, all load to HAProxy's front. */
async function clusterLayout(): Promise<LayoutResult> {
  say(
    'layout cluster: starting the cluster (PostgreSQL, Temporal Server ×4, SeaweedFS, 2 workers, 2 APIs, HAProxy)…',
  );
  const startedAt = Date.now();
  let cluster: Cluster | undefined;
  let monitor: pg.Pool | undefined;
  // A directory of its own, never the checkout's `.data/cluster`: removed afterwards.
  const dataDir = await mkdtemp(join(tmpdir(), 'sigil-bench-cluster-'));
  try {
    // Loaded here: the dev-server layouts alone need none of the cluster's binaries.
    const { startCluster } = await import('../scripts/cluster/cluster.ts');
    cluster = await startCluster({
      dataDir,
      sigilWorkers: 2,
      apis: 2,
      webUi: false,
      env: LOAD_ENV,
      say: (line) => say(`  cluster: ${line}`),
    });
    const ready = cluster;
    say(`  cluster ready after ${((Date.now() - startedAt) / 1000).toFixed(1)} s at ${ready.url}`);
    // The organization's template goes into the cluster's object store, as the cluster's processes would put it.
    const setup = await withEnv(ready.env(), () => prepareOrganization(ready.databaseUrl, null));
    monitor = new pg.Pool({ connectionString: ready.databaseUrl, max: 2 });
    const rootsOf = () => {
      const roots = new Map<Kind, number[]>();
      for (const part of ready.parts) {
        const kind = CLUSTER_KINDS[part.kind];
        if (kind) roots.set(kind, [...(roots.get(kind) ?? []), ...part.pids()]);
      }
      return roots;
    };
    // Every client on HAProxy's front: HAProxy spreads them over the APIs.
    return await measure({
      name: 'cluster',
      clients: [integrator(ready.url, setup)],
      setup,
      monitor,
      rootsOf,
    });
  } finally {
    await monitor?.end();
    await cluster?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs `fn` with `env` in process.env (config read by the storage the set-up writes through), then restores it. */
async function withEnv<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

// Ctrl-C or a kill ends the run through process.exit, whose 'exit' hook takes the cluster's processes down.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const results: LayoutResult[] = [
  ...(await devServerLayouts(LAYOUTS.filter((l): l is Extract<Layout, { kind: 'dev' }> => l.kind === 'dev'))),
];
if (LAYOUTS.some((l) => l.kind === 'cluster')) results.push(await clusterLayout());

const ms = (seconds: number | undefined) =>
  seconds === undefined ? '—' : String(Math.round(seconds * 1000));
const column = 12;
const row = (label: string, cells: string[]) =>
  out(`${label.padEnd(34)}${cells.map((c) => c.padStart(column)).join('')}`);
out();
out(
  `Two-signer Sequential envelopes, create → Completed, ${IN_FLIGHT} in flight, ${ENVELOPES} per layout (after ` +
    `${WARM_UP} to warm up); dev-server layouts: workers × APIs on one PostgreSQL and one Temporal dev server; ` +
    'cluster: npm run cluster (2 workers, 2 APIs behind HAProxy, Temporal Server as 4 processes, SeaweedFS S3, ' +
    'PostgreSQL); all on one machine',
);
row(
  '',
  results.map((r) => r.name),
);
row(
  'envelopes/s',
  results.map((r) => r.envelopesPerSecond.toFixed(2)),
);
row(
  'create → Completed p50 (s)',
  results.map((r) => (r.p50 / 1000).toFixed(2)),
);
row(
  'create → Completed p99 (s)',
  results.map((r) => (r.p99 / 1000).toFixed(2)),
);
row(
  'run (s)',
  results.map((r) => r.seconds.toFixed(0)),
);
row(
  'load average (1 min, mean)',
  results.map((r) => r.loadAverage.toFixed(2)),
);
out('CPU ms per envelope (under load, idle included)');
for (const [kind, label] of KINDS) {
  if (results.some((r) => r.cpuPerEnvelope[kind] !== undefined))
    row(
      `  ${label}`,
      results.map((r) => ms(r.cpuPerEnvelope[kind])),
    );
}
const sum = (cpu: CpuByKind) => Object.values(cpu).reduce((a, b) => a + (b ?? 0), 0);
row(
  '  all',
  results.map((r) => ms(sum(r.cpuPerEnvelope))),
);
row(
  'cores busy under load (all kinds)',
  results.map((r) => ((sum(r.cpuPerEnvelope) * r.envelopes) / r.seconds).toFixed(2)),
);
out('CPU ms per envelope, idle subtracted (what grows with envelopes)');
for (const [kind, label] of KINDS) {
  if (results.some((r) => r.cpuNetPerEnvelope[kind] !== undefined))
    row(
      `  ${label}`,
      results.map((r) => ms(r.cpuNetPerEnvelope[kind])),
    );
}
row(
  '  all',
  results.map((r) => ms(sum(r.cpuNetPerEnvelope))),
);
out(`CPU ms per second with no load (${IDLE_SECONDS} s)`);
for (const [kind, label] of KINDS) {
  if (results.some((r) => r.idlePerSecond[kind] !== undefined))
    row(
      `  ${label}`,
      results.map((r) => ms(r.idlePerSecond[kind])),
    );
}
out('PostgreSQL per envelope');
row(
  '  WAL (KiB)',
  results.map((r) => (r.walBytesPerEnvelope / 1024).toFixed(1)),
);
const databases = [...new Set(results.flatMap((r) => Object.keys(r.rowsPerEnvelope)))].sort();
for (const db of databases) {
  row(
    `  rows written: ${db}`,
    results.map((r) => (r.rowsPerEnvelope[db] ?? 0).toFixed(0)),
  );
}
for (const db of databases) {
  row(
    `  transactions: ${db}`,
    results.map((r) => (r.commitsPerEnvelope[db] ?? 0).toFixed(0)),
  );
}
row(
  'files stored (count / KiB)',
  results.map((r) =>
    r.objectsPerEnvelope
      ? `${r.objectsPerEnvelope.count.toFixed(1)} / ${(r.objectsPerEnvelope.bytes / 1024).toFixed(0)}`
      : '—',
  ),
);
