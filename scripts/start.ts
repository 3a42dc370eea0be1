// `npm start`: the whole service on one machine with embedded defaults. Starts PostgreSQL (embedded unless
// DATABASE_URL is set), the Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set), registers
// search attributes, applies migrations, seeds the demo (development only), then runs the worker and the
// API as child processes. Ctrl-C stops everything in order; data stays under DATA_DIR for the next start.

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Config, loadConfigOrExit } from '../config/config.ts';
import { redactUrl } from '../config/logger.ts';
import { spawnEmbeddedPostgres } from '../db/embedded-postgres-process.ts';
import { createOrm, migrateToLatest } from '../db/orm.ts';
import { ensureDevelopmentCa } from '../pdf/sealing/development-ca.ts';
import { describeProvisioned } from '../provisioning/shared.ts';
import { connectClient } from '../temporal/connection.ts';
import { explainProvisioningFailure } from '../temporal/provisioning/failures.ts';
import { provisionDevServer } from '../temporal/provisioning/temporal-cli.ts';
import { ensureSearchAttributes } from '../temporal/search-attributes.ts';
import { seedDemo } from './demo/seed-demo.ts';
import { seedPlatformAdmin } from './demo/seed-platform-admin.ts';
import { ensureWebBuild } from './ensure-web-build.ts';
import { portInUse } from './ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const say = (message: string) => process.stdout.write(`[sigil] ${message}\n`);

interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

const config = loadConfigOrExit();
const started: Stoppable[] = [];
let shuttingDown = false;

process.on('SIGINT', () => void shutdown('Ctrl-C', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));

try {
  await main(config);
} catch (error) {
  process.stderr.write(`\n[sigil] start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await shutdown('start failed', 1);
}

async function main(config: Config): Promise<void> {
  const t0 = Date.now();
  await mkdir(join(config.dataDir, 'logs'), { recursive: true });

  // 0. The web app, built when web/build is missing or older than web/'s sources (a few seconds)
  await ensureWebBuild(say);

  // 1. PostgreSQL
  if (config.database.embedded) {
    say(
      `starting embedded PostgreSQL on 127.0.0.1:${config.database.embeddedPort} (data in ${config.dataDir}/postgres)`,
    );
    await startEmbeddedPostgres(config);
  } else {
    say(`using PostgreSQL at ${redactUrl(config.database.url)}`);
  }

  // 2. Temporal
  if (config.temporal.devServer) {
    await startTemporalDevServer(config);
  } else {
    say(`using Temporal at ${config.temporal.address} (namespace ${config.temporal.namespace})`);
  }
  const temporal = await connectClient(config.temporal);
  const added = await ensureSearchAttributes(temporal.connection, config.temporal.namespace);
  if (added.length > 0) say(`registered search attributes: ${added.join(', ')}`);
  await temporal.close();

  // 3. Schema and demo data
  const orm = await createOrm({ databaseUrl: config.database.url });
  const applied = await migrateToLatest(orm, config.database.url);
  say(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
  const demo = config.env === 'development' ? await seedDemo(orm, config.dataDir, config.storage) : undefined;
  if (demo?.created) say('seeded the demo organization, template and OAuth client');
  const platformAdmin =
    config.env === 'development' ? await seedPlatformAdmin(orm, config.dataDir) : undefined;
  await orm.close();

  // The seal of final PDFs: a configured PKCS#12 file, or the development CA, generated once under DATA_DIR.
  if (config.sealing.pkcs12) {
    say(`sealing with ${config.sealing.pkcs12.path}`);
  } else {
    const ca = await ensureDevelopmentCa(config.dataDir);
    say(
      `${ca.created ? 'generated' : 'sealing with'} the development certificate authority in ${ca.directory} ` +
        '(development only: set SEALING_PKCS12_PATH for real documents)',
    );
  }

  // 4. Worker and API
  const childEnv = {
    ...process.env,
    SIGIL_ENV: config.env,
    DATABASE_URL: config.database.url,
    TEMPORAL_ADDRESS: config.temporal.address,
    DATA_DIR: config.dataDir,
  };
  await startNodeChild('worker', join(ROOT, 'temporal/worker/main.ts'), childEnv, config);
  await startNodeChild('api', join(ROOT, 'api/main.ts'), childEnv, config);
  await waitFor(
    'the API health check',
    async () => (await fetch(`http://127.0.0.1:${config.port}/api/health`)).ok,
    60_000,
  );

  const uiUrl =
    config.temporal.uiUrl ??
    (config.temporal.devServer ? `http://localhost:${config.temporal.uiPort}` : undefined);
  const lines = [
    '',
    '────────────────────────────────────────────────────────────────────────',
    `  Sigil is running (${config.env}), ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    '',
    `  App                 ${config.publicBaseUrl}`,
    `  Health              ${config.publicBaseUrl}/api/health`,
    ...(config.env === 'production'
      ? []
      : [`  Dev notifications   ${config.publicBaseUrl}/dev/notifications`]),
    `  Swagger (API v1)    ${config.publicBaseUrl}/swagger`,
    `  OpenAPI             ${config.publicBaseUrl}/api/openapi/v1/openapi.json`,
    `  Temporal Web UI     ${uiUrl ?? '(external cluster: set TEMPORAL_UI_URL to show it here)'}`,
    `  Temporal            ${config.temporal.address}  namespace ${config.temporal.namespace}`,
    ...(demo
      ? [
          '',
          `  Demo organization   ${demo.demo.organizationName}  ${demo.demo.organizationId}`,
          `  Demo template       ${demo.demo.templateId}`,
          `  OAuth client_id     ${demo.demo.clientId}`,
          `  OAuth client_secret ${demo.demo.clientSecret}`,
          `  Demo owner          ${demo.demo.ownerEmail}  password ${demo.demo.ownerPassword}`,
          `  Sign in             ${config.publicBaseUrl}/app/sign-in`,
          `  (development only; kept in ${join(config.dataDir, 'demo.json')})`,
        ]
      : []),
    ...(platformAdmin
      ? [
          '',
          `  Platform admin      ${platformAdmin.email}  password ${platformAdmin.password}`,
          `  Backoffice          ${config.publicBaseUrl}/backoffice  (the sign-in code arrives in Dev notifications)`,
          `  (development only; kept in ${join(config.dataDir, 'platform-admin.json')})`,
        ]
      : []),
    '',
    `  Logs                ${join(config.dataDir, 'logs')}/`,
    '  Stop with Ctrl-C; data under DATA_DIR is kept for the next start.',
    '────────────────────────────────────────────────────────────────────────',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function startEmbeddedPostgres(config: Config): Promise<void> {
  const log = createWriteStream(join(config.dataDir, 'logs', 'postgres.log'), { flags: 'a' });
  const postgres = await spawnEmbeddedPostgres({
    dataDir: join(config.dataDir, 'postgres'),
    port: config.database.embeddedPort,
    log: say,
    output: log,
    detached: true,
  }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n(see ${log.path})`);
  });
  watchExit('PostgreSQL', postgres.child, log);
  started.push({ name: 'PostgreSQL', stop: () => postgres.stop() });
}

