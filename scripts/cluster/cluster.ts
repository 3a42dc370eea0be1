// `npm run cluster`'s deployment (scripts/cluster/main.ts; the tests and `npm run test:cluster` start it too):
// a production-shaped Sigil on one machine, every part a process of its own on free ports of 127.0.0.1, its
// data under one directory (`.data/cluster` by default) so that a second start reuses it:
//   PostgreSQL (embedded) · the Temporal Server's frontend, history, matching and worker services on it
//   (scripts/cluster/temporal-server.ts) · SeaweedFS (`weed server`: master, volume, filer) and its S3 gateway
//   (`weed s3`, a process of its own) with Sigil's bucket · Sigil workers and API processes with STORAGE=s3 ·
//   HAProxy in front of the APIs (scripts/cluster/config.ts) · the Temporal Web UI when provisioned.
// Each part can be killed and started again on its own (the fault runs); nothing restarts a part by itself.
// stop() stops them in order: HAProxy and the Web UI, APIs, Sigil workers, Temporal (STOP_ORDER), the S3
// gateway, SeaweedFS, PostgreSQL.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync, readFileSync, type WriteStream } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../config/config.ts';
import { type EmbeddedPostgresProcess, spawnEmbeddedPostgres } from '../../db/embedded-postgres-process.ts';
import { ensureDevelopmentCa } from '../../pdf/sealing/development-ca.ts';
import { provisionHaproxy } from '../../provisioning/haproxy.ts';
import { provisionSeaweedfs } from '../../provisioning/seaweedfs.ts';
import { indent, ProvisioningError, runCommand } from '../../provisioning/shared.ts';
import { provisionTemporalServer } from '../../provisioning/temporal-server.ts';
import { provisionTemporalUi } from '../../provisioning/temporal-ui.ts';
import { freePort, portInUse } from '../ports.ts';
import { haproxyConfig, parseHaproxyStats, seaweedfsS3Config, temporalUiConfig } from './config.ts';
import {
  STOP_ORDER,
  startTemporalCluster,
  type TemporalCluster,
  type TemporalService,
} from './temporal-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEFAULT_CLUSTER_DIR = join(ROOT, '.data', 'cluster');

export type ClusterPartKind =
  | 'postgres'
  | 'temporal-frontend'
  | 'temporal-history'
  | 'temporal-matching'
  | 'temporal-worker'
  | 's3'
  | 'sigil-worker'
  | 'sigil-api'
  | 'haproxy'
  | 'web-ui';

export interface ClusterPart {
  /** e.g. 'postgres', 'temporal-history', 'seaweedfs', 's3' (the gateway), 'sigil-worker-1', 'sigil-api-2'. */
  name: string;
  kind: ClusterPartKind;
  /** Its live process(es), for CPU figures (their descendants belong to it too: PostgreSQL's backends). */
  pids(): number[];
  /** Default SIGKILL (its whole process group); resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again; resolves once it is ready (serves / polls). */
  start(): Promise<void>;
}

export interface Cluster {
  /** HAProxy's front: what users and integrators call. */
  url: string;
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  webUiUrl?: string;
  /** Why there is no Web UI, when there is none. */
  webUiMissing?: string;
  /** HAProxy's statistics page (its CSV at `<statsUrl>/;csv`). */
  statsUrl: string;
  dataDir: string;
  logDir: string;
  parts: ClusterPart[];
  part(name: string): ClusterPart;
  /** What a Sigil process or the operator CLI needs to join (DATABASE_URL, TEMPORAL_*, STORAGE=s3, S3_*, …). */
  env(): NodeJS.ProcessEnv;
  /** Every part, in order. */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  /** Default `.data/cluster` of the checkout; reused by the next start. */
  dataDir?: string;
  sigilWorkers?: number;
  apis?: number;
  /** Start the Temporal Web UI when it can be had (default true). */
  webUi?: boolean;
  /** Extra environment of the Sigil workers and APIs. */
  env?: Record<string, string>;
  /** Progress lines. */
  say?: (line: string) => void;
}

