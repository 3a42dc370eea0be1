// The bare HTTP server every Sigil app is built on: request ids, zod validation and serialization, and the
// one error mapping (api/http/errors.ts). `buildApp` adds the routes; tests may add their own routes to exercise a plugin.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { routeNotFound, sendError } from './errors.ts';

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

  // One error mapping for every route (api/http/errors.ts): the specification's body, with the request id.
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, routeNotFound(request)));
  return app;
}
