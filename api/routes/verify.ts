// POST /api/verify (docs/sealing.md, "Verification"): public document verification — no account, no session,
// limited per source address (VERIFY_RATE_LIMIT_PER_MINUTE, default 30). The body is the PDF itself
// (`application/pdf`, or `application/octet-stream`), at most UPLOAD_MAX_BYTES; the answer is
// VerificationResult. Not in the OpenAPI documents (like the signer API): it is the /verify page's route.
import type { FastifyPluginAsync } from 'fastify';
import { verifyDocument } from '../../services/sealing/verify-document.ts';
import type { AppDependencies } from '../dependencies.ts';
import { createAddressThrottle } from '../plugins/rate-limit.ts';

export const verifyRoutes: FastifyPluginAsync<AppDependencies> = async (app, deps) => {
  app.addHook(
    'onRequest',
    createAddressThrottle(deps, {
      name: 'verify',
      limit: deps.config.sealing?.verifyRatePerMinute ?? 30,
      what: 'verification requests',
    }),
  );
  // Only this plugin's routes read binary bodies.
  app.addContentTypeParser(
    ['application/pdf', 'application/octet-stream'],
    { parseAs: 'buffer', bodyLimit: deps.config.api.uploadMaxBytes },
    (_request, body, done) => done(null, body),
  );
  app.post(
    '/api/verify',
    { schema: { hide: true }, bodyLimit: deps.config.api.uploadMaxBytes },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return verifyDocument(request.services, new Uint8Array(body));
    },
  );
};
