// Entry point of the API process (`npm run api`): HTTP API against an existing PostgreSQL and Temporal.
// Applies pending migrations on start (under an advisory lock, so replicas may start together).
import { loadConfigOrExit } from '../config/config.ts';
import { createLogger } from '../config/logger.ts';
import { onShutdown, watchSupervisor } from '../config/shutdown.ts';
import { createOrm, migrateToLatest } from '../db/orm.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import { connectClient } from '../temporal/connection.ts';
import { buildApp } from './app.ts';
import { startBounceReceiver } from './bounces/bounce-receiver.ts';

const config = loadConfigOrExit();
const logger = createLogger(config, 'sigil-api');
watchSupervisor();

try {
  const orm = await createOrm({ databaseUrl: config.database.url, logger, poolMax: config.database.poolMax });
  const applied = await migrateToLatest(orm, config.database.url);
  if (applied.length > 0) logger.info({ applied }, 'database migrations applied');
  const temporal = await connectClient(config.temporal);
  // Stored files' bytes: PostgreSQL always, S3 with STORAGE=s3 (docs/deployment.md "Object storage").
  const files = createFileObjects(config.storage, orm.em);
  const app = await buildApp({
    config,
    orm,
    files,
    temporal: {
      connection: temporal.connection,
      client: temporal.client,
      namespace: config.temporal.namespace,
    },
    logger,
  });
  await app.listen({ host: config.host, port: config.port });
  // The inbound SMTP server for bounces, when configured (docs/notifications.md "Bounces and carrier failures").
  const bounces =
    config.bounces.smtp && config.bounces.domain
      ? await startBounceReceiver({
          ...config.bounces.smtp,
          domain: config.bounces.domain,
          maxMessageBytes: config.bounces.maxMessageBytes,
          orm,
          temporal: temporal.client,
          config,
          logger,
        })
      : null;
  onShutdown(logger, config.shutdownGraceMs, [
    () => app.close(),
    async () => bounces?.close(),
    () => temporal.close(),
    async () => files.close(),
    () => orm.close(),
  ]);
} catch (error) {
  logger.fatal(
    { err: error },
    `API failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
