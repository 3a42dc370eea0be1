// The production Temporal Server of `npm run cluster` on a given PostgreSQL: creates its two databases (the
// main store and visibility), applies and upgrades their schemas with the server's own schema tool, writes one
// configuration, runs frontend, history, matching and worker as four processes (each with its own log file),
// waits until the frontend serves, creates the namespace and registers Sigil's search attributes. Stops the
// four in the order STOP_ORDER gives (see there why). The binaries come from provisioning/temporal-server.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Connection, WorkflowClient } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import pg from 'pg';
import { describeExit, indent, runCommand } from '../../provisioning/shared.ts';
import type { TemporalServerFiles } from '../../provisioning/temporal-server.ts';
import { ensureSearchAttributes } from '../../temporal/search-attributes.ts';
import { searchAttributes } from '../../workflows/contracts.ts';

export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/**
 * History shards: fixed for the life of the cluster's database (the server refuses to start on a database made
 * with another count), so this is chosen once. A shard is the unit of history's ownership and of its ordered
 * writes; each costs idle work (its queues and timers poll even when nothing happens). On one machine with a
 * single history process and a few cores, CPU and PostgreSQL limit long before 4 shards contend, and 4 keeps the
 * idle cost small (the server's own PostgreSQL template uses 4). A deployment with several history processes
 * needs many more, chosen from measured figures: docs/deployment.md.
 */
export const DEFAULT_HISTORY_SHARDS = 4;
/**
 * The worker service first (it is a client of the frontend: stopped later it would log failures against a gone
 * frontend), then the frontend (no new request enters; in-flight ones finish within its drain), then matching
 * (its long polls end), and history last: it owns the shards and persists the effects of every call the other
 * services still make, so no call fails against a history already gone.
 */
export const STOP_ORDER: readonly TemporalService[] = ['worker', 'frontend', 'matching', 'history'];

const DYNAMIC_CONFIG = fileURLToPath(
  new URL('../../temporal/dynamicconfig/production.yaml', import.meta.url),
);
const NAMESPACE_RETENTION_DAYS = 7;
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;
const PROBE_TASK_QUEUE = 'sigil-cluster-probe';

/**
 * The server stores each member's ports in `cluster_membership` as PostgreSQL `smallint`: a port above 32767
 * (where the system's ephemeral range starts) makes the service die at start ("value out of range for type
 * smallint"). So the ports are picked free below that, not by the system.
 */
