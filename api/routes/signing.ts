// The signer API: what the signer app calls with a recipient's signing link token. Application routes (JSON,
// the /api/v1 error body) outside the public v1 contract, so hidden from its OpenAPI document. The token
// is the credential: no bearer authentication. An OtpSms / OtpWhatsApp recipient also sends the signer
// session from a verified one-time code in X-Signing-Session.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CodeSent,
  CodeVerified,
  CompleteSigningRequest,
  DeclineSigningRequest,
  DelegateSigningRequest,
  DelegationOutcome,
  SaveFieldsRequest,
  SigningDocumentParams,
  SigningFileParams,
  SigningOutcome,
  SigningTokenParams,
  SigningView,
  VerifyCodeRequest,
} from '../../domain/signing.ts';
import { PersonalStampOffers, UsePersonalStampRequest } from '../../domain/stamp.ts';
import { SIGNING_SESSION_HEADER } from '../../domain/vocabulary.ts';
import { completeSigning } from '../../services/signing/complete-signing.ts';
import { declineSigning } from '../../services/signing/decline-signing.ts';
import { delegateSigning } from '../../services/signing/delegate-signing.ts';
import { downloadSigningDocument } from '../../services/signing/download-signing-document.ts';
import { openSigningDocument } from '../../services/signing/open-signing-document.ts';
import { requestOneTimeCode } from '../../services/signing/request-one-time-code.ts';
import { saveSignerFields } from '../../services/signing/save-signer-fields.ts';
import { openSignerFile } from '../../services/signing/signer-files.ts';
import { verifyOneTimeCode } from '../../services/signing/verify-one-time-code.ts';
import { viewSigningLink } from '../../services/signing/view-signing-link.ts';
import { personalStampOffers } from '../../services/stamps/personal-stamp-offers.ts';
import { usePersonalStamp } from '../../services/stamps/use-personal-stamp.ts';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { AppDependencies } from '../dependencies.ts';
import { limitBody } from '../http/body-limit.ts';
import { createAddressThrottle } from '../plugins/rate-limit.ts';
import { appOriginsOf, crossSiteRefusal, sessionOf } from '../trpc/fastify.ts';
import { accessRefusal } from '../trpc/init.ts';

const USER_AGENT_MAX = 300;
/** Room in one save for a 4 MB file upload and a few 1–2 MB images, all in base64 (4/3 of their size). */
const FIELDS_BODY_LIMIT = 10 * 1024 * 1024;

/** Saved files shown in the page; anything else (a PDF, say) is only ever downloaded, never rendered here. */
const INLINE_TYPES = ['image/png', 'image/jpeg'];