const NAMESPACE = 'default';
const BUCKET = 'sigil';
const REGION = 'us-east-1';
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 20_000;
/** How long a PostgreSQL start after a SIGKILL is tried again while the old backends exit. */
const POSTGRES_RESTART_RETRY_MS = 15_000;

/** What a start keeps for the next one on the same directory (mode 0600): the S3 identity's keys. */
interface ClusterState {
  s3: { accessKeyId: string; secretAccessKey: string };
}

async function loadState(dataDir: string): Promise<ClusterState> {
  const path = join(dataDir, 'cluster-state.json');
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ClusterState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const state: ClusterState = {
    s3: {
      accessKeyId: `sigil${randomBytes(8).toString('hex')}`,
      secretAccessKey: randomBytes(24).toString('hex'),
    },
  };
  await writeFile(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

function alive(child: ChildProcess | undefined): child is ChildProcess {
  return !!child && child.exitCode === null && child.signalCode === null;
}

/** SIGKILL goes to the whole process group (a detached child leads its own); other signals to the process. */
function signalPart(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (signal === 'SIGKILL' && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    child.kill(signal);
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = READY_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await sleep(200);
  }
  throw new Error(
    `${what} was not ready within ${timeoutMs / 1000} s${last ? ` (last: ${last instanceof Error ? last.message : String(last)})` : ''}`,
  );
}

/** The last lines of a log file, for an error. */
async function logTail(path: string, lines = 15): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return indent(text.trimEnd().split('\n').slice(-lines));
}

interface ProcessPartSpec {
  logDir: string;
  spawn: () => ChildProcess;
  ready: (part: ProcessPart) => Promise<void>;
  /** Graceful stop signal (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
  say: (line: string) => void;
}

/**
 * A part that is one spawned process: its output appended to `<logDir>/<name>.log`, ready when `ready` says
 * so, watched for exits nobody asked for (said, not restarted).
 */
class ProcessPart implements ClusterPart {
  child: ChildProcess | undefined;
  private expected = false;
  private readonly log: WriteStream;
  readonly logFile: string;

  readonly name: string;
  readonly kind: ClusterPartKind;
  private readonly spec: ProcessPartSpec;

  constructor(name: string, kind: ClusterPartKind, spec: ProcessPartSpec) {
    this.name = name;
    this.kind = kind;
    this.spec = spec;
    this.logFile = join(spec.logDir, `${name}.log`);
    this.log = createWriteStream(this.logFile, { flags: 'a' });
  }

  pids(): number[] {
    return alive(this.child) && this.child.pid ? [this.child.pid] : [];
  }

  async start(): Promise<void> {
    if (alive(this.child)) throw new Error(`${this.name} is running already (pid ${this.child.pid})`);
    const child = this.spec.spawn();
    this.child = child;
    this.expected = false;
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    child.once('exit', (code, signal) => {
      if (!this.expected && this.child === child) {
        this.spec.say(`${this.name} exited by itself (${signal ?? `code ${code}`}); log: ${this.logFile}`);
      }
    });
    const died = exited(child).then(async () => {
      throw new Error(
        `${this.name} exited during its start (${child.signalCode ?? `code ${child.exitCode}`}); last lines of ${this.logFile}:\n${await logTail(this.logFile)}`,
      );
    });
    try {
      await Promise.race([this.spec.ready(this), died]);
    } catch (error) {
      await this.kill('SIGKILL');
      throw error;
    }
    died.catch(() => {});
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!alive(child)) return;
    this.expected = true;
    signalPart(child, signal);
    const timer =
      signal === 'SIGKILL' ? undefined : setTimeout(() => signalPart(child, 'SIGKILL'), STOP_GRACE_MS);
    await exited(child);
    clearTimeout(timer);
  }

  /** The graceful stop of `stop()`. */
  stop(): Promise<void> {
    return this.kill(this.spec.stopSignal ?? 'SIGTERM');
  }

  /** Waits for a line of its output (the Sigil worker's `worker started`). */
  untilOutput(pattern: string): Promise<void> {
    const child = this.child;
    return new Promise((done) => {
      let buffer = '';
      const onData = (chunk: Buffer) => {
        buffer = (buffer + chunk.toString('utf8')).slice(-4096);
        if (buffer.includes(pattern)) {
          child?.stdout?.off('data', onData);
          done();
        }
      };
      child?.stdout?.on('data', onData);
    });
  }

  closeLog(): void {
    this.log.end();
  }
}

export async function startCluster(options: StartClusterOptions = {}): Promise<Cluster> {
  const say = options.say ?? ((line: string) => process.stdout.write(`[cluster] ${line}\n`));
  const dataDir = resolve(options.dataDir ?? DEFAULT_CLUSTER_DIR);
  const logDir = join(dataDir, 'logs');
  await mkdir(logDir, { recursive: true });
  // Run as root, the embedded PostgreSQL runs as another user, which must reach its directory inside.
  await chmod(dataDir, 0o755);
  const sigilWorkers = options.sigilWorkers ?? 2;
  const apis = options.apis ?? 2;

  // ---- Binaries (built or installed once, cached) ----------------------------------------------------
  const { cacheDir } = loadConfig({ ...process.env, SIGIL_ENV: 'development' });
  const temporalFiles = await provisionTemporalServer({
    serverDir: process.env.TEMPORAL_SERVER_DIR,
    cacheDir,
    log: say,
  });
  const weed = await provisionSeaweedfs({ cacheDir, log: say });
  const haproxy = await provisionHaproxy({ cacheDir, log: say });
  say(
    `binaries: Temporal Server ${temporalFiles.version}, SeaweedFS ${weed.version}, HAProxy ${haproxy.version}`,
  );

  // One cluster per data directory; what a cluster whose process died left running is stopped first.
  await claimDataDir(dataDir, say);
  const state = await loadState(dataDir).catch(async (error: unknown) => {
    await releaseDataDir(dataDir);
    throw error;
  });
  const ports = {
    postgres: await freePort(),
    master: await freePort(),
    masterGrpc: await freePort(),
    volume: await freePort(),
    volumeGrpc: await freePort(),
    filer: await freePort(),
    filerGrpc: await freePort(),
    s3: await freePort(),
    s3Grpc: await freePort(),
    haproxy: await freePort(),
    stats: await freePort(),
    apis: [] as number[],
  };
  for (let i = 0; i < apis; i++) ports.apis.push(await freePort());

  const url = `http://127.0.0.1:${ports.haproxy}`;
  const statsUrl = `http://127.0.0.1:${ports.stats}`;
  const s3 = {
    endpoint: `http://127.0.0.1:${ports.s3}`,
    bucket: BUCKET,
    region: REGION,
    accessKeyId: state.s3.accessKeyId,
    secretAccessKey: state.s3.secretAccessKey,
  };
  const sigilDataDir = join(dataDir, 'sigil');
  let databaseUrl = '';
  let temporal: TemporalCluster | undefined;
  let webUiUrl: string | undefined;
  let webUiMissing: string | undefined;

  const parts: ClusterPart[] = [];
  const stoppers: Array<{ name: string; stop: () => Promise<void> }> = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const { name, stop } of stoppers) {
      const started = Date.now();
      await stop().catch((error: unknown) =>
        say(`  stopping ${name} failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      say(`stopped ${name} (${Date.now() - started} ms)`);
    }
    for (const part of parts) if (part instanceof ProcessPart) part.closeLog();
    process.off('exit', killAllNow);
    await releaseDataDir(dataDir);
  };
  /** When this process dies without stop(): no process of the cluster stays behind. */
  const killAllNow = () => {
    for (const part of parts) {
      for (const pid of part.pids()) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {}
        }
      }
    }
    // And what a start still under way had spawned before it became a part (the Temporal services, for one):
    // every process whose command line names this data directory.
    for (const pid of processesNaming(dataDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  };
  process.once('exit', killAllNow);

  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    SIGIL_ENV: 'development',
    ...options.env,
    DATA_DIR: sigilDataDir,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal?.address ?? '',
    TEMPORAL_NAMESPACE: NAMESPACE,
    PUBLIC_BASE_URL: url,
    STORAGE: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  });

  try {
    // ---- PostgreSQL -----------------------------------------------------------------------------------
    say(`starting PostgreSQL on 127.0.0.1:${ports.postgres} (data in ${join(dataDir, 'postgres')})`);
    const postgresPart = new PostgresPart(join(dataDir, 'postgres'), ports.postgres, logDir, say);
    await postgresPart.start();
    databaseUrl = postgresPart.url;
    parts.push(postgresPart);
    stoppers.unshift({ name: 'PostgreSQL', stop: () => postgresPart.stop() });

    // ---- SeaweedFS and its S3 gateway (before Temporal: they start while its schemas are applied) -------
    const weedDir = join(dataDir, 'seaweedfs');
    await mkdir(weedDir, { recursive: true });
    const s3Config = join(dataDir, 's3-identities.json');
    await writeFile(
      s3Config,
      seaweedfsS3Config([
        { name: 'sigil', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      ]),
      { mode: 0o600 },
    );
    const seaweedfs = new ProcessPart('seaweedfs', 's3', {
      logDir,
      say,
      spawn: () =>
        spawn(
          weed.path,
          [
            'server',
            `-dir=${weedDir}`,
            '-ip=127.0.0.1',
            '-ip.bind=127.0.0.1',
            `-master.port=${ports.master}`,
            `-master.port.grpc=${ports.masterGrpc}`,
            '-master.volumeSizeLimitMB=256',
            `-volume.port=${ports.volume}`,
            `-volume.port.grpc=${ports.volumeGrpc}`,
            '-volume.max=16',
            // It waits 10 s by default between leaving the master and stopping: no one else to hand over to here.
            '-volume.preStopSeconds=1',
            '-filer',
            `-filer.port=${ports.filer}`,
            `-filer.port.grpc=${ports.filerGrpc}`,
          ],
          { cwd: weedDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
        ),
      // The filer answers HTTP once it has its store and reaches the master.
      ready: () =>
        waitFor('SeaweedFS (master, volume, filer)', async () => {
          const response = await fetch(`http://127.0.0.1:${ports.filer}/`, {
            headers: { accept: 'application/json' },
            signal: AbortSignal.timeout(2000),
          });
          return response.status < 500;
        }),
    });
    say(`starting SeaweedFS: master 127.0.0.1:${ports.master}, volume ${ports.volume}, filer ${ports.filer}`);
    await seaweedfs.start();
    parts.push(seaweedfs);
    stoppers.unshift({ name: 'SeaweedFS', stop: () => seaweedfs.stop() });

    const s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const gateway = new ProcessPart('s3', 's3', {
      logDir,
      say,
      spawn: () =>
        spawn(
          weed.path,
          [
            's3',
            `-filer=127.0.0.1:${ports.filer}.${ports.filerGrpc}`,
            '-ip=127.0.0.1',
            '-ip.bind=127.0.0.1',
            `-port=${ports.s3}`,
            `-port.grpc=${ports.s3Grpc}`,
            `-config=${s3Config}`,
            // Its Iceberg and Lance catalogs listen on fixed ports by default: off, so two runs never collide.
            '-port.iceberg=0',
            '-port.lance=0',
          ],
          { cwd: weedDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
        ),
      // Ready once it answers an authenticated request about the bucket (made on the first start).
      ready: () =>
        waitFor('the S3 gateway', async () => {
          try {
            await s3Client.send(new HeadBucketCommand({ Bucket: s3.bucket }));
            return true;
          } catch (error) {
            if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404)
              throw error;
            await s3Client.send(new CreateBucketCommand({ Bucket: s3.bucket }));
            say(`created bucket ${s3.bucket}`);
            return true;
          }
        }),
    });
    say(`starting the S3 gateway on ${s3.endpoint}`);
    await gateway.start();
    parts.push(gateway);
    stoppers.unshift({
      name: 'the S3 gateway',
      stop: async () => {
        s3Client.destroy();
        await gateway.stop();
      },
    });

    // ---- Temporal Server ------------------------------------------------------------------------------
    temporal = await startTemporalCluster({
      files: temporalFiles,
      postgresUrl: databaseUrl,
      dir: join(dataDir, 'temporal'),
      logFile: (service) => join(logDir, `temporal-${service}.log`),
      namespace: NAMESPACE,
      log: say,
    });
    const temporalCluster = temporal;
    stoppers.unshift({ name: `Temporal (${STOP_ORDER.join(', ')})`, stop: () => temporalCluster.stop() });
    for (const service of [
      'frontend',
      'history',
      'matching',
      'worker',
    ] as const satisfies TemporalService[]) {
      parts.push({
        name: `temporal-${service}`,
        kind: `temporal-${service}`,
        pids: () => {
          const pid = temporalCluster.pid(service);
          return pid !== undefined && processAlive(pid) ? [pid] : [];
        },
        kill: (signal = 'SIGKILL') => temporalCluster.kill(service, signal),
        start: async () => {
          await temporalCluster.restart(service);
          if (service !== 'worker') await temporalCluster.waitUntilServing();
        },
      });
    }

    // ---- Sigil: the development sealing CA once (not raced by two workers), APIs, then workers -----------
    await mkdir(sigilDataDir, { recursive: true });
    await ensureDevelopmentCa(sigilDataDir);
    const nodePart = (name: string, kind: 'sigil-api' | 'sigil-worker', port?: number) =>
      new ProcessPart(name, kind, {
        logDir,
        say,
        spawn: () =>
          spawn(
            process.execPath,
            [join(ROOT, kind === 'sigil-api' ? 'api/main.ts' : 'temporal/worker/main.ts')],
            {
              env: {
                ...env(),
                LOG_LEVEL: 'info',
                HOST: '127.0.0.1',
                ...(port ? { PORT: String(port) } : {}),
                // Stops itself when this process dies.
                SIGIL_SUPERVISOR_PID: String(process.pid),
              },
              cwd: ROOT,
              stdio: ['ignore', 'pipe', 'pipe'],
              detached: true,
            },
          ),
        ready:
          kind === 'sigil-worker'
            ? // pino's `worker started` once both of its workers poll.
              (part) => part.untilOutput('"msg":"worker started"')
            : () =>
                waitFor(name, async () => {
                  // Answering at all (its health may name a dependency that is down): the process serves.
                  await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2000) });
                  return true;
                }),
      });
    const apiParts = ports.apis.map((port, i) => nodePart(`sigil-api-${i + 1}`, 'sigil-api', port));
    say(`starting ${apis} API processes on ${ports.apis.map((port) => `127.0.0.1:${port}`).join(', ')}`);
    // The first alone: it applies the migrations (a second start on the same data upgrades, never recreates).
    const [firstApi, ...otherApis] = apiParts;
    if (firstApi) await firstApi.start();
    await Promise.all(otherApis.map((part) => part.start()));
    parts.push(...apiParts);
    stoppers.unshift({
      name: 'the APIs',
      stop: async () => void (await Promise.all(apiParts.map((p) => p.stop()))),
    });

    const workerParts = Array.from({ length: sigilWorkers }, (_, i) =>
      nodePart(`sigil-worker-${i + 1}`, 'sigil-worker'),
    );
    say(`starting ${sigilWorkers} Sigil worker processes`);
    await Promise.all(workerParts.map((part) => part.start()));
    parts.push(...workerParts);
    // Workers stop after the APIs (a request in flight may still start a workflow), before Temporal.
    stoppers.splice(1, 0, {
      name: 'the Sigil workers',
      stop: async () => void (await Promise.all(workerParts.map((p) => p.stop()))),
    });

    // ---- HAProxy ------------------------------------------------------------------------------------------
    const haproxyFile = join(dataDir, 'haproxy.cfg');
    await writeFile(
      haproxyFile,
      haproxyConfig({
        bind: `127.0.0.1:${ports.haproxy}`,
        statsBind: `127.0.0.1:${ports.stats}`,
        apis: apiParts.map((part, i) => ({ name: part.name, host: '127.0.0.1', port: ports.apis[i] ?? 0 })),
      }),
    );
    const checked = await runCommand(haproxy.path, ['-c', '-q', '-f', haproxyFile], { timeoutMs: 30_000 });
    if (checked.code !== 0) {
      throw new Error(`haproxy -c refused ${haproxyFile}:\n${indent(checked.tail)}`);
    }
    const apiNames = apiParts.map((part) => part.name);
    const haproxyPart = new ProcessPart('haproxy', 'haproxy', {
      logDir,
      say,
      // SIGUSR1: a soft stop, requests in flight finish (hard-stop-after bounds it).
      stopSignal: 'SIGUSR1',
      spawn: () =>
        spawn(haproxy.path, ['-db', '-f', haproxyFile], {
          cwd: dataDir,
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        }),
      // Ready once its health checks see every API process that runs.
      ready: () =>
        waitFor('HAProxy', async () => {
          const running = apiParts.filter((part) => part.pids().length > 0).map((part) => part.name);
          const up = await upServers(statsUrl);
          return running.every((name) => up.has(name));
        }),
    });
    say(`starting HAProxy on ${url} (statistics ${statsUrl}) in front of ${apiNames.join(', ')}`);
    await haproxyPart.start();
    parts.push(haproxyPart);
    stoppers.unshift({ name: 'HAProxy', stop: () => haproxyPart.stop() });
    // An API started again is ready once HAProxy sends it requests again.
    for (const part of apiParts) {
      const start = part.start.bind(part);
      part.start = async () => {
        await start();
        if (haproxyPart.pids().length > 0) {
          await waitFor(`HAProxy to see ${part.name} up`, async () =>
            (await upServers(statsUrl)).has(part.name),
          );
        }
      };
    }

    // ---- The Temporal Web UI (after HAProxy: an operator's tool, nothing waits for it) ----------------------
    if (options.webUi !== false) {
      const ui = await provisionTemporalUi({ cacheDir, log: say }).catch((error: unknown) => {
        if (!(error instanceof ProvisioningError)) throw error;
        webUiMissing = error.message;
        return undefined;
      });
      if (ui) {
        const uiPort = await freePort();
        const uiRoot = join(dataDir, 'web-ui');
        await mkdir(join(uiRoot, 'config'), { recursive: true });
        await writeFile(
          join(uiRoot, 'config', 'production.yaml'),
          temporalUiConfig({
            temporalGrpcAddress: temporalCluster.address,
            host: '127.0.0.1',
            port: uiPort,
            defaultNamespace: NAMESPACE,
          }),
        );
        const candidateUrl = `http://127.0.0.1:${uiPort}`;
        const webUi = new ProcessPart('web-ui', 'web-ui', {
          logDir,
          say,
          spawn: () =>
            spawn(ui.path, ['--root', uiRoot, '--config', 'config', '--env', 'production', 'start'], {
              cwd: uiRoot,
              stdio: ['ignore', 'pipe', 'pipe'],
              detached: true,
            }),
          ready: () => waitFor('the Temporal Web UI', async () => (await fetch(candidateUrl)).ok),
        });
        say(`starting the Temporal Web UI ${ui.version ?? ''} on ${candidateUrl}`);
        await webUi.start();
        webUiUrl = candidateUrl;
        parts.push(webUi);
        stoppers.splice(1, 0, { name: 'the Temporal Web UI', stop: () => webUi.stop() });
      } else {
        say(`no Temporal Web UI: ${webUiMissing?.split('\n')[0]}`);
      }
    } else {
      webUiMissing = 'not asked for (webUi: false)';
    }
  } catch (error) {
    say(`start failed: ${error instanceof Error ? error.message : String(error)}; stopping what started`);
    await stop();
    throw error;
  }

  const temporalAddress = temporal.address;
  return {
    url,
    databaseUrl,
    temporalAddress,
    namespace: NAMESPACE,
    s3,
    ...(webUiUrl ? { webUiUrl } : {}),
    ...(webUiMissing ? { webUiMissing } : {}),
    statsUrl,
    dataDir,
    logDir,
    parts,
    part: (name) => {
      const found = parts.find((part) => part.name === name);
      if (!found) throw new Error(`no part ${name} (parts: ${parts.map((part) => part.name).join(', ')})`);
      return found;
    },
    env,
    stop,
  };
}

