// The OpenAPI document without running infrastructure: the app is built on lazy connections that are never
// used, because producing the document touches no database and no Temporal server.
import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';
import { loadConfig } from '../../config/config.ts';
import { createOrm } from '../../db/orm.ts';
import { buildApp } from '../app.ts';
import { OPENAPI_PATH } from './openapi.ts';

export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ SIGIL_ENV: 'test', PUBLIC_BASE_URL: 'http://localhost:3000' });
  const orm = await createOrm({ databaseUrl: config.database.url, poolMax: 1 });
  const connection = await Connection.lazy({ address: config.temporal.address });
  const app = await buildApp({
    config,
    orm,
    temporal: { connection, client: new Client({ connection, namespace: 'default' }), namespace: 'default' },
    logger: pino({ level: 'silent' }),
  });
  try {
    return (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
  } finally {
    await app.close();
    await orm.close();
  }
}
