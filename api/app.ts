// The API process's HTTP application: the bare server (api/http/server.ts), one unit of work per request
// (api/http/request-context.ts) and every route. Tests build it too and drive it with `app.inject`.
import type { FastifyInstance } from 'fastify';
import type { AppDependencies } from './dependencies.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRequestContext } from './http/request-context.ts';
import { createServer } from './http/server.ts';
import { registerWebApp } from './http/web-app.ts';
import { devRoutes } from './routes/dev.ts';
import { healthRoutes } from './routes/health.ts';
import { oauthTokenRoutes } from './routes/oauth-token.ts';
import { signingRoutes } from './routes/signing.ts';
import { twilioStatusRoutes } from './routes/twilio-status.ts';
import { v1Routes } from './routes/v1/index.ts';
import { verifyRoutes } from './routes/verify.ts';
import { registerAppRoutes } from './trpc/fastify.ts';

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps;
  const app = createServer({
    logger: deps.logger,
    trustedProxies: config.api.trustedProxies,
    strictTransportSecurity: config.env === 'production' && config.publicBaseUrl.startsWith('https:'),
  });
  if (config.env === 'production' && config.api.trustedProxies.length === 0) {
    // docs/deployment.md, "Behind a reverse proxy": said once, when the API starts.
    deps.logger.warn(
      'TRUSTED_PROXIES is not set: every client address is the TCP peer. Behind a reverse proxy that is the ' +
        "proxy's own address for every user, so the per-address sign-in throttle (50 failures in 15 minutes) " +
        'would refuse all of them at once and IP allowlists would see one address: set TRUSTED_PROXIES to the ' +
        "proxy's addresses (docs/deployment.md). Ignore this only if clients reach the API directly.",
    );
  }
  registerRequestContext(app, deps);
  await registerOpenApi(app, deps.config.publicBaseUrl);
  await app.register(healthRoutes, deps);
  await app.register(oauthTokenRoutes, deps);
  await app.register(async (scope) => scope.register(v1Routes, deps), { prefix: '/api/v1' });
  await app.register(signingRoutes, deps);
  await app.register(verifyRoutes, deps);
  await app.register(twilioStatusRoutes, deps);
  await registerAppRoutes(app, deps);
  // Development and test only: in production these routes do not exist.
  if (deps.config.env !== 'production') await app.register(devRoutes, deps);
  // The built web app (web/build) for every other page path; API paths stay JSON 404s.
  await registerWebApp(app, { env: deps.config.env });
  await app.ready();
  return app;
}
