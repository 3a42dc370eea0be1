// One unit of work per HTTP request: MikroORM's RequestContext gives each request its own entity manager
// (a fork of the global one, bound to the request through async local storage), and `request.services` hands
// it to the use cases together with the Temporal client and the configuration. Registered first, so every
// hook (authentication, rate limits, idempotency, statistics) and the handler share the request's manager.
import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { lazySecretsKey } from '../../config/encryption-key.ts';
import type { RequestServiceContext } from '../../services/context.ts';
import type { IdempotencyScope } from '../../services/idempotency.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import type { AppDependencies } from '../dependencies.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The use cases' context for this request: its entity manager, Temporal, the configuration and, under an
     * Idempotency-Key, the request's claim.
     */
    readonly services: RequestServiceContext;
    /** The claim of an Idempotency-Key request (api/plugins/idempotency.ts); `services` hands it on. */
    idempotency: IdempotencyScope | null;
  }
}

export function registerRequestContext(app: FastifyInstance, deps: AppDependencies): void {
  app.addHook('onRequest', (_request, _reply, done) => {
    RequestContext.create(deps.orm.em, done);
  });
  const config = {
    ...deps.config,
    // Read (in development: generated) the first time a service needs it, not at every start.
    secretsKey: lazySecretsKey({
      env: deps.config.env,
      dataDir: deps.config.dataDir ?? '.data',
      secretsEncryptionKey: deps.config.secretsEncryptionKey ?? null,
    }),
  };
  const clock = deps.clock;
  const files = deps.files ?? createFileObjects({ kind: 'postgres' }, deps.orm.em);
  app.decorateRequest('idempotency', null);
  app.decorateRequest('services', {
    getter(this: FastifyRequest): RequestServiceContext {
      return {
        em: requestEntityManager(),
        temporal: deps.temporal.client,
        config,
        files,
        ...(clock ? { clock } : {}),
        ...(this.idempotency ? { idempotency: this.idempotency } : {}),
      };
    },
  });
}

/** The current request's entity manager; outside a request this is a programming error. */
export function requestEntityManager(): EntityManager {
  const em = RequestContext.getEntityManager();
  if (!em)
    throw new Error('no request context: the entity manager is only available while serving a request');
  return em as EntityManager;
}
