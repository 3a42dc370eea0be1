// Sandbox mode of the public API (specification, *Sandbox behaviour*).
//
// A request asks for sandbox with the header `X-Service-Sandbox: true` (the value compared case-insensitively;
// any other value, or none, means production). Routes that honour the header (`config: { sandbox: true }`:
// envelope create, reads, send, remind, cancel, extend and the downloads) then answer with synthetic envelopes
// from `sandbox_envelope`; the simulation routes under /api/v1/sandbox (`config: { sandboxOnly: true }`) are
// sandbox whether or not the header is sent.
//
// The gate is an onRequest hook registered in the /api/v1 scope after the bearer-token check and the rate
// limiter, so a sandbox request passes every check a production request does — token (401), API flag and
// plan, IP allowlist, scope (403), rate limit (429) — and only then, when the server has sandbox disabled
// (`SANDBOX_ENABLED`), is refused with 403 `forbidden`. That holds on every /api/v1 route: a client that asks
// for sandbox never silently gets a production answer from a server without it. Where sandbox is enabled,
// routes without a sandbox mode (organization, usage, templates, upload) ignore the header.
// Answers of sandbox-mode routes carry `X-Service-Sandbox: true`, replays of idempotent requests included.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../config/config.ts';
import { Forbidden } from '../../services/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honours `X-Service-Sandbox: true` with synthetic envelopes. */
    sandbox?: boolean;
    /** A sandbox simulation route: always sandbox, header or not. */
    sandboxOnly?: boolean;
  }
}

export const SANDBOX_HEADER = 'X-Service-Sandbox';

/** The optional header parameter, for the schemas (and so the OpenAPI document) of the routes that honour it. */
export const SandboxHeaders = z.object({
  'x-service-sandbox': z
    .string()
    .optional()
    .meta({
      description:
        'Sandbox mode: `true` (case-insensitive) answers with synthetic envelopes; any other value or ' +
        'none is production. 403 when sandbox is not enabled on the server.',
      example: 'true',
    }),
});

/** Whether the request carries `X-Service-Sandbox: true`. */
export function sandboxRequested(request: Pick<FastifyRequest, 'headers'>): boolean {
  const value = request.headers['x-service-sandbox'];
  const text = Array.isArray(value) ? value.join(',') : value;
  return typeof text === 'string' && text.trim().toLowerCase() === 'true';
}

/** Whether the request is served in sandbox mode: a simulation route, or the header on any route. */
export function sandboxModeOf(request: Pick<FastifyRequest, 'headers' | 'routeOptions'>): boolean {
  return request.routeOptions.config?.sandboxOnly === true || sandboxRequested(request);
}

/** Whether a route that honours the header serves this request from the sandbox. */
export function inSandbox(request: Pick<FastifyRequest, 'headers' | 'routeOptions'>): boolean {
  const config = request.routeOptions.config;
  return config?.sandboxOnly === true || (config?.sandbox === true && sandboxRequested(request));
}

export interface SandboxGateDependencies {
  config: { api: Pick<Config['api'], 'sandboxEnabled'> };
}

/** The onRequest hook refusing sandbox requests on a server without sandbox (after auth and rate limits). */
export function createSandboxGate(deps: SandboxGateDependencies) {
  return async function sandboxGate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!sandboxModeOf(request)) return;
    if (!deps.config.api.sandboxEnabled) {
      throw new Forbidden(
        `Sandbox mode is not enabled on this server: send the request without ${SANDBOX_HEADER} to use ` +
          'production, or use a server where sandbox is enabled.',
        [{ field: 'headers.x-service-sandbox', message: 'sandbox is not enabled on this server' }],
      );
    }
    if (inSandbox(request)) reply.header(SANDBOX_HEADER, 'true');
  };
}
