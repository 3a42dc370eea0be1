// Entry point of the worker process (`npm run worker`): runs envelope workflows and their activities
// against an existing PostgreSQL and Temporal. Start as many as the load needs.
import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { loadConfigOrExit } from '../config/config.ts';
import { createLogger } from '../config/logger.ts';
import { watchSupervisor } from '../config/shutdown.ts';
import { createOrm } from '../db/orm.ts';
import { connectClient, connectWorker } from './connection.ts';
import { ensureSearchAttributes } from './search-attributes.ts';
import { createEnvelopeWorker } from './worker.ts';

const config = loadConfigOrExit();
const logger = createLogger(config, 'sigil-worker');
watchSupervisor();

const SDK_LEVELS: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' };
Runtime.install({
  logger: new DefaultLogger(SDK_LEVELS[config.logLevel] ?? 'WARN', ({ level, message, meta }) => {
    const method =
      level === 'TRACE'
        ? 'trace'
        : level === 'DEBUG'
          ? 'debug'
          : level === 'INFO'
            ? 'info'
            : level === 'WARN'
              ? 'warn'
              : 'error';
    logger[method]({ temporal: meta }, message);
  }),
  shutdownSignals: ['SIGINT', 'SIGTERM'],
});

try {
  const orm = await createOrm({ databaseUrl: config.database.url, logger });
  const client = await connectClient(config.temporal);
  const added = await ensureSearchAttributes(client.connection, config.temporal.namespace);
  if (added.length > 0) logger.info({ added }, 'registered search attributes');
  await client.close();

  const connection = await connectWorker(config.temporal);
  const worker = await createEnvelopeWorker({
    connection,
    namespace: config.temporal.namespace,
    activities: createActivities({ orm }),
  });
  logger.info({ taskQueue: 'envelopes', address: config.temporal.address }, 'worker started');
  // run() resolves after SIGINT/SIGTERM, once in-flight tasks have finished (Runtime shutdownSignals).
  await worker.run();
  await connection.close();
  await orm.close();
  logger.info('worker stopped');
} catch (error) {
  logger.fatal({ err: error }, `worker failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
