// Everything under /api/v1: bearer authentication (scope, API access, IP allowlist), rate limits and
// request statistics on every route, the sandbox gate, Idempotency-Key where the specification names it.
import type { FastifyPluginAsync, RouteOptions } from 'fastify';
import { z } from 'zod';
import { createBearerAuth } from '../../auth/bearer-auth.ts';
import { createRequestStats } from '../../auth/request-stats.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { registerIdempotency } from '../../plugins/idempotency.ts';
import { createRateLimiter } from '../../plugins/rate-limit.ts';
import { createSandboxGate } from '../../plugins/sandbox.ts';
import { envelopesRoutes } from './envelopes.ts';
import { filesRoutes } from './files.ts';
import { organizationRoutes } from './organization.ts';
import { sandboxRoutes } from './sandbox.ts';
import { templatesRoutes } from './templates.ts';
import { usageRoutes } from './usage.ts';
import { webhooksRoutes } from './webhooks.ts';

export const v1Routes: FastifyPluginAsync<AppDependencies> = async (app, deps) => {
  // Order matters: who is calling (401), may they (403), then how often (429), then the route.
  app.addHook('onRequest', createBearerAuth(deps));
  app.addHook('onRequest', createRateLimiter(deps));
  // Sandbox requests pass every check above first; then a server without sandbox refuses them (403).
  app.addHook('onRequest', createSandboxGate(deps));
  // Counted in memory after each answer, written in batches (api/auth/request-stats.ts); the rest at close.
  const stats = createRequestStats(deps);
  app.addHook('onResponse', stats.record);
  app.addHook('onClose', () => stats.flush());
  // After authentication and rate limiting, before the handler: replays and in-progress conflicts.
  registerIdempotency(app, deps);
  // Routes that honour Idempotency-Key declare it, so the OpenAPI document (and generated clients) show it.
  app.addHook('onRoute', declareIdempotencyKey);
  await app.register(organizationRoutes, deps);
  await app.register(envelopesRoutes, deps);
  await app.register(sandboxRoutes, deps);
  await app.register(usageRoutes, deps);
  await app.register(templatesRoutes, deps);
  await app.register(webhooksRoutes, deps);
  // Encapsulated on purpose: it registers @fastify/multipart for the upload route only.
  await app.register(filesRoutes, deps);
};

const IdempotencyKeyHeader = {
  'idempotency-key': z
    .string()
    .regex(/^[\x20-\x7E]{1,255}$/, 'must be 1 to 255 printable ASCII characters')
    .optional()
    .meta({
      description:
        'Makes a retry safe: the same key with the same request within 24 hours answers the stored response ' +
        'again (header `Idempotent-Replayed: true`) instead of repeating the operation; the same key with ' +
        'another request is 409. 1 to 255 printable ASCII characters, unique per operation (a UUID).',
      example: '6d1f0b8e-2c4a-4f7e-9b1d-3e5a7c9f0a12',
    }),
};

/** Adds the optional Idempotency-Key header to the schema of a route marked `idempotent`. */
function declareIdempotencyKey(route: RouteOptions): void {
  if (!route.config?.idempotent) return;
  route.schema ??= {};
  const schema = route.schema;
  const headers = schema.headers;
  schema.headers =
    headers instanceof z.ZodObject ? headers.extend(IdempotencyKeyHeader) : z.object(IdempotencyKeyHeader);
}