/** The API servers HAProxy's health checks hold up. */
async function upServers(statsUrl: string): Promise<Set<string>> {
  const response = await fetch(`${statsUrl}/;csv`, { signal: AbortSignal.timeout(2000) });
  const rows = parseHaproxyStats(await response.text());
  return new Set(
    rows.filter((row) => row.proxy === 'sigil-api' && row.status.startsWith('UP')).map((row) => row.server),
  );
}

/** The file in a data directory naming the process that runs the cluster on it. */
const SUPERVISOR_FILE = 'cluster.pid';
/** How long the processes an earlier start left get to stop on SIGTERM before SIGKILL. */
const LEFTOVER_GRACE_MS = 10_000;
/** Data directories a cluster of this process runs on now. */
const claimed = new Set<string>();

/**
 * Makes this process the data directory's one cluster: refused while another live process runs a cluster on
 * it (its pid in `cluster.pid`); then every process an earlier start left running on it — its process was
 * SIGKILLed or its terminal closed, so nothing stopped PostgreSQL, Temporal, SeaweedFS, HAProxy or the Web UI,
 * which would hold the directory's locks — gets SIGTERM, then SIGKILL after LEFTOVER_GRACE_MS.
 */
async function claimDataDir(dataDir: string, say: (line: string) => void): Promise<void> {
  const file = join(dataDir, SUPERVISOR_FILE);
  const recorded = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  const running =
    claimed.has(dataDir) ||
    (Number.isInteger(recorded) && recorded > 0 && recorded !== process.pid && isNodeProcess(recorded));
  if (running) {
    const who = claimed.has(dataDir) ? 'this process' : `process ${recorded}`;
    throw new Error(
      `a cluster is running on ${dataDir} already (${who}): stop it first (Ctrl-C in its terminal), or start this one with another CLUSTER_DATA_DIR`,
    );
  }
  claimed.add(dataDir);
  await writeFile(file, `${process.pid}\n`);
  const leftovers = processesNaming(dataDir).filter(isClusterProgram);
  if (leftovers.length === 0) return;
  const started = Date.now();
  say(
    `${leftovers.length} processes of an earlier start on ${dataDir} are still running (its process ended without stopping them): stopping them — ${leftovers.map((pid) => `${programOf(pid)} ${pid}`).join(', ')}`,
  );
  const signal = (pids: number[], name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // Gone meanwhile.
      }
    }
  };
  signal(leftovers, 'SIGTERM');
  const deadline = Date.now() + LEFTOVER_GRACE_MS;
  let left = leftovers.filter(processAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = left.filter(processAlive);
  }
  if (left.length > 0) {
    say(`  ${left.length} did not stop within ${LEFTOVER_GRACE_MS / 1000} s: SIGKILL`);
    signal(left, 'SIGKILL');
    const killDeadline = Date.now() + 5_000;
    while (left.length > 0 && Date.now() < killDeadline) {
      await sleep(100);
      left = left.filter(processAlive);
    }
  }
  say(`stopped the earlier start's processes (${Date.now() - started} ms)`);
}