/** The X-Signing-Session header (the token from /otp/verify), when given once. */
export function signerSessionOf(request: FastifyRequest): string | undefined {
  const value = request.headers[SIGNING_SESSION_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A file name safe in a quoted Content-Disposition parameter: quotes, backslashes and non-ASCII become `_`. */
function asciiFilename(filename: string): string {
  return filename.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'file';
}

/** `attachment` naming the file in ASCII and, for every other character (a Hebrew title), RFC 5987's UTF-8 form. */
function attachmentDisposition(filename: string): string {
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${asciiFilename(filename)}"; filename*=UTF-8''${encoded}`;
}

/**
 * The business app's signed-in user of the request (its session cookie: the signer page is on the same
 * origin), only when the session is complete, as a `signed-in` application route requires; otherwise null.
 */
async function signedInUserOf(request: FastifyRequest) {
  const principal = await sessionOf(request);
  return principal && accessRefusal('signed-in', principal) === null ? principal : null;
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
  app.get(
    '/api/signing/:token',
    { schema: { hide: true, params: SigningTokenParams, response: { 200: SigningView } } },
    async (request) =>
      viewSigningLink(request.services, request.params.token, originOf(request), signerSessionOf(request)),
  );

  // The specification's path for the document, at the root.
  app.get(
    '/:token/document',
    { schema: { hide: true, params: SigningTokenParams } },
    async (request, reply) => {
      const pdf = await openSigningDocument(
        request.services,
        request.params.token,
        originOf(request),
        signerSessionOf(request),
      );
      return reply
        .type('application/pdf')
        .header('Cache-Control', 'no-store')
        .header('Content-Disposition', 'inline; filename="document.pdf"')
        .send(Buffer.from(pdf));
    },
  );

  // A file the signer saved in one of their fields (signature, stamp, upload), to show it again after a reload.
  app.get(
    '/api/signing/:token/files/:fileId',
    { schema: { hide: true, params: SigningFileParams } },
    async (request, reply) => {
      const file = await openSignerFile(
        request.services,
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

  // The recipient's copies (docs/api.md, "Signer API"): the final PDF and the audit trail once the envelope is
  // Completed, for every recipient's link; the original document while the recipient may act. Each recorded.
  app.get(
    '/api/signing/:token/documents/:document',
    { schema: { hide: true, params: SigningDocumentParams } },
    async (request, reply) => {
      const file = await downloadSigningDocument(
        request.services,
        request.params.token,
        request.params.document,
        originOf(request),
        signerSessionOf(request),
      );
      return reply
        .type('application/pdf')
        .header('Cache-Control', 'no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Disposition', attachmentDisposition(file.filename))
        .header('Content-Length', file.sizeBytes)
        .send(file.content);
    },
  );

  // One-time codes of OtpSms / OtpWhatsApp recipients: request (no body), then verify for a signer session.
  app.post(
    '/api/signing/:token/otp',
    { schema: { hide: true, params: SigningTokenParams, response: { 200: CodeSent } } },
    async (request) => requestOneTimeCode(request.services, request.params.token, originOf(request)),
  );

  app.post(
    '/api/signing/:token/otp/verify',
    {
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: VerifyCodeRequest,
        response: { 200: CodeVerified },
      },
    },
    async (request) =>
      verifyOneTimeCode(request.services, request.params.token, request.body.code, originOf(request)),
  );

  app.put(
    '/api/signing/:token/fields',
    {
      bodyLimit: FIELDS_BODY_LIMIT,
      preParsing: limitBody(FIELDS_BODY_LIMIT, 'the most one save of field values may send'),
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: SaveFieldsRequest,
        response: { 200: SigningView },
      },
    },
    async (request) =>
      saveSignerFields(
        request.services,
        request.params.token,
        request.body.values,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  // Personal stamps (docs/stamps.md): offered and used only with the business app's session of a user whose
  // address is the recipient's; for anyone else the list is empty and a stamp "not found".
  app.get(
    '/api/signing/:token/personal-stamps',
    { schema: { hide: true, params: SigningTokenParams, response: { 200: PersonalStampOffers } } },
    async (request, reply) => {
      reply.header('Cache-Control', 'private, no-store');
      return personalStampOffers(
        request.services,
        request.params.token,
        await signedInUserOf(request),
        signerSessionOf(request),
      );
    },
  );

  const appOrigins = appOriginsOf(deps.config);
  app.post(
    '/api/signing/:token/personal-stamps',
    {
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: UsePersonalStampRequest,
        response: { 200: SigningView },
      },
      // The session cookie is what lets this act on a user's stamps: a page of another site may not use it
      // (the application routes' Origin check), refused before the body is looked at.
      preValidation: async (request) => {
        const refusal = crossSiteRefusal(request, appOrigins);
        if (refusal) throw refusal;
      },
    },
    async (request) =>
      usePersonalStamp(
        request.services,
        request.params.token,
        await signedInUserOf(request),
        request.body,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  app.post(
    '/api/signing/:token/complete',
    {
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: CompleteSigningRequest,
        response: { 200: SigningOutcome },
      },
    },
    async (request) =>
      completeSigning(
        request.services,
        request.params.token,
        request.body?.consent === true,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  app.post(
    '/api/signing/:token/decline',
    {
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: DeclineSigningRequest,
        response: { 200: SigningOutcome },
      },
    },
    async (request) =>
      declineSigning(
        request.services,
        request.params.token,
        request.body.reason,
        originOf(request),
        signerSessionOf(request),
      ),
  );

  // Hand this part to someone else, when the sender allows it: this link ends, the delegate is invited.
  app.post(
    '/api/signing/:token/delegate',
    {
      schema: {
        hide: true,
        params: SigningTokenParams,
        body: DelegateSigningRequest,
        response: { 200: DelegationOutcome },
      },
    },
    async (request) =>
      delegateSigning(
        request.services,
        request.params.token,
        request.body,
        originOf(request),
        signerSessionOf(request),
      ),
  );
};