async function startTemporalDevServer(config: Config): Promise<void> {
  const { port, uiPort } = config.temporal;
  if (await portInUse(port)) {
    throw new Error(
      `port ${port} is already in use (a Temporal server left over from an earlier run?). ` +
        'Stop that process, set TEMPORAL_PORT to a free port, or set TEMPORAL_ADDRESS to use that server.',
    );
  }
  const server = await provisionDevServer({
    cliPath: config.temporal.cliPath,
    cacheDir: config.cacheDir,
    log: say,
  });
  say(`Temporal CLI: ${describeProvisioned(server)}`);
  const dbFile = join(config.dataDir, 'temporal.db');
  if (server.path) {
    say(`starting the Temporal dev server on 127.0.0.1:${port}, Web UI on ${uiPort} (history in ${dbFile})`);
    const log = createWriteStream(join(config.dataDir, 'logs', 'temporal.log'), { flags: 'a' });
    const child = spawn(
      server.path,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--ui-port',
        String(uiPort),
        '--db-filename',
        dbFile,
        '--namespace',
        config.temporal.namespace,
        '--log-level',
        'warn',
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    superviseChild('Temporal dev server', child, log, () => {});
    started.push({ name: 'Temporal dev server', stop: () => stopChild(child, 15_000) });
  } else {
    // No binary here: let the SDK download and run the dev server (machines with internet access only).
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    try {
      const env = await TestWorkflowEnvironment.createLocal({
        server: {
          executable: server.executable,
          ip: '127.0.0.1',
          port,
          uiPort,
          dbFilename: dbFile,
          namespace: config.temporal.namespace,
        },
      });
      started.push({ name: 'Temporal dev server', stop: () => env.teardown() });
    } catch (error) {
      throw explainProvisioningFailure('dev-server', error, { cacheDir: config.cacheDir });
    }
  }
  await waitFor('the Temporal dev server', () => portInUse(port), 60_000);
}

async function startNodeChild(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  config: Config,
): Promise<ChildProcess> {
  const log = createWriteStream(join(config.dataDir, 'logs', `${name}.log`), { flags: 'a' });
  // Detached: Ctrl-C reaches only this supervisor, which then stops the children in order.
  const child = spawn(process.execPath, [script], {
    env: { ...env, SIGIL_SUPERVISOR_PID: String(process.pid) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  superviseChild(name, child, log, (line) => {
    // Children log JSON lines (pino); the console shows warnings and errors, the file has everything.
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      if ((entry.level ?? 0) >= 40) say(`${name}: ${entry.msg ?? line}`);
    } catch {
      say(`${name}: ${line}`);
    }
  });
  started.push({ name, stop: () => stopChild(child, config.shutdownGraceMs) });
  return child;
}

function superviseChild(name: string, child: ChildProcess, log: WriteStream, onLine: (line: string) => void) {
  for (const stream of [child.stdout, child.stderr]) {
    let buffer = '';
    stream?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(line);
    });
  }
  watchExit(name, child, log);
}

/** A child that exits while Sigil is not stopping takes the whole service down, with the reason. */
function watchExit(name: string, child: ChildProcess, log: WriteStream) {
  child.on('exit', (code, signal) => {
    log.end();
    if (!shuttingDown) {
      say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); see ${log.path}`);
      void shutdown(`${name} exited`, 1);
    }
  });
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}

async function shutdown(reason: string, code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  say(`stopping (${reason})…`);
  // Reverse order of start: API and worker first, then Temporal, then PostgreSQL.
  for (const part of started.reverse()) {
    try {
      await part.stop();
      say(`stopped ${part.name}`);
    } catch (error) {
      say(`could not stop ${part.name} cleanly: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  process.exit(code);
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    if (!announced && Date.now() > deadline - timeoutMs + 5000) {
      say(`waiting for ${what}…`);
      announced = true;
    }
    await sleep(250);
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}
