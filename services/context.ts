// What every use case receives: the caller's unit of work (one entity manager), the Temporal client, the
// configuration and the process's stored files' bytes (FileObjects). The caller makes it: an HTTP request gets
// one per request (MikroORM's RequestContext, see api/http/request-context.ts), a CLI command one per command, a
// test one per call. A service reads `ctx.em` once and passes loaded entities down rather than loading them again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config.ts';
import type { FileObjects } from '../storage/file-objects.ts';
import type { IdempotencyScope } from './idempotency.ts';

/**
 * `notifications` absent: no providers (development and test capture what would be sent); `temporal` absent:
 * Temporal calls wait at most the default time (temporal/deadline.ts).
 */
export type ServiceConfig = Pick<Config, 'env' | 'publicBaseUrl'> &
  Partial<Pick<Config, 'notifications'>> & {
    /** The Temporal calls' bound; the namespace and the Web UI's address for links to a workflow. */
    temporal?: Pick<Config['temporal'], 'requestTimeoutMs'> &
      Partial<Pick<Config['temporal'], 'namespace' | 'uiUrl' | 'uiPort' | 'devServer'>>;
    /** The key that encrypts secrets at rest (config/encryption-key.ts), read when first needed. */
    secretsKey?: () => Buffer;
    /** Sealing (docs/sealing.md); absent: the development CA under `dataDir` and no timestamp authority. */
    sealing?: Config['sealing'];
    dataDir?: string;
  };

export interface ServiceContext {
  em: EntityManager;
  temporal: Client;
  config: ServiceConfig;
  /** Where stored files' bytes are read and written (storage/file-objects.ts): the process's one FileObjects. */
  files: FileObjects;
  /** The current time where sessions and tokens need it (default: the system clock). */
  clock?: () => Date;
  /**
   * The Idempotency-Key request this context serves (services/idempotency.ts), set by the API's idempotency
   * plugin; absent without the header and outside the API (CLI, tests, activities).
   */
  idempotency?: IdempotencyScope | undefined;
}

/** What an HTTP request's use cases get (api/http/request-context.ts): the configuration has the API's limits too. */
export interface RequestServiceContext extends ServiceContext {
  config: ServiceConfig & Pick<Config, 'api'>;
}

/** Services that need no Temporal (creating organizations, clients, templates, drafts). */
export type DataContext = Pick<ServiceContext, 'em' | 'idempotency'>;

/** What a use case that reads or writes stored files' bytes needs besides its unit of work. */
export type FilesContext = Pick<ServiceContext, 'files'>;
