// The signer API: what the signer app calls with a recipient's signing link token. Application routes (JSON,
// the /api/v1 error body) outside the public v1 contract, so hidden from its OpenAPI document. The token
// is the credential: no bearer authentication. An OtpSms / OtpWhatsApp recipient also sends the signer
// session from a verified one-time code in X-Signing-Session.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { AppDependencies } from '../app.ts';
import { createAddressThrottle } from '../plugins/rate-limit.ts';
import type { ServiceContext } from '../services/context.ts';
import { OTP_POLICY, SIGNING_SESSION_HEADER } from '../services/signing/otp-policy.ts';
import { requestOneTimeCode } from '../services/signing/request-one-time-code.ts';
import {
  completeSigning,
  declineSigning,
  openSigningDocument,
  saveSignerFields,
  signingView,
} from '../services/signing/signer-actions.ts';
import { openSignerFile } from '../services/signing/signer-files.ts';
import { verifyOneTimeCode } from '../services/signing/verify-one-time-code.ts';

const USER_AGENT_MAX = 300;
/** Room in one save for a 4 MB file upload and a few 1–2 MB images, all in base64 (4/3 of their size). */
const FIELDS_BODY_LIMIT = 10 * 1024 * 1024;

const TokenParam = z.object({ token: z.string().min(1).max(200) });
const FileParams = TokenParam.extend({ fileId: z.string().uuid() });
/** Saved files shown in the page; anything else (a PDF, say) is only ever downloaded, never rendered here. */
const INLINE_TYPES = ['image/png', 'image/jpeg'];
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
const VerifyBody = z.object({
  code: z
    .string()
    .regex(new RegExp(`^\\d{${OTP_POLICY.digits}}$`), `the code is exactly ${OTP_POLICY.digits} digits`),
});

/** The X-Signing-Session header (the token from /otp/verify), when given once. */
export function signerSessionOf(request: FastifyRequest): string | undefined {
  const value = request.headers[SIGNING_SESSION_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A file name safe in a quoted Content-Disposition parameter: quotes, backslashes and non-ASCII become `_`. */
function asciiFilename(filename: string): string {
  return filename.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'file';
}

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
    signingView(ctx(), request.params.token, originOf(request), signerSessionOf(request)),
  );

  // The specification's path for the document, at the root.
  app.get('/:token/document', { schema: { hide: true, params: TokenParam } }, async (request, reply) => {
    const pdf = await openSigningDocument(
      ctx(),
      request.params.token,
      originOf(request),
      signerSessionOf(request),
    );
    return reply
      .type('application/pdf')
      .header('Cache-Control', 'no-store')
      .header('Content-Disposition', 'inline; filename="document.pdf"')
      .send(Buffer.from(pdf));
  });

  // A file the signer saved in one of their fields (signature, stamp, upload), to show it again after a reload.
  app.get(
    '/api/signing/:token/files/:fileId',
    { schema: { hide: true, params: FileParams } },
    async (request, reply) => {
      const file = await openSignerFile(
        ctx(),
        request.params.token,
        request.params.fileId,
        signerSessionOf(request),
      );
      return reply
        .type(file.contentType)
        .header('Cache-Control', 'private, no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .header(
          'Content-Disposition',
          INLINE_TYPES.includes(file.contentType)
            ? 'inline'
            : `attachment; filename="${asciiFilename(file.filename)}"`,
        )
        .send(Buffer.from(file.content));
    },
  );

  // One-time codes of OtpSms / OtpWhatsApp recipients: request (no body), then verify for a signer session.
  app.post('/api/signing/:token/otp', { schema: { hide: true, params: TokenParam } }, async (request) =>
    requestOneTimeCode(ctx(), request.params.token, originOf(request)),
  );

  app.post(
    '/api/signing/:token/otp/verify',
    { schema: { hide: true, params: TokenParam, body: VerifyBody } },
    async (request) => verifyOneTimeCode(ctx(), request.params.token, request.body.code, originOf(request)),
  );

  app.put(
    '/api/signing/:token/fields',
    { bodyLimit: FIELDS_BODY_LIMIT, schema: { hide: true, params: TokenParam, body: FieldsBody } },
    async (request) =>
      saveSignerFields(
        ctx(),
        request.params.token,
        request.body.values,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  app.post(
    '/api/signing/:token/complete',
    { schema: { hide: true, params: TokenParam, body: CompleteBody } },
    async (request) =>
      completeSigning(
        ctx(),
        request.params.token,
        request.body?.consent === true,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  app.post(
    '/api/signing/:token/decline',
    { schema: { hide: true, params: TokenParam, body: DeclineBody } },
    async (request) =>
      declineSigning(
        ctx(),
        request.params.token,
        request.body.reason,
        originOf(request),
        signerSessionOf(request),
      ),
  );
};
