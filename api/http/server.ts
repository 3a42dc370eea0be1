// The bare HTTP server every Sigil app is built on: request ids, zod validation and serialization, the one
// error mapping (api/http/errors.ts) and the headers every answer needs (no caching of API answers, HSTS in
// production over https). `buildApp` adds the routes; tests may add their own routes to exercise a plugin.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Logger } from 'pino';
import { AppError } from '../../services/errors.ts';
import { routeNotFound, sendError } from './errors.ts';

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** The API's paths: their answers carry sessions' data, tokens and signing links (see `no-store` below). */
const API_PATHS = /^\/(?:api|oauth)(?:[/?#]|$)/;

/**
 * HSTS as Sigil sends it (docs/deployment.md, "Behind a reverse proxy"): one year, this host only. Not
 * `includeSubDomains` (Sigil speaks for its own host, not for names beside or under it) and not `preload`
 * (an operator's decision for the whole domain); a proxy may send a stronger header instead.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export interface ServerOptions {
  logger: Logger;
  /** Proxies whose X-Forwarded-For is trusted (IPs/CIDRs); empty: the TCP peer is the client. */
  trustedProxies?: string[];
  bodyLimit?: number;
  /** Send Strict-Transport-Security on every answer (production with an https PUBLIC_BASE_URL). */
  strictTransportSecurity?: boolean;
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
    // A client must send its whole request within two minutes (a 25 MB upload on a slow line fits): a body
    // that trickles in, or keeps coming after the answer was decided, does not hold a connection for ever.
    requestTimeout: 120_000,
    // A path parameter of any length reaches the route's validation, which refuses it with a 400 naming the
    // parameter (find-my-way's default of 100 characters answered an undocumented 414). Node's 16 KB header
    // limit bounds the whole request line first (431).
    routerOptions: { maxParamLength: 16 * 1024 },
    // Node refuses some requests before Fastify sees them (headers too large, malformed HTTP): answer them
    // with the error body too.
    clientErrorHandler: answerClientError,
    // A path Fastify cannot decode (a %-escape that is not UTF-8, such as a lone surrogate's bytes) is refused
    // before routing: with the error body too, not Fastify's own.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const hsts = options.strictTransportSecurity === true;
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (hsts) reply.header('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  });
  // No answer of the API is kept by a browser or a shared cache unless its route says otherwise (an ETag
  // route's `private, no-cache`, a stamp image's `private, max-age`): decided here once, for the application
  // routes, /api/v1, the signer API, the backoffice and /oauth/token alike, errors included.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('cache-control') && API_PATHS.test(request.url)) {
      reply.header('Cache-Control', 'no-store');
    }
    return payload;
  });

  // One error mapping for every route (api/http/errors.ts): the specification's body, with the request id.
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  // A path that exists with other methods answers 405 with Allow; any other unknown path 404. Checked when
  // the request arrives, before its body is parsed (a QUERY without a content type is still a 405), and also
  // when a parametric route caught a path that a route naming more of it has (GET /api/v1/envelopes/from-template
  // is POST's; DELETE /api/api-keys/{id}/secrets/rotate is POST's, not /secrets/{secretId}'s).
  const paths = FindMyWay();
  app.addHook('onRoute', (route) => {
    // Catch-alls (the web app's pages, Swagger UI's files) say nothing about which methods a path has.
    if (route.url.includes('*')) return;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') paths.on(method as HTTPMethod, route.url, () => {});
    }
  });
  const refuseMethod = (request: FastifyRequest): AppError | undefined => {
    const path = request.url.split('?')[0] ?? '/';
    const caughtByParameter = !request.is404 && (request.routeOptions.url ?? '').includes(':');
    if (!request.is404 && !caughtByParameter) return undefined;
    const allowed = allowedMethods(paths, path);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (allowed.length === 0 || allowed.includes(method as HTTPMethod)) return undefined;
    // (A parametric route that caught the path is not among the path's own routes: those name more of it.)
    return methodNotAllowed(request.method, path, allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed);
  };
  app.addHook('onRequest', async (request) => {
    const refused = refuseMethod(request);
    if (refused) throw refused;
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, refuseMethod(request) ?? routeNotFound(request)),
  );
  return app;
}

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

type PathRouter = ReturnType<typeof FindMyWay>;

/**
 * The methods a path has: those of the routes that name the most of it, with the fewest parameters (a static
 * route of exactly the path, else `/secrets/rotate` rather than `/secrets/{secretId}`).
 */
function allowedMethods(paths: PathRouter, path: string): HTTPMethod[] {
  const matches = METHODS.flatMap((method) => {
    const found = paths.find(method, path);
    return found ? [{ method, parameters: Object.keys(found.params).length }] : [];
  });
  const fewest = Math.min(...matches.map((match) => match.parameters));
  return matches.filter((match) => match.parameters === fewest).map((match) => match.method);
}

function methodNotAllowed(method: string, path: string, allowed: string[]): AppError {
  return new AppError(
    405,
    'method_not_allowed',
    `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
    [{ field: 'method', message: method }],
    { Allow: allowed.join(', ') },
  );
}

/** Node's own refusals (431 headers too large, 400 malformed request…) as the specification's error body. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: {
      code: tooLarge ? 'request_header_fields_too_large' : 'invalid_request',
      message: tooLarge
        ? 'The request headers are too large (at most 16 KB in all).'
        : 'The request is not valid HTTP.',
      details: [],
      request_id: randomUUID(),
    },
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
