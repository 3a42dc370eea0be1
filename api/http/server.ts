// The bare HTTP server every Sigil app is built on: request ids, zod validation and serialization, and the
// one error mapping. `buildApp` adds the routes; tests may add their own routes to exercise a plugin.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

export interface ServerOptions {
  logger: Logger;
  /** Proxies whose X-Forwarded-For is trusted (IPs/CIDRs); empty: the TCP peer is the client. */
  trustedProxies?: string[];
  bodyLimit?: number;
}

export function createServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // A caller's X-Request-Id is kept when it is sane; otherwise (and when absent) one is generated.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: options.trustedProxies && options.trustedProxies.length > 0 ? options.trustedProxies : false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.error({ err: error }, error.message);
      return reply.code(error.status).headers(error.headers).send(errorBody(error, request.id));
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = error.validation.map((issue) => ({
        field: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
        message: issue.message,
      }));
      const first = details[0];
      return reply.code(400).send({
        error: {
          code: 'invalid_request',
          message: `Invalid request: ${first ? `${first.field}: ${first.message}` : 'malformed'}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
          details,
          request_id: request.id,
        },
      });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({
        error: {
          code: error.statusCode === 413 ? 'payload_too_large' : 'invalid_request',
          message: error.message,
          details: [],
          request_id: request.id,
        },
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
  return app;
}

export function errorBody(error: AppError, requestId: string) {
  return {
    error: { code: error.code, message: error.message, details: error.details, request_id: requestId },
  };
}
