// Entry point of the worker process (`npm run worker`): runs envelope workflows, webhook deliveries and
// their activities against an existing PostgreSQL and Temporal. Start as many as the load needs.
import { DefaultLogger, type LogLevel, NativeConnection, Runtime } from '@temporalio/worker';
import { loadFinalizationSeal } from '../../activities/finalize.ts';
import { createActivities, finalizeSealingSettings } from '../../activities/index.ts';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { loadConfigOrExit } from '../../config/config.ts';
import { createLogger } from '../../config/logger.ts';
import { watchSupervisor } from '../../config/shutdown.ts';
import { createOrm } from '../../db/orm.ts';
import { sendSenderNotificationEmails } from '../../services/notifications/send-sender-notification-emails.ts';
import { createObjectStores } from '../../services/storage/object-stores.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { resumeBulkSends } from '../bulk-sends.ts';
import { connectClient } from '../connection.ts';
import { ensureObjectSweepSchedule } from '../object-sweep-schedule.ts';
import { ensureRetentionSchedule } from '../retention-schedule.ts';
import { ensureSearchAttributes } from '../search-attributes.ts';
import { RESUME_AFTER_MS, resumePendingWebhookDeliveries } from '../webhook-deliveries.ts';
import { createEnvelopeWorker, createWebhookWorker, WORKFLOWS_PATH } from './worker.ts';
import { loadWorkflowBundle } from './workflow-bundle.ts';

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
  const orm = await createOrm({ databaseUrl: config.database.url, logger, poolMax: config.database.poolMax });
  const client = await connectClient(config.temporal);
  const added = await ensureSearchAttributes(client.connection, config.temporal.namespace);
  if (added.length > 0) logger.info({ added }, 'registered search attributes');
  // The daily retention run (docs/envelope-lifecycle.md, "Retention"), visible in the Web UI's Schedules.
  const schedule = await ensureRetentionSchedule(client.client);
  if (schedule !== 'unchanged')
    logger.info({ schedule: 'sigil-retention' }, `retention schedule ${schedule}`);
  // The daily orphan sweep of stored objects (docs/deployment.md "Object storage").
  const sweepSchedule = await ensureObjectSweepSchedule(client.client, config.objectSweepGraceHours);
  if (sweepSchedule !== 'unchanged')
    logger.info({ schedule: 'sigil-object-sweep' }, `object sweep schedule ${sweepSchedule}`);
  // Once a minute: start any queued webhook delivery whose start was lost (see webhook-deliveries.ts), the
  // workflow of any bulk send still Running whose start was lost (see bulk-sends.ts), and the emails of sender
  // notifications.
  const sweep = async () => {
    try {
      const resumed = await resumePendingWebhookDeliveries(orm.em.fork(), client.client);
      if (resumed > 0) logger.info({ resumed }, 'started queued webhook deliveries');
    } catch (error) {
      logger.warn({ err: error }, 'could not resume queued webhook deliveries');
    }
    try {
      const runs = await resumeBulkSends(orm.em.fork(), client.client, config.temporal.requestTimeoutMs);
      if (runs > 0) logger.debug({ runs }, 'checked the workflows of running bulk sends');
    } catch (error) {
      logger.warn({ err: error }, 'could not resume running bulk sends');
    }
    // The emails of sender notifications waiting in the outbox (docs/notifications.md, "Sender notifications").
    try {
      const sent = await sendSenderNotificationEmails({ em: orm.em.fork(), config });
      if (sent.emails + sent.off + sent.failed > 0) logger.info(sent, 'sender notification emails');
    } catch (error) {
      logger.warn({ err: error }, 'could not send sender notification emails');
    }
  };
  const sweeper = setInterval(sweep, RESUME_AFTER_MS);
  sweeper.unref();
  void sweep();

  // The seal is loaded once at start, so a wrong passphrase or a missing file is said now, not at the first
  // finalization (which would then end in FinalPdfFailed naming the cause until it is fixed).
  try {
    await loadFinalizationSeal(finalizeSealingSettings(config));
  } catch (error) {
    logger.error(
      { err: error },
      'the seal certificate cannot be used: final PDFs will fail until it is fixed',
    );
  }

  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const activities = createActivities({
    orm,
    webhooks: webhookDeliverySettings(
      config.env,
      config.webhooks.retryDelayScale,
      config.webhooks.maxConcurrentPerEndpoint,
    ),
    notifications: config,
    sealing: finalizeSealingSettings(config),
    objectStores: createObjectStores(config.storage, orm.em),
    // Stored files' bytes: PostgreSQL always, S3 with STORAGE=s3 (docs/deployment.md "Object storage").
    files: createFileObjects(config.storage, orm.em),
  });
  // One bundle for both workers: the envelope worker (task queue `envelopes`) and the webhook worker
  // (`webhooks`), made once per version of the workflow code and kept in the cache (workflow-bundle.ts).
  const loaded = await loadWorkflowBundle({
    workflowsPath: WORKFLOWS_PATH,
    cacheDir: config.temporal.workflowBundleDir,
    logger: Runtime.instance().logger,
  });
  logger.info(
    {
      key: loaded.key,
      source: loaded.source,
      ms: loaded.ms,
      ...(loaded.stored ? { path: loaded.path } : {}),
    },
    loaded.source === 'cached' ? 'workflow bundle loaded from the cache' : 'workflow code bundled',
  );
  const workflowBundle = loaded.bundle;
  const options = {
    connection,
    namespace: config.temporal.namespace,
    activities,
    workflowBundle,
    maxCachedWorkflows: config.temporal.workerMaxCachedWorkflows,
  };
  const workers = await Promise.all([createEnvelopeWorker(options), createWebhookWorker(options)]);
  logger.info({ taskQueues: ['envelopes', 'webhooks'], address: config.temporal.address }, 'worker started');
  // run() resolves after SIGINT/SIGTERM, once in-flight tasks have finished (Runtime shutdownSignals).
  await Promise.all(workers.map((worker) => worker.run()));
  clearInterval(sweeper);
  await client.close();
  await connection.close();
  await orm.close();
  logger.info('worker stopped');
} catch (error) {
  logger.fatal({ err: error }, `worker failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
