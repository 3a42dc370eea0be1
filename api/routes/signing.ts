// The signer API: what the signer app calls with a recipient's signing link token. Application routes (JSON,
// the /api/v1 error body) outside the public v1 contract, so hidden from its OpenAPI document. The token
// is the credential: no bearer authentication.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { AppDependencies } from '../app.ts';
import { createAddressThrottle } from '../plugins/rate-limit.ts';
import type { ServiceContext } from '../services/context.ts';
import {
  completeSigning,
  declineSigning,
  saveSignerFields,
  signingDocument,
  signingView,
} from '../services/signing/signer-actions.ts';

const USER_AGENT_MAX = 300;
/** Room for a few 1 MB images in base64 (4/3 of their size) in one save. */
const FIELDS_BODY_LIMIT = 6 * 1024 * 1024;

const TokenParam = z.object({ token: z.string().min(1).max(200) });
const FieldsBody = z.object({
  values: z
    .array(z.object({ fieldDefinitionId: z.string().min(1).max(100), value: z.unknown() }))
    .min(1)
    .max(200),
});
const CompleteBody = z.object({ consent: z.boolean().optional() }).nullish();
const DeclineBody = z.object({
  reason: z.string().trim().min(1, 'a reason is required to decline').max(1000),
});

/** Where a signer's request came from: `request.ip` honours TRUSTED_PROXIES; the user agent is capped. */
export function originOf(request: FastifyRequest): SignerActionOrigin {
  const agent = request.headers['user-agent'];
  return {
    ip: request.ip,
    ...(typeof agent === 'string' && agent !== '' ? { userAgent: agent.slice(0, USER_AGENT_MAX) } : {}),
  };
}

export const signingRoutes: FastifyPluginAsync<AppDependencies> = async (base, deps) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  // Per source address, before a token is looked up: link tokens cannot be guessed, but the routes render
  // PDFs and write rows, so a flood from one address is cut off early.
  app.addHook(
    'onRequest',
    createAddressThrottle(deps, {
      name: 'signing',
      limit: deps.config.api.signingRatePerMinute,
      what: 'signing requests',
    }),
  );
  const ctx = (): ServiceContext => {
    if (!deps.temporal.client) throw new Error('the API needs a Temporal client for the signer API');
    return { orm: deps.orm, temporal: deps.temporal.client, config: deps.config };
  };

  app.get('/api/signing/:token', { schema: { hide: true, params: TokenParam } }, async (request) =>
    signingView(ctx(), request.params.token, originOf(request)),
  );

  // The specification's path for the document, at the root.
  app.get('/:token/document', { schema: { hide: true, params: TokenParam } }, async (request, reply) => {
    const pdf = await signingDocument(ctx(), request.params.token);
    return reply
      .type('application/pdf')
      .header('Cache-Control', 'no-store')
      .header('Content-Disposition', 'inline; filename="document.pdf"')
      .send(Buffer.from(pdf));
  });

  app.put(
    '/api/signing/:token/fields',
    { bodyLimit: FIELDS_BODY_LIMIT, schema: { hide: true, params: TokenParam, body: FieldsBody } },
    async (request) => saveSignerFields(ctx(), request.params.token, request.body.values, originOf(request)),
  );

  app.post(
    '/api/signing/:token/complete',
    { schema: { hide: true, params: TokenParam, body: CompleteBody } },
    async (request) =>
      completeSigning(ctx(), request.params.token, request.body?.consent === true, originOf(request)),
  );

  app.post(
    '/api/signing/:token/decline',
    { schema: { hide: true, params: TokenParam, body: DeclineBody } },
    async (request) => declineSigning(ctx(), request.params.token, request.body.reason, originOf(request)),
  );
};