const PORT_RANGE = { from: 20_000, to: 32_767 } as const;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port of 127.0.0.1 in PORT_RANGE that nothing listens on and this start has not picked yet. */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from + 1));
    if (taken.has(port) || !(await canListen(port))) continue;
    taken.add(port);
    return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} on 127.0.0.1`);
}

export interface TemporalServerDatabases {
  temporal: string;
  visibility: string;
}

export interface StartTemporalClusterOptions {
  files: TemporalServerFiles;
  /** A PostgreSQL URL whose user may create databases; its path is ignored. */
  postgresUrl: string;
  databases?: TemporalServerDatabases;
  /** Holds the configuration and `logs/<service>.log`. */
  dir: string;
  namespace: string;
  historyShards?: number;
  /** Progress lines. */
  log: (line: string) => void;
  /** Where each service logs; default `<dir>/logs/<service>.log`. */
  logFile?: (service: TemporalService) => string;
}

export interface TemporalCluster {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  logFile(service: TemporalService): string;
  pid(service: TemporalService): number | undefined;
  /** Sends `signal` to one service and waits until its process is gone. */
  kill(service: TemporalService, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts one service again (after `kill`); resolves once the new process has joined the cluster (its row in
   * `cluster_membership`, written after this call).
   */
  restart(service: TemporalService): Promise<void>;
  /**
   * Resolves once the cluster serves the namespace end to end: a workflow started through the frontend (so
   * history has the shard it lands on) and terminated. Answers how long that took.
   */
  waitUntilServing(timeoutMs?: number): Promise<number>;
  /** Stops all four in STOP_ORDER. */
  stop(): Promise<void>;
}

export interface TemporalServicePorts {
  grpc: number;
  membership: number;
  http?: number;
}

function schemaToolArgs(url: URL, database: string): string[] {
  return [
    '--plugin',
    'postgres12',
    '--endpoint',
    url.hostname,
    '--port',
    url.port || '5432',
    '--user',
    decodeURIComponent(url.username),
    '--database',
    database,
  ];
}

async function onServer<T>(postgresUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(postgresUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function hasSchemaVersionTable(postgresUrl: string, database: string): Promise<boolean> {
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const result = await client.query("select to_regclass('public.schema_version') is not null as present");
    return result.rows[0]?.present === true;
  } finally {
    await client.end();
  }
}

/**
 * Creates the database when missing, sets the schema up on a new one (`setup-schema -v 0.0`, which only makes
 * the version table) and brings it to the newest version shipped with the server (`update-schema -d`), which
 * does nothing when it is current: so a second start changes nothing, and a newer server upgrades in place.
 */
export async function applyTemporalSchema(options: {
  files: TemporalServerFiles;
  postgresUrl: string;
  database: string;
  schemaDir: string;
  log: (line: string) => void;
}): Promise<void> {
  const { files, postgresUrl, database, schemaDir, log } = options;
  const created = await onServer(postgresUrl, async (client) => {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount) return false;
    await client.query(`create database "${database.replaceAll('"', '""')}"`);
    return true;
  });
  log(created ? `created database ${database}` : `database ${database} exists`);
  const base = schemaToolArgs(new URL(postgresUrl), database);
  const run = async (args: string[]) => {
    // The password goes by the environment (SQL_PASSWORD), never on a command line `ps` shows.
    const result = await runCommand(files.sqlTool, [...base, ...args], {
      env: { ...process.env, SQL_PASSWORD: decodeURIComponent(new URL(postgresUrl).password) },
      timeoutMs: 300_000,
    });
    if (result.code !== 0) {
      throw new Error(
        `temporal-sql-tool ${args.join(' ')} on ${database} failed (${describeExit(result)}):\n${indent(result.tail)}`,
      );
    }
  };
  if (!(await hasSchemaVersionTable(postgresUrl, database))) {
    await run(['setup-schema', '-v', '0.0']);
    log(`  ${database}: schema set up (version table)`);
  }
  const started = Date.now();
  await run(['update-schema', '-d', schemaDir]);
  const version = await (async () => {
    const url = new URL(postgresUrl);
    url.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const row = await client.query('select curr_version from schema_version limit 1');
      return String(row.rows[0]?.curr_version ?? '?');
    } finally {
      await client.end();
    }
  })();
  log(`  ${database}: schema at version ${version} (update-schema took ${Date.now() - started} ms)`);
}

/**
 * Where the services listen and how they reach each other. `npm run cluster`: loopback. docker-compose.yml
 * (scripts/cluster/compose-files.ts): every interface of a container, which announces its own address.
 */
export interface TemporalServerListen {
  /** `bindOnIP` of every service; undefined: loopback (`bindOnLocalHost`). */
  bindOnIP?: string;
  /** The address each service announces to the others in the membership ring. */
  broadcastAddress: string;
  /** host:port of the frontend, as the cluster's own services (the worker service) call it. */
  frontendAddress: string;
}

/**
 * The server's configuration (`--config-file`, or `<config>/<env>.yaml`): PostgreSQL persistence and visibility
 * (postgres12 plugin), the four services' ports, one cluster. The PostgreSQL URL's user and password go into
 * the file as they are (decoded), so a template expression (`{{ env `X` }}`, percent-encoded in the URL) stays
 * one for a file with `# enable-template`. Also written to deploy/temporal/ for docker-compose.yml.
 */
export function temporalServerConfig(options: {
  postgresUrl: string;
  databases: TemporalServerDatabases;
  historyShards: number;
  ports: Record<TemporalService, TemporalServicePorts>;
  /** Default: loopback, the frontend on 127.0.0.1. */
  listen?: TemporalServerListen;
  /** Default: temporal/dynamicconfig/production.yaml of this checkout. */
  dynamicConfigFile?: string;
}): Record<string, unknown> {
  const url = new URL(options.postgresUrl);
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${url.hostname}:${url.port || '5432'}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const listen = options.listen ?? {
    broadcastAddress: '127.0.0.1',
    frontendAddress: `127.0.0.1:${options.ports.frontend.grpc}`,
  };
  const service = (ports: TemporalServicePorts) => ({
    rpc: {
      grpcPort: ports.grpc,
      membershipPort: ports.membership,
      ...(listen.bindOnIP === undefined ? { bindOnLocalHost: true } : { bindOnIP: listen.bindOnIP }),
      ...(ports.http ? { httpPort: ports.http } : {}),
    },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: options.historyShards,
      datastores: {
        'postgres-default': store(options.databases.temporal, 20),
        'postgres-visibility': store(options.databases.visibility, 4),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: listen.broadcastAddress } },
    services: Object.fromEntries(TEMPORAL_SERVICES.map((name) => [name, service(options.ports[name])])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: listen.frontendAddress,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: options.dynamicConfigFile ?? DYNAMIC_CONFIG, pollInterval: '60s' },
  };
}

