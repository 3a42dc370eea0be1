// Everything under /api/v1: bearer authentication (scope, API access, IP allowlist), rate limits and
// request statistics on every route, the sandbox gate, Idempotency-Key where the specification names it.
import type { FastifyPluginAsync } from 'fastify';
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
  app.addHook('onResponse', createRequestStats(deps));
  // After authentication and rate limiting, before the handler: replays and in-progress conflicts.
  registerIdempotency(app, deps);
  await app.register(organizationRoutes, deps);
  await app.register(envelopesRoutes, deps);
  await app.register(sandboxRoutes, deps);
  await app.register(usageRoutes, deps);
  await app.register(templatesRoutes, deps);
  await app.register(webhooksRoutes, deps);
  // Encapsulated on purpose: it registers @fastify/multipart for the upload route only.
  await app.register(filesRoutes, deps);
};
