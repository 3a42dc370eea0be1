// The chaos run's own Sigil stack: embedded PostgreSQL, the Temporal dev server, one worker and one API, each
// a child process of the chaos process, in a temporary DATA_DIR on free ports of 127.0.0.1 (never a
// developer's `.data` or the default ports). Unlike `npm start` it can kill or restart each part on its own,
// and it restarts the worker and the API whenever they exit, as a process manager would, so a part that dies
// by itself (not killed by the run) is recorded and brought back.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../config/config.ts';
import { type EmbeddedPostgresProcess, spawnEmbeddedPostgres } from '../../db/embedded-postgres-process.ts';
import { connectClient } from '../../temporal/connection.ts';
import { provisionDevServer } from '../../temporal/provisioning/temporal-cli.ts';
import { ensureSearchAttributes } from '../../temporal/search-attributes.ts';
import { freePort, portInUse } from '../ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type PartName = 'postgres' | 'temporal' | 'worker' | 'api';

export interface StackPorts {
  api: number;
  postgres: number;
  temporal: number;
}

export interface StackOptions {
  dataDir: string;
  ports: StackPorts;
  /** The Temporal CLI binary (`temporal server start-dev`). */
  temporalCli: string;
  namespace: string;
  /** Extra environment of the worker and the API. */
  env: Record<string, string>;
  say: (line: string) => void;
}

