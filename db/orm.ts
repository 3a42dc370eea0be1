// MikroORM on PostgreSQL: one factory for the API, the worker, the CLI and the tests.

import { stripVTControlCharacters } from 'node:util';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import { entities } from './entities/index.ts';
import { migrations } from './migrations/index.ts';

export type Orm = MikroORM;

export interface OrmOptions {
  databaseUrl: string;
  logger?: Logger;
  poolMax?: number;
  /** Called with the SQL of every statement this ORM sends (tests count them); off when absent. */
  onQuery?: (sql: string) => void;
}

export async function createOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init({
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      tableName: 'sigil_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    // A PostgreSQL that does not answer a connection attempt is an outage after 5 s (the API's 503), not a
    // request that hangs; pg's own default waits forever.
    driverOptions: { connectionTimeoutMillis: 5_000 },
    debug: options.onQuery ? ['query'] : false,
    allowGlobalContext: false,
    ensureDatabase: false,
    discovery: { warnWhenNoEntities: true },
    logger: (message) => {
      if (options.onQuery) options.onQuery(statementOf(message));
      else options.logger?.debug({ orm: true }, message);
    },
  });
}

/**
 * The SQL of a line of MikroORM's query log (`[query] <sql> [took 1 ms, 1 result]`, coloured), so a test can
 * match a statement from its start.
 */
function statementOf(message: string): string {
  return stripVTControlCharacters(message)
    .replace(/^\[query\] /, '')
    .replace(/ \[took [^\]]*\]( \(via [^)]*\))?$/, '');
}

// A fixed key for pg_advisory_lock, so several API replicas starting together migrate one at a time.
const MIGRATION_LOCK_KEY = 7_304_511_221;

/**
 * Applies pending migrations; returns the names applied. The advisory lock is session-scoped, so it is
 * held on a dedicated connection outside MikroORM's pool for the whole run.
 */
export async function migrateToLatest(orm: Orm, databaseUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end();
  }
}