/** This process no longer runs a cluster on the directory. */
async function releaseDataDir(dataDir: string): Promise<void> {
  claimed.delete(dataDir);
  const file = join(dataDir, SUPERVISOR_FILE);
  const recorded = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  if (recorded === process.pid) await rm(file, { force: true });
}

/** The programs a cluster runs (a `tail -f` of one of its logs, say, is left alone). */
const CLUSTER_PROGRAMS = new Set([
  'postgres',
  'temporal-server',
  'weed',
  'haproxy',
  'temporal-ui-server',
  'node',
]);

/** The name of a process's program (its command line's first word, without the directory). */
function programOf(pid: number): string {
  try {
    return (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '').split('/').pop() ?? '';
  } catch {
    return '';
  }
}

function isClusterProgram(pid: number): boolean {
  return CLUSTER_PROGRAMS.has(programOf(pid));
}

/** A live Node.js process (a pid recorded by a cluster's process may since belong to something else). */
function isNodeProcess(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.split('\0')[0]?.includes('node') ?? false;
  } catch {
    return processAlive(pid);
  }
}

/** The processes (Linux /proc) whose command line names `dir/`, this one aside; none where /proc is missing. */
function processesNaming(dir: string): number[] {
  const found: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`${dir}/`)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The embedded PostgreSQL (db/embedded-postgres-process.ts): a Node process that runs the postmaster. A stop is
 * its graceful shutdown; a SIGKILL takes the whole process group (postmaster and backends too: a crash).
 */