/** Something that happened to a part, with when (ms since the epoch). */
export interface PartEvent {
  part: PartName;
  kind: 'started' | 'ready' | 'killed' | 'stopped' | 'exited';
  at: number;
  detail?: string;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s`);
}

function exitOf(child: ChildProcess): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.signalCode ?? `code ${child.exitCode}`);
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)));
}

/** A Node child (worker or API) that the stack restarts whenever it exits, unless the stack is stopping. */
interface Supervised {
  child: ChildProcess | undefined;
  /** Resolves when the current child is ready. */
  ready: Promise<void>;
  /** Set while the run itself kills the part (so its exit is expected). */
  expectedExit: boolean;
}

export class ChaosStack {
  readonly events: PartEvent[] = [];
  readonly databaseUrl: string;
  readonly temporalAddress: string;
  readonly apiUrl: string;
  private postgres: EmbeddedPostgresProcess | undefined;
  private temporal: ChildProcess | undefined;
  private readonly supervised = new Map<'worker' | 'api', Supervised>();
  private readonly logs = new Map<string, WriteStream>();
  private stopping = false;
  private readonly options: StackOptions;

  constructor(options: StackOptions) {
    this.options = options;
    this.databaseUrl = `postgresql://sigil:sigil-local@127.0.0.1:${options.ports.postgres}/sigil`;
    this.temporalAddress = `127.0.0.1:${options.ports.temporal}`;
    this.apiUrl = `http://127.0.0.1:${options.ports.api}`;
  }

  get logDir(): string {
    return join(this.options.dataDir, 'logs');
  }

  private log(name: string): WriteStream {
    let stream = this.logs.get(name);
    if (!stream) {
      stream = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
      this.logs.set(name, stream);
    }
    return stream;
  }

  private record(part: PartName, kind: PartEvent['kind'], detail?: string): PartEvent {
    const event: PartEvent = { part, kind, at: Date.now(), ...(detail ? { detail } : {}) };
    this.events.push(event);
    return event;
  }

  /** The environment of the worker, the API and the operator CLI. */
  childEnv(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...this.options.env,
      SIGIL_ENV: 'development',
      DATA_DIR: this.options.dataDir,
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: this.options.namespace,
      PORT: String(this.options.ports.api),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: this.apiUrl,
      LOG_LEVEL: 'info',
      SIGIL_SUPERVISOR_PID: String(process.pid),
    };
  }

  // ---- PostgreSQL --------------------------------------------------------------------------------------

  async startPostgres(): Promise<void> {
    this.record('postgres', 'started');
    this.postgres = await spawnEmbeddedPostgres({
      dataDir: join(this.options.dataDir, 'postgres'),
      port: this.options.ports.postgres,
      output: this.log('postgres'),
      detached: true,
      log: (line) => this.options.say(`PostgreSQL: ${line}`),
    });
    const postgres = this.postgres;
    postgres.child.once('exit', (code, signal) => {
      // Still the current cluster: nobody asked it to stop.
      if (!this.stopping && this.postgres === postgres)
        this.record('postgres', 'exited', signal ?? `code ${code}`);
    });
    this.record('postgres', 'ready');
  }

  /** Stops the cluster's process (PostgreSQL shuts down, dropping every connection). */
  async stopPostgres(): Promise<void> {
    const postgres = this.postgres;
    this.postgres = undefined;
    if (!postgres) return;
    this.record('postgres', 'stopped');
    await postgres.stop(30_000);
  }

  // ---- Temporal ----------------------------------------------------------------------------------------

  async startTemporal(): Promise<void> {
    const { ports, namespace, temporalCli } = this.options;
    if (await portInUse(ports.temporal)) throw new Error(`port ${ports.temporal} is already in use`);
    this.record('temporal', 'started');
    const child = spawn(
      temporalCli,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(ports.temporal),
        '--headless',
        '--db-filename',
        join(this.options.dataDir, 'temporal.db'),
        '--namespace',
        namespace,
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = this.log('temporal');
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('exit', (code, signal) => {
      if (!this.stopping && this.temporal === child)
        this.record('temporal', 'exited', signal ?? `code ${code}`);
    });
    this.temporal = child;
    await waitUntil('the Temporal dev server', () => portInUse(ports.temporal), 60_000);
    this.record('temporal', 'ready');
  }

  /** Stops the dev server (SIGTERM; its history stays in the db file for the next start). */
  async stopTemporal(): Promise<void> {
    const child = this.temporal;
    this.temporal = undefined;
    if (!child) return;
    this.record('temporal', 'stopped');
    const exited = exitOf(child);
    child.kill('SIGTERM');
    const done = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
    await waitUntil(
      'the Temporal port to close',
      async () => !(await portInUse(this.options.ports.temporal)),
      15_000,
    );
  }

  // ---- Worker and API ----------------------------------------------------------------------------------

  /** Starts the worker or the API and resolves once it is ready; it is restarted whenever it exits. */
  start(part: 'worker' | 'api'): Promise<void> {
    const slot: Supervised = { child: undefined, ready: Promise.resolve(), expectedExit: false };
    this.supervised.set(part, slot);
    this.spawnNode(part, slot);
    return slot.ready;
  }

  /** Resolves once the part's current process is ready. */
  ready(part: 'worker' | 'api'): Promise<void> {
    return this.supervised.get(part)?.ready ?? Promise.reject(new Error(`${part} was never started`));
  }

  pid(part: 'worker' | 'api'): number | undefined {
    return this.supervised.get(part)?.child?.pid;
  }

  private spawnNode(part: 'worker' | 'api', slot: Supervised): void {
    const script = join(ROOT, part === 'worker' ? 'temporal/worker/main.ts' : 'api/main.ts');
    // Detached: a Ctrl-C reaches only the chaos process, which stops the parts in order. Each part also
    // stops itself when the chaos process dies (SIGIL_SUPERVISOR_PID).
    const child = spawn(process.execPath, [script], {
      env: this.childEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    slot.child = child;
    slot.expectedExit = false;
    this.record(part, 'started', `pid ${child.pid}`);
    const log = this.log(part);
    let readyResolve: () => void = () => {};
    let readyReject: (error: Error) => void = () => {};
    slot.ready = new Promise<void>((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    slot.ready.catch(() => {});
    let isReady = false;
    const markReady = () => {
      if (isReady) return;
      isReady = true;
      this.record(part, 'ready', `pid ${child.pid}`);
      readyResolve();
    };
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (part !== 'worker' || isReady) return;
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        // The worker logs `worker started` (pino JSON) once both of its workers poll.
        if (line.includes('"msg":"worker started"')) markReady();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
    if (part === 'api') {
      // The API is ready once it answers HTTP at all (its health may still say a dependency is down).
      void (async () => {
        while (!isReady && child.exitCode === null && child.signalCode === null) {
          try {
            await fetch(`${this.apiUrl}/api/health`, { signal: AbortSignal.timeout(5000) });
            markReady();
          } catch {
            await sleep(100);
          }
        }
      })();
    }
    child.once('exit', (code, signal) => {
      const how = signal ?? `code ${code}`;
      if (!isReady) readyReject(new Error(`${part} exited before it was ready (${how})`));
      if (this.stopping) return;
      if (!slot.expectedExit) {
        this.record(part, 'exited', how);
        this.options.say(
          `${part} exited by itself (${how}); restarting it (log: ${join(this.logDir, `${part}.log`)})`,
        );
      }
      // A process manager's restart policy: back after a second.
      setTimeout(
        () => {
          if (!this.stopping && slot.child === child) this.spawnNode(part, slot);
        },
        slot.expectedExit ? 0 : 1000,
      ).unref();
    });
  }

  /** SIGKILL the worker or the API; the stack starts a new one at once. Resolves when the new one is ready. */
  async kill(part: 'worker' | 'api'): Promise<{ killedAt: number; readyAt: number }> {
    const slot = this.supervised.get(part);
    const child = slot?.child;
    if (!slot || !child) throw new Error(`${part} is not running`);
    slot.expectedExit = true;
    const exited = exitOf(child);
    child.kill('SIGKILL');
    const killedAt = this.record(part, 'killed', `pid ${child.pid}`).at;
    await exited;
    // The exit handler has spawned the replacement (or will at once).
    await waitUntil(`a new ${part}`, async () => slot.child !== child, 10_000);
    await this.readyWithRetries(part);
    return { killedAt, readyAt: Date.now() };
  }

  /** Waits for the part to be ready, across restarts (a start may fail while a dependency is down). */
  async readyWithRetries(part: 'worker' | 'api', timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.ready(part);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
  }

  // ---- Whole stack -------------------------------------------------------------------------------------

  async prepare(): Promise<void> {
    await mkdir(this.logDir, { recursive: true });
  }

  /** Starts PostgreSQL and Temporal together and registers Sigil's search attributes in the namespace. */
  async startStores(): Promise<void> {
    await Promise.all([this.startPostgres(), this.startTemporal()]);
    const { namespace } = this.options;
    const temporal = await connectClient({ address: this.temporalAddress, namespace });
    await ensureSearchAttributes(temporal.connection, namespace);
    await temporal.close();
  }

  /** Stops everything: API and worker first, then Temporal, then PostgreSQL. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const part of ['api', 'worker'] as const) {
      const child = this.supervised.get(part)?.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      const exited = exitOf(child);
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    await this.stopTemporal().catch(() => {});
    await this.stopPostgres().catch(() => {});
    for (const stream of this.logs.values()) stream.end();
  }
}

/**
 * A stack of a run's own (the chaos and abuse runs, bench:scale): a fresh data directory under the system's
 * temporary one, free ports, the default namespace and the Temporal CLI that provisioning finds or fetches;
 * `run` names the run in the error when there is no CLI binary. The caller prepares, starts and stops it and
 * removes `dataDir`.
 */
export async function localChaosStack(options: {
  run: string;
  dataDirPrefix: string;
  env: Record<string, string>;
  say: (line: string) => void;
}): Promise<{ stack: ChaosStack; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), options.dataDirPrefix));
  // Run as root, the embedded PostgreSQL's initdb runs as another user, which must reach its directory inside.
  await chmod(dataDir, 0o755);
  const config = loadConfig({ ...process.env, SIGIL_ENV: 'development' });
  const devServer = await provisionDevServer({
    cliPath: config.temporal.cliPath,
    cacheDir: config.cacheDir,
    log: options.say,
  });
  if (!devServer.path) {
    throw new Error(
      `${options.run} needs the Temporal CLI binary: run \`npm run provision -- --dev-server\``,
    );
  }
  const stack = new ChaosStack({
    dataDir,
    ports: { api: await freePort(), postgres: await freePort(), temporal: await freePort() },
    temporalCli: devServer.path,
    namespace: 'default',
    env: options.env,
    say: options.say,
  });
  return { stack, dataDir };
}
