// The API process's HTTP application: the bare server (api/http/server.ts) plus every route. Tests build it
// too and drive it with `app.inject`.
import type { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Orm } from '../db/orm.ts';
import { createServer } from './http/server.ts';
import { healthRoutes } from './routes/health.ts';

export interface AppDependencies {
  config: Pick<Config, 'env' | 'publicBaseUrl' | 'api'>;
  orm: Orm;
  temporal: { connection: Connection; client?: Client; namespace: string };
  logger: Logger;
}

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = createServer({ logger: deps.logger, trustedProxies: deps.config.api.trustedProxies });
  await app.register(healthRoutes, deps);
  return app;
}