class PostgresPart implements ClusterPart {
  readonly name = 'postgres';
  readonly kind = 'postgres' as const;
  private postgres: EmbeddedPostgresProcess | undefined;
  private readonly log: WriteStream;
  private killedAt: number | undefined;
  url = '';

  private readonly dir: string;
  private readonly port: number;
  private readonly say: (line: string) => void;

  constructor(dir: string, port: number, logDir: string, say: (line: string) => void) {
    this.dir = dir;
    this.port = port;
    this.say = say;
    this.log = createWriteStream(join(logDir, 'postgres.log'), { flags: 'a' });
  }

  pids(): number[] {
    const child = this.postgres?.child;
    return alive(child) && child.pid ? [child.pid] : [];
  }

  async start(): Promise<void> {
    if (alive(this.postgres?.child)) throw new Error('postgres is running already');
    // After a kill, the old backends may still be exiting (holding the shared memory a new postmaster checks):
    // a start that fails then is tried again for a few seconds.
    const deadline = Date.now() + (this.killedAt ? POSTGRES_RESTART_RETRY_MS : 0);
    for (;;) {
      try {
        this.postgres = await spawnEmbeddedPostgres({
          dataDir: this.dir,
          port: this.port,
          output: this.log,
          detached: true,
          log: (line) => this.say(`PostgreSQL: ${line}`),
        });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
    this.killedAt = undefined;
    this.url = this.postgres.url;
  }

  /**
   * SIGKILL: the postmaster first, then the Node process that ran it (which reaps it), like a crash of the
   * database server. Not the process group at once: the postmaster must be reaped by its parent, since a
   * container's init may never reap an orphan, and a zombie postmaster's pid in `postmaster.pid` makes the
   * next start refuse ("lock file already exists"). The backends (each in a session of its own) notice their
   * postmaster's death and exit.
   */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const postgres = this.postgres;
    if (!postgres || !alive(postgres.child)) return;
    if (signal !== 'SIGKILL') return postgres.stop(STOP_GRACE_MS);
    this.killedAt = Date.now();
    const postmaster = await readFile(join(this.dir, 'postmaster.pid'), 'utf8')
      .then((text) => Number(text.split('\n')[0]))
      .catch(() => undefined);
    if (postmaster && processAlive(postmaster)) {
      process.kill(postmaster, 'SIGKILL');
      // Gone from /proc once its parent has reaped it.
      await waitFor(
        'the killed postmaster to be reaped',
        async () => !existsSync(`/proc/${postmaster}`),
        10_000,
      );
    }
    signalPart(postgres.child, 'SIGKILL');
    await exited(postgres.child);
    await waitFor('the killed PostgreSQL to let its port go', async () => !(await portInUse(this.port)));
  }

  async stop(): Promise<void> {
    await this.postgres?.stop(STOP_GRACE_MS);
    this.log.end();
  }
}
