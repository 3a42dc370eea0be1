// The API process's HTTP application: one place where routes, error mapping and request ids are wired.
// Tests build it too and drive it with `app.inject`.
import { randomUUID } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Orm } from '../db/orm.ts';
import { AppError } from './errors.ts';
import { healthRoutes } from './routes/health.ts';

export interface AppDependencies {
  config: Pick<Config, 'env' | 'publicBaseUrl'>;
  orm: Orm;
  temporal: { connection: Connection; namespace: string };
  logger: Logger;
}

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // A caller's X-Request-Id is kept when it is sane; otherwise (and when absent) one is generated.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: false,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.error({ err: error }, error.message);
      return reply.code(error.status).headers(error.headers).send(errorBody(error, request.id));
    }
    if (error.validation) {
      const details = error.validation.map((issue) => ({
        field: issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || undefined,
        message: issue.message ?? 'invalid',
      }));
      return reply.code(400).send({
        error: { code: 'invalid_request', message: error.message, details, request_id: request.id },
      });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({
        error: { code: 'invalid_request', message: error.message, details: [], request_id: request.id },
      });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      error: {
        code: 'internal_error',
        message: 'An internal error occurred. Quote the request id when you report it.',
        details: [],
        request_id: request.id,
      },
    });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: {
        code: 'not_found',
        message: `No route ${request.method} ${request.url.split('?')[0]}.`,
        details: [],
        request_id: request.id,
      },
    }),
  );

  await app.register(healthRoutes, deps);
  return app;
}

function errorBody(error: AppError, requestId: string) {
  return {
    error: { code: error.code, message: error.message, details: error.details, request_id: requestId },
  };
}
