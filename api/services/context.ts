// What every use case may use: the ORM, the Temporal client and the configuration. Made once by the
// process that hosts the services (API, CLI, tests) and handed down.
import type { Client } from '@temporalio/client';
import type { Config } from '../../config/config.ts';
import type { Orm } from '../../db/orm.ts';

export interface ServiceContext {
  orm: Orm;
  temporal: Client;
  /** `notifications` absent: no providers (development and test capture what would be sent). */
  config: Pick<Config, 'env' | 'publicBaseUrl'> & Partial<Pick<Config, 'notifications'>>;
}

/** Services that need no Temporal (creating organizations, clients, templates, drafts). */
export type DataContext = Pick<ServiceContext, 'orm'>;
