// A database of its own for a test file that changes what the whole platform shares (the notification
// providers a platform administrator saves apply to every message of every organization): created on the
// suite's PostgreSQL, migrated, and dropped afterwards, so the other files running next to it never see the
// change. The app and the services run on it; Temporal is the suite's.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createOrm, migrateToLatest } from '../../db/orm.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { connectClient } from '../../temporal/connection.ts';
import { type ApiHarness, buildTestApp } from './api.ts';
import { testConfig } from './context.ts';

async function onServer(databaseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The app on a new, migrated database; `close` drops it. */
export async function openIsolatedHarness(
  config = testConfig(),
): Promise<ApiHarness & { databaseUrl: string }> {
  const suiteUrl = inject('databaseUrl');
  const name = `sigil_isolated_${randomBytes(6).toString('hex')}`;
  await onServer(suiteUrl, `create database ${name}`);
  const url = new URL(suiteUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const orm = await createOrm({ databaseUrl, poolMax: 4 });
  await migrateToLatest(orm, databaseUrl);
  const temporal = await connectClient({
    address: inject('temporalAddress'),
    namespace: inject('namespace'),
  });
  const ctx = {
    orm,
    get em() {
      return orm.em.fork();
    },
    temporal: temporal.client,
    config: { env: 'test' as const, publicBaseUrl: 'http://localhost:3000' },
    files: createFileObjects({ kind: 'postgres' }, orm.em),
    close: async () => {
      await temporal.close();
      await orm.close();
    },
  };
  const app = await buildTestApp(ctx, config);
  return {
    app,
    ctx,
    databaseUrl,
    close: async () => {
      await app.close();
      await ctx.close();
      await onServer(suiteUrl, `drop database if exists ${name} with (force)`);
    },
  };
}
