// What the API process hands to its HTTP application: configuration, the ORM, the Temporal client and the
// logger. Its own module, so route modules and plugins depend on this shape, not on the app that wires them.
import type { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Orm } from '../db/orm.ts';
import type { FileObjects } from '../storage/file-objects.ts';

/** The configuration the HTTP application reads; `notifications` absent: no providers (capture only). */
export type AppConfig = Pick<Config, 'env' | 'publicBaseUrl' | 'api'> &
  Partial<
    Pick<
      Config,
      'notifications' | 'dataDir' | 'secretsEncryptionKey' | 'temporal' | 'sealing' | 'publicBaseUrlSet'
    >
  >;

export interface AppDependencies {
  config: AppConfig;
  orm: Orm;
  /** The API always talks to Temporal: sends, signer actions and webhook deliveries go through it. */
  temporal: { connection: Connection; client: Client; namespace: string };
  logger: Logger;
  /**
   * Stored files' bytes (storage/file-objects.ts), made once from STORAGE and S3_* by the process (api/main.ts);
   * absent (tests that build an app of their own): the PostgreSQL store only, STORAGE's default.
   */
  files?: FileObjects;
  /** The current time for sessions and tokens; tests inject one to pass timeouts without sleeping. */
  clock?: () => Date;
}
