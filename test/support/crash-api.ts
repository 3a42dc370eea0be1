// The whole API app in a process of its own, for the idempotency crash tests: the test sends it a request and
// kills it (SIGKILL) in the middle, as a crashed API process. Its PostgreSQL is reached through the test's
// fault proxy (test/support/pg-fault-proxy.ts), which freezes the conversation at the point the test chose,
// so the kill lands exactly there. Every line this process writes to stdout is one JSON object.
import { pino } from 'pino';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../config/config.ts';
import { createOrm } from '../../db/orm.ts';
import { connectClient } from '../../temporal/connection.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`crash-api: ${name} is not set`);
  return value;
}

const config = loadConfig({
  SIGIL_ENV: 'test',
  DATABASE_URL: required('DATABASE_URL'),
  TEMPORAL_ADDRESS: required('TEMPORAL_ADDRESS'),
  TEMPORAL_NAMESPACE: required('TEMPORAL_NAMESPACE'),
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
  SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
});
const orm = await createOrm({ databaseUrl: config.database.url, poolMax: 4 });
const temporal = await connectClient(config.temporal);
const app = await buildApp({
  config,
  orm,
  temporal: {
    connection: temporal.connection,
    client: temporal.client,
    namespace: config.temporal.namespace,
  },
  logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('crash-api: the app listens on no port');
process.stdout.write(
  `${JSON.stringify({ event: 'listening', pid: process.pid, url: `http://127.0.0.1:${address.port}` })}\n`,
);
