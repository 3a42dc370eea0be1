// Every side effect the workflows need, built from explicit dependencies so tests can pass real ones.
import { loadConfig } from '../config/config.ts';
import type { Orm } from '../db/orm.ts';
import { createFinalizeActivities } from './finalize.ts';
import { createNotificationActivities, type NotificationActivityConfig } from './notifications.ts';
import { createProjectionActivities } from './projection.ts';
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
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createProjectionActivities(deps),
    ...createFinalizeActivities(deps),
    ...createNotificationActivities({ orm: deps.orm, config: deps.notifications ?? loadConfig() }),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