export async function startTemporalCluster(options: StartTemporalClusterOptions): Promise<TemporalCluster> {
  const { files, log, namespace } = options;
  const databases = options.databases ?? { temporal: 'temporal', visibility: 'temporal_visibility' };
  const historyShards = options.historyShards ?? DEFAULT_HISTORY_SHARDS;

  await applyTemporalSchema({
    files,
    postgresUrl: options.postgresUrl,
    database: databases.temporal,
    schemaDir: files.temporalSchemaDir,
    log,
  });
  await applyTemporalSchema({
    files,
    postgresUrl: options.postgresUrl,
    database: databases.visibility,
    schemaDir: files.visibilitySchemaDir,
    log,
  });

  const ports = {} as Record<TemporalService, TemporalServicePorts>;
  const taken = new Set<number>();
  for (const name of TEMPORAL_SERVICES) {
    ports[name] = { grpc: await freeLowPort(taken), membership: await freeLowPort(taken) };
  }
  ports.frontend.http = await freeLowPort(taken);
  const configDir = join(options.dir, 'config');
  const logsDir = join(options.dir, 'logs');
  await mkdir(configDir, { recursive: true });
  await mkdir(logsDir, { recursive: true });
  // JSON is YAML, and the server reads `<config>/<env>.yaml`.
  await writeFile(
    join(configDir, 'production.yaml'),
    `${JSON.stringify(temporalServerConfig({ postgresUrl: options.postgresUrl, databases, historyShards, ports }), null, 2)}\n`,
    { mode: 0o600 },
  );
  const address = `127.0.0.1:${ports.frontend.grpc}`;
  log(
    `Temporal Server ${files.version}: config ${join(configDir, 'production.yaml')}, ${historyShards} history shards`,
  );

  const children = new Map<TemporalService, ChildProcess>();
  const logFile = options.logFile ?? ((service: TemporalService) => join(logsDir, `${service}.log`));
  const startService = (service: TemporalService) => {
    const out = createWriteStream(logFile(service), { flags: 'a' });
    const child = spawn(
      files.path,
      [
        '--root',
        options.dir,
        '--config',
        'config',
        '--env',
        'production',
        '--allow-no-auth',
        'start',
        '--service',
        service,
      ],
      { cwd: options.dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    child.once('close', () => out.end());
    children.set(service, child);
    log(
      `  started ${service} (pid ${child.pid}, grpc 127.0.0.1:${ports[service].grpc}, log ${logFile(service)})`,
    );
  };
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (service: TemporalService, signal: NodeJS.Signals = 'SIGTERM') => {
    const child = children.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited(child);
    clearTimeout(timer);
  };
  const stop = async () => {
    for (const service of STOP_ORDER) {
      const started = Date.now();
      await kill(service);
      log(`  stopped ${service} in ${Date.now() - started} ms`);
    }
  };

  /** A service that exited on its own: an error with the last lines of its log. */
  const throwIfExited = async (only?: TemporalService) => {
    for (const [service, child] of children) {
      if (only && service !== only) continue;
      if (child.exitCode === null && child.signalCode === null) continue;
      const tail = (await readFile(logFile(service), 'utf8').catch(() => ''))
        .trimEnd()
        .split('\n')
        .slice(-15);
      throw new Error(
        `Temporal ${service} exited (${child.exitCode ?? child.signalCode}); last lines of ${logFile(service)}:\n${indent(tail)}`,
      );
    }
  };

  const temporalDatabase = () => {
    const url = new URL(options.postgresUrl);
    url.pathname = `/${databases.temporal}`;
    return url.toString();
  };
  /** The database's clock in UTC (how the server writes `cluster_membership`), as text. */
  const membershipNow = async (): Promise<string> => {
    const client = new pg.Client({ connectionString: temporalDatabase() });
    await client.connect();
    try {
      const row = await client.query("select (now() at time zone 'utc')::text as now");
      return String(row.rows[0]?.now);
    } finally {
      await client.end();
    }
  };

  /**
   * Waits until the member listening on `membershipPort` has written its row of `cluster_membership` with a
   * session started at or after `since` (a restarted service's port is its predecessor's, whose row stays a
   * while).
   */
  const untilMember = async (service: TemporalService, since: string) => {
    const waitStarted = Date.now();
    for (;;) {
      await throwIfExited(service);
      const client = new pg.Client({ connectionString: temporalDatabase() });
      await client.connect();
      try {
        const row = await client.query(
          'select 1 from cluster_membership where rpc_port = $1 and session_start >= $2::timestamp',
          [ports[service].membership, since],
        );
        if (row.rowCount) return;
      } finally {
        await client.end();
      }
      if (Date.now() - waitStarted > READY_TIMEOUT_MS) {
        throw new Error(`Temporal ${service} did not join the cluster within ${READY_TIMEOUT_MS} ms`);
      }
      await sleep(250);
    }
  };

  const waitUntilServing = async (timeoutMs = READY_TIMEOUT_MS): Promise<number> => {
    const started = Date.now();
    let lastError = 'not tried';
    while (Date.now() - started < timeoutMs) {
      await throwIfExited();
      let connection: Connection | undefined;
      try {
        connection = await Connection.connect({ address, connectTimeout: 2_000 });
        const client = new WorkflowClient({ connection, namespace });
        const handle = await client.start('sigilClusterProbe', {
          taskQueue: PROBE_TASK_QUEUE,
          workflowId: `sigil-cluster-probe-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
          args: [],
          // With Sigil's search attributes, as an envelope starts: the frontend's namespace cache learns
          // attributes added just now only at its next refresh (about 10 s), and until then refuses a start
          // that sets them ("no mapping defined for search attribute"), which made a first envelope fail.
          typedSearchAttributes: Object.values(searchAttributes).map((key) => ({
            key,
            value: 'cluster-probe',
          })),
        });
        await handle.terminate('probe');
        return Date.now() - started;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        await sleep(250);
      } finally {
        await connection?.close().catch(() => {});
      }
    }
    throw new Error(`Temporal at ${address} did not serve ${namespace} within ${timeoutMs} ms: ${lastError}`);
  };

  try {
    // History alone first, until it has joined the membership table: on a new database the first process to
    // start writes the cluster's metadata, and four starting at once race for it (the losers exit with
    // "failed to initialize current cluster metadata"). Then the others, which join history's ring.
    const started = Date.now();
    const since = await membershipNow();
    startService('history');
    await untilMember('history', since);
    log(`  history joined the cluster after ${Date.now() - started} ms`);
    for (const service of ['matching', 'frontend', 'worker'] as const) startService(service);
    const connection = await (async () => {
      for (;;) {
        try {
          const connection = await Connection.connect({ address, connectTimeout: 2_000 });
          await connection.workflowService.getSystemInfo({});
          return connection;
        } catch (error) {
          if (Date.now() - started > READY_TIMEOUT_MS) throw error;
          await throwIfExited();
          await sleep(250);
        }
      }
    })();
    log(`frontend answers at ${address} after ${Date.now() - started} ms`);
    try {
      await registerNamespace(connection, namespace, log);
      const added = await untilNamespaceKnown(() => ensureSearchAttributes(connection, namespace));
      log(
        added.length > 0 ? `registered search attributes: ${added.join(', ')}` : 'search attributes present',
      );
    } finally {
      await connection.close();
    }
    const serving = await waitUntilServing();
    log(
      `Temporal serves namespace ${namespace} at ${address} (${Date.now() - started} ms after start; probe ${serving} ms)`,
    );
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    address,
    namespace,
    logFile,
    pid: (service) => children.get(service)?.pid,
    kill,
    restart: async (service) => {
      const since = await membershipNow();
      startService(service);
      await untilMember(service, since);
    },
    waitUntilServing,
    stop,
  };
}

/**
 * Runs `fn` until it stops answering NOT_FOUND: a namespace created just now reaches each service's namespace
 * cache only at its next refresh (about 10 seconds).
 */
async function untilNamespaceKnown<T>(fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: number }).code !== 5 || Date.now() - started > READY_TIMEOUT_MS) throw error;
      await sleep(500);
    }
  }
}

/** Creates the namespace unless it exists; a namespace created just now takes a moment to reach every service. */
async function registerNamespace(connection: Connection, namespace: string, log: (line: string) => void) {
  const started = Date.now();
  for (;;) {
    try {
      await connection.workflowService.describeNamespace({ namespace });
      log(`namespace ${namespace} exists`);
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 5) {
        if (Date.now() - started > READY_TIMEOUT_MS) throw error;
        await sleep(250);
        continue;
      }
    }
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(`${NAMESPACE_RETENTION_DAYS} days`),
      });
      log(`created namespace ${namespace}`);
      return;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 6) return; // ALREADY_EXISTS: another start made it
      if (Date.now() - started > READY_TIMEOUT_MS) throw error;
      await sleep(250);
    }
  }
}
