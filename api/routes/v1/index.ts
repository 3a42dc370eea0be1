// Everything under /api/v1: bearer authentication (scope, API access, IP allowlist), rate limits and
// request statistics on every route, Idempotency-Key where the specification names it.
import type { FastifyPluginAsync } from 'fastify';
import type { AppDependencies } from '../../app.ts';
import { envelopesRoutes } from './envelopes.ts';
import { organizationRoutes } from './organization.ts';
import { usageRoutes } from './usage.ts';

export const v1Routes: FastifyPluginAsync<AppDependencies> = async (app, deps) => {
  await app.register(organizationRoutes, deps);
  await app.register(envelopesRoutes, deps);
  await app.register(usageRoutes, deps);
};
