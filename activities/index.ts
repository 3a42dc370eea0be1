// Every side effect the workflows need, built from explicit dependencies so tests can pass real ones.
import { type Config, loadConfig } from '../config/config.ts';
import type { Orm } from '../db/orm.ts';
import { createObjectStores, type ObjectStores } from '../services/storage/object-stores.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import type { FileObjects } from '../storage/file-objects.ts';
import { createBulkSendActivities } from './bulk-send.ts';
import { createFinalizeActivities, type FinalizeSealingSettings } from './finalize.ts';
import { createNotificationActivities, type NotificationActivityConfig } from './notifications.ts';
import { createObjectSweepActivities } from './object-sweep.ts';
import { createProjectionActivities, whileHeartbeating } from './projection.ts';
import { createRetentionActivities } from './retention.ts';
import { createWebhookActivities, type WebhookDeliverySettings } from './webhooks.ts';

export interface ActivityDependencies {
  orm: Orm;
  /** Webhook HTTP settings; by default private targets are refused (see webhookDeliverySettings). */
  webhooks?: Partial<WebhookDeliverySettings>;
  /**
   * Notification providers, environment and public base URL (the worker passes its configuration). Omitted:
   * read from this process's environment (tests: SIGIL_ENV unset is development, so messages are captured).
   */
  notifications?: NotificationActivityConfig;
  /** The seal and timestamp authorities; omitted: read from this process's environment. */
  sealing?: FinalizeSealingSettings;
  /** Stored files' bytes (storage/file-objects.ts); omitted: made from this process's STORAGE and S3_*. */
  files?: FileObjects;
  /** The object stores the orphan sweep cleans; omitted: those this process's environment configures. */
  objectStores?: ObjectStores;
}

/** Finalization's sealing settings from a configuration. */
export function finalizeSealingSettings(
  config: Pick<Config, 'dataDir' | 'sealing'>,
): FinalizeSealingSettings {
  return {
    pkcs12: config.sealing.pkcs12,
    dataDir: config.dataDir,
    timestampAuthorities: config.sealing.timestampAuthorities,
    timestampTimeoutMs: config.sealing.timestampTimeoutMs,
    retryInitialMs: config.sealing.retryInitialMs,
    giveUpAfterMs: config.sealing.giveUpAfterMs,
  };
}

/** How often finalization tells Temporal it is alive, whatever step it is in (its heartbeat timeout is 5 s). */
const FINALIZE_HEARTBEAT_EVERY_MS = 1000;

export function createActivities(deps: ActivityDependencies) {
  const files = deps.files ?? createFileObjects(loadConfig().storage, deps.orm.em);
  const finalize = createFinalizeActivities({
    orm: deps.orm,
    sealing: deps.sealing ?? finalizeSealingSettings(loadConfig()),
    files,
  });
  return {
    ...createProjectionActivities(deps),
    ...finalize,
    // Besides the heartbeats between its steps: a long render or a slow load keeps the attempt alive, so
    // the short heartbeat timeout only ever fires for a worker that is gone.
    finalizeEnvelope: (request: Parameters<typeof finalize.finalizeEnvelope>[0]) =>
      whileHeartbeating(() => finalize.finalizeEnvelope(request), FINALIZE_HEARTBEAT_EVERY_MS),
    ...createNotificationActivities({ orm: deps.orm, config: deps.notifications ?? loadConfig(), files }),
    ...createWebhookActivities(deps),
    ...createRetentionActivities(deps),
    ...createObjectSweepActivities({
      orm: deps.orm,
      stores: deps.objectStores ?? createObjectStores(loadConfig().storage, deps.orm.em),
    }),
    ...createBulkSendActivities({ orm: deps.orm, config: deps.notifications, files }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
