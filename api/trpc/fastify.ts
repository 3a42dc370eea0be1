// The application routes' transport: every procedure of the app router becomes one Fastify route at exactly
// the REST method and path its `route(...)` declares, next to /api/v1 on the same server, so the request id,
// the per-request unit of work (request.services), the body limit, logging and the one error mapping are the
// server's own. The route's handler builds the procedure's input from the path parameters and the query
// string (GET, DELETE) or the JSON body (POST, PUT, PATCH), calls the procedure through tRPC (which validates
// the input and the output with their zod schemas) and answers its output as JSON with 200 (a route declaring
// `file` answers the file instead: a CSV export, a PDF; one declaring `image`, an image; one declaring `etag` adds
// an ETag and answers 304 to an If-None-Match naming it). Errors are rethrown in the server's terms
// (api/trpc/errors.ts) and answered by its error handler; a path no procedure declares is the server's
// ordinary 404.
//
// trpc-to-openapi's own Fastify adapter is not used: it adds its `message`, `code` and `issues` beside the
// error body and makes a service's AppError a 500; its one catch-all route takes every unknown /api path and
// every other method of a known one, and has no per-route body limit or Idempotency-Key config; it sends every
// output as JSON (no file, image or 304); and it turns on coercion in the procedures' shared input schemas.
// Its metadata and document generator are used (api/trpc/init.ts, api/trpc/openapi.ts). docs/app-api.md says
// what it answered, case by case.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { fastifyCookie } from '@fastify/cookie';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endedByWrongFactors } from '../../services/accounts/mfa-failures.ts';
import { findSession, SESSION_COOKIE, type SessionPrincipal } from '../../services/accounts/sessions.ts';
import {
  BACKOFFICE_SESSION_COOKIE,
  findBackofficeSession,
  type PlatformAdminPrincipal,
} from '../../services/backoffice/backoffice-sessions.ts';
import {
  backofficeAllowlist,
  backofficeAllowlistRefusal,
} from '../../services/backoffice/security-policy.ts';
import { AppError } from '../../services/errors.ts';
import type { AppConfig, AppDependencies } from '../dependencies.ts';
import { limitBody } from '../http/body-limit.ts';
import { invalidRequest } from '../http/errors.ts';
import { registerIdempotency } from '../plugins/idempotency.ts';
import { fromTRPCError, type InputSource, UNKNOWN_FIELD } from './errors.ts';
import {
  type AppContext,
  accessRefusal,
  type BinaryFileAnswer,
  type FileAnswer,
  type ImageAnswer,
  type ProcedureDefinition,
  proceduresOf,
  restRouteOf,
} from './init.ts';
import { APP_OPENAPI_PATH, appOpenApiDocument } from './openapi.ts';
import { appRouter } from './router.ts';

/** The application routes and their OpenAPI document. */
export async function registerAppRoutes(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  await app.register(fastifyCookie);
  // The backoffice IP allowlist (docs/backoffice.md): every /api/backoffice/* request, known route or not,
  // signed in or not, from an address outside a non-empty list is refused before anything else runs.
  app.addHook('onRequest', async (request) => {
    // The matched route's pattern (percent-encoding decoded by the router), else the path as sent.
    const pattern = request.routeOptions.url ?? '';
    if (!isBackofficePath(pattern) && !isBackofficePath(rawPathOf(request.url))) return;
    const refusal = backofficeAllowlistRefusal(await backofficeAllowlist(deps.orm.em.fork()), request.ip);
    if (refusal) throw refusal;
  });
  const options: TransportOptions = {
    secureCookies: deps.config.env === 'production' || deps.config.publicBaseUrl.startsWith('https:'),
    origins: appOriginsOf(deps.config),
  };
  mountProcedures(app, appRouter, options, (procedure) => !procedure.meta?.idempotent);
  // Routes declaring `idempotent` in a scope of their own with the Idempotency-Key hooks, keyed in the
  // organization of the session their preValidation found (see mountProcedures).
  await app.register(async (scope) => {
    registerIdempotency(scope, deps, {
      organizationOf: (request) => checkedSessions.get(request)?.organization.id,
    });
    mountProcedures(scope, appRouter, options, (procedure) => procedure.meta?.idempotent === true);
  });
  const document = appOpenApiDocument(appRouter, deps.config.publicBaseUrl);
  app.get(APP_OPENAPI_PATH, { schema: { hide: true } }, async () => document);
}

export interface TransportOptions {
  /** Set `Secure` on the session cookie (production, or an https:// public address). */
  secureCookies: boolean;
  /** Whose pages may send mutations (crossSiteRefusal). */
  origins: AppOrigins;
}

/** The origins whose pages may send mutations to the application routes and the signer's personal stamps. */
export interface AppOrigins {
  /** PUBLIC_BASE_URL's origin (its default, http://localhost:PORT, when unset). */
  allowed: ReadonlySet<string>;
  /**
   * Whether the request's own `scheme://Host` counts too: only while PUBLIC_BASE_URL is unset (development on
   * another host name or port). With it set, the Host header — which the client chooses — decides nothing.
   */
  requestHost: boolean;
}

export function appOriginsOf(config: Pick<AppConfig, 'publicBaseUrl' | 'publicBaseUrlSet'>): AppOrigins {
  return {
    allowed: new Set([new URL(config.publicBaseUrl).origin]),
    requestHost: config.publicBaseUrlSet !== true,
  };
}

/** The context of a procedure call: the request's unit of work and id, its session and cookie setters. */
export function appContext(
  request: FastifyRequest,
  reply: FastifyReply,
  session: SessionPrincipal | null,
  options: Pick<TransportOptions, 'secureCookies'>,
  platformAdmin: PlatformAdminPrincipal | null = null,
): AppContext {
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: options.secureCookies };
  // The backoffice's own cookie: sent only to this site's own pages and requests (Strict).
  const backoffice = { ...base, sameSite: 'strict' as const };
  return {
    services: request.services,
    requestId: request.id,
    log: request.log,
    session,
    platformAdmin,
    ipAddress: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    cookies: {
      setSession: (token, expiresAt) => {
        reply.setCookie(SESSION_COOKIE, token, {
          ...base,
          maxAge: Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
        });
      },
      clearSession: () => {
        reply.clearCookie(SESSION_COOKIE, base);
      },
      setBackofficeSession: (token, expiresAt) => {
        reply.setCookie(BACKOFFICE_SESSION_COOKIE, token, {
          ...backoffice,
          maxAge: Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
        });
      },
      clearBackofficeSession: () => {
        reply.clearCookie(BACKOFFICE_SESSION_COOKIE, backoffice);
      },
    },
  };
}

/**
 * Cross-site request protection for every mutation of the application routes (docs/accounts.md, "Sessions"):
 * besides SameSite=Lax on the cookie, a POST, PUT, PATCH or DELETE must come from a page of this server, as its
 * Origin header says (or, when a browser sends none, its Referer): PUBLIC_BASE_URL's origin, and only while
 * PUBLIC_BASE_URL is unset also the request's own `scheme://Host` (a Host header is the client's to choose, so
 * with a public address set it is never what is compared). A request with neither header is refused too:
 * browsers send Origin with every such request, so only a client that is not a browser leaves it out, and it
 * can send it.
 */
export function crossSiteRefusal(request: FastifyRequest, origins: AppOrigins): AppError | null {
  const origin = request.headers.origin ?? originOf(request.headers.referer);
  const own = origins.requestHost ? `${request.protocol}://${request.host}` : undefined;
  if (origin && (origin === own || origins.allowed.has(origin))) return null;
  return new AppError(
    403,
    'cross_site_request',
    origin
      ? `Requests from ${origin} may not change anything here.`
      : 'This request must carry an Origin header of this server (browsers send it).',
  );
}

function originOf(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/**
 * The signed-in principal of the request's session cookie, or null: the one reading of the cookie, shared by
 * the procedures and the signer API's personal stamps (api/routes/signing.ts).
 */
export async function sessionOf(request: FastifyRequest): Promise<SessionPrincipal | null> {
  // Parsed by @fastify/cookie; a server without the plugin (a test's bare transport) parses the header here.
  const cookies = request.cookies ?? fastifyCookie.parse(request.headers.cookie ?? '');
  const token = cookies[SESSION_COOKIE];
  return token ? findSession(request.services, token) : null;
}

/** The refusal of a cookie whose pending sign-in wrong second factors ended, or null. */
async function endedSignInOf(request: FastifyRequest): Promise<AppError | null> {
  const cookies = request.cookies ?? fastifyCookie.parse(request.headers.cookie ?? '');
  const token = cookies[SESSION_COOKIE];
  return token ? endedByWrongFactors(request.services, token) : null;
}

/** The backoffice's routes: their own session cookie, their own IP allowlist (docs/backoffice.md). */
export function isBackofficePath(url: string): boolean {
  return (
    url === '/api/backoffice' || url.startsWith('/api/backoffice/') || url.startsWith('/api/backoffice?')
  );
}

/** A path without its query, percent-decoded and lower-cased where it can be (for a path no route has). */
function rawPathOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  try {
    return decodeURIComponent(path)
      .replace(/\/{2,}/g, '/')
      .toLowerCase();
  } catch {
    return path.toLowerCase();
  }
}

/** The platform administrator of the request's backoffice session cookie, or null. */
export async function backofficeSessionOf(request: FastifyRequest): Promise<PlatformAdminPrincipal | null> {
  const cookies = request.cookies ?? fastifyCookie.parse(request.headers.cookie ?? '');
  const token = cookies[BACKOFFICE_SESSION_COOKIE];
  return token ? findBackofficeSession(request.services, token) : null;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The session of a request to an idempotent route, read and checked (origin, access) in its preValidation, so
 * that the Idempotency-Key hooks claim a key only for a request the route would serve, and in the session's
 * organization; the handler uses it rather than reading the cookie again.
 */
const checkedSessions = new WeakMap<FastifyRequest, SessionPrincipal>();

/**
 * Serves every procedure of `router` (built with api/trpc/init.ts) at its REST route; with `only`, those it
 * accepts. A procedure declaring `idempotent` gets route config `idempotent: true` (for the Idempotency-Key
 * hooks of api/plugins/idempotency.ts, which the caller registers on `app`).
 */
export function mountProcedures(
  app: FastifyInstance,
  router: AnyTRPCRouter,
  options: TransportOptions,
  only: (procedure: ProcedureDefinition) => boolean = () => true,
): void {
  for (const [name, procedure] of proceduresOf(router)) {
    if (!only(procedure)) continue;
    const { method, path } = restRouteOf(name, procedure);
    const idempotent = procedure.meta?.idempotent === true;
    const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
    const takesBody = BODY_METHODS.has(method);
    // The document marks the body required when the input has fields besides the path's: so is it here.
    const needsBody = takesBody && hasBodyFields(procedure, pathParameters);
    const sourceOf: InputSource = (key) =>
      key !== undefined && pathParameters.includes(key) ? 'params' : takesBody ? 'body' : 'querystring';

    app.route({
      method,
      // `{id}` in the specification's notation, `:id` in Fastify's.
      url: path.replace(/\{(\w+)\}/g, ':$1'),
      // Described by the application routes' document, not /api/v1's.
      schema: { hide: true },
      ...(procedure.meta?.bodyLimit
        ? {
            bodyLimit: procedure.meta.bodyLimit.bytes,
            preParsing: limitBody(procedure.meta.bodyLimit.bytes, procedure.meta.bodyLimit.purpose),
          }
        : {}),
      ...(idempotent
        ? {
            config: { idempotent: true },
            preValidation: async (request: FastifyRequest) => {
              const refusal = crossSiteRefusal(request, options.origins);
              if (refusal) throw refusal;
              const session = await sessionOf(request);
              const denied = accessRefusal(procedure.meta?.access ?? 'signed-in', session);
              if (denied) throw denied;
              if (session) checkedSessions.set(request, session);
            },
          }
        : {}),
      handler: async (request, reply) => {
        if (method !== 'GET' && !idempotent) {
          const refusal = crossSiteRefusal(request, options.origins);
          if (refusal) throw refusal;
        }
        if (needsBody && !isPlainObject(request.body)) {
          throw invalidRequest([
            {
              field: 'body',
              message:
                request.body === undefined || request.body === null
                  ? 'a JSON body is required'
                  : 'the body must be a JSON object',
            },
          ]);
        }
        // A procedure without input has no schema to refuse a field it does not define: the transport does.
        if (takesBody && procedure.inputs.length === 0) refuseBodyFields(request.body);
        // A backoffice route reads only the backoffice cookie, any other route only the organization user's.
        const backoffice = isBackofficePath(path);
        const session = backoffice ? null : (checkedSessions.get(request) ?? (await sessionOf(request)));
        // The second step of a sign-in that wrong codes ended answers as the fifth wrong code did (401
        // `invalid_code`, `attemptsLeft: 0`), not as a request without a session (docs/accounts.md).
        if (!session && procedure.meta?.access === 'mfa-pending') {
          const ended = await endedSignInOf(request);
          if (ended) throw ended;
        }
        const platformAdmin = backoffice ? await backofficeSessionOf(request) : null;
        const call = procedureAt(
          router.createCaller(appContext(request, reply, session, options, platformAdmin)),
          name,
        );
        let output: unknown;
        try {
          output = await call(inputOf(request, takesBody, pathParameters.length > 0));
        } catch (error) {
          throw fromTRPCError(error, sourceOf);
        }
        const file = procedure.meta?.file;
        if (file) return sendFile(reply, file.contentType, output as FileAnswer | BinaryFileAnswer);
        if (procedure.meta?.image) return sendImage(reply, output as ImageAnswer);
        const json = JSON.stringify(output ?? null);
        if (procedure.meta?.etag) return sendWithETag(request, reply, json);
        return reply.type('application/json; charset=utf-8').send(json);
      },
    });
  }
}

/**
 * A file answer (a route declaring `file`): its text as the body, downloaded under its name. The name goes
 * both as a plain ASCII `filename` (other characters, quotes and backslashes as `_`) and as RFC 5987's
 * `filename*` in UTF-8; the browser must not guess another type (nosniff) nor keep a copy (no-store).
 */
function sendFile(reply: FastifyReply, contentType: string, file: FileAnswer | BinaryFileAnswer) {
  const ascii = file.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return reply
    .type(contentType)
    .header(
      'content-disposition',
      `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
    )
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(
      typeof file.content === 'string' || file.content instanceof Readable
        ? file.content
        : Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
    );
}

/**
 * A JSON answer with an ETag (a route declaring `etag`): the tag is a digest of the body, so it changes exactly
 * when the answer does; a request whose If-None-Match names it gets 304 and no body. `private, no-cache`: only
 * the user's browser keeps it, and asks again each time.
 */
function sendWithETag(request: FastifyRequest, reply: FastifyReply, json: string) {
  const tag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
  reply.header('etag', tag).header('cache-control', 'private, no-cache').header('vary', 'Cookie');
  const wanted = request.headers['if-none-match'];
  const tags = (wanted ?? '').split(',').map((candidate) => candidate.trim().replace(/^W\//, ''));
  if (tags.includes(tag) || wanted?.trim() === '*') return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(json);
}

/**
 * An image answer (a route declaring `image`): its bytes with their content type, shown in the page
 * (`inline`), never sniffed as anything else, and cached only by the user's own browser as the answer says.
 */
function sendImage(reply: FastifyReply, image: ImageAnswer) {
  return reply
    .type(image.contentType)
    .header('content-disposition', 'inline')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', image.cacheControl)
    .header('vary', 'Cookie')
    .send(
      image.content instanceof Readable
        ? image.content
        : Buffer.from(image.content.buffer, image.content.byteOffset, image.content.byteLength),
    );
}

/**
 * The body of a route that takes none: absent, null or `{}`. Any field is refused as a schema refuses a field it
 * does not define (docs/app-api.md: request bodies are strict).
 */
function refuseBodyFields(body: unknown): void {
  if (body === undefined || body === null) return;
  if (!isPlainObject(body)) {
    throw invalidRequest([
      { field: 'body', message: 'the body must be a JSON object (this route takes none)' },
    ]);
  }
  const fields = Object.keys(body);
  if (fields.length > 0) {
    throw invalidRequest(fields.map((field) => ({ field: `body.${field}`, message: UNKNOWN_FIELD })));
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the procedure's input has fields that are not path parameters (they come in the body). */
function hasBodyFields(procedure: ProcedureDefinition, pathParameters: string[]): boolean {
  return procedure.inputs.some((input) => {
    const shape = (input as { shape?: Record<string, unknown> }).shape;
    // Not an object schema (a union, say): its fields cannot be listed, so a body is expected.
    if (!shape) return true;
    return Object.keys(shape).some((key) => !pathParameters.includes(key));
  });
}

/** The procedure input: the query string or the JSON body, with the path parameters on top. */
function inputOf(request: FastifyRequest, takesBody: boolean, hasPathParameters: boolean): unknown {
  const given = takesBody ? request.body : request.query;
  if (!hasPathParameters) return given;
  const fields = typeof given === 'object' && given !== null && !Array.isArray(given) ? given : {};
  return { ...fields, ...(request.params as Record<string, string>) };
}

/** The caller's function for a procedure named `plans.list`. */
function procedureAt(caller: unknown, name: string): (input: unknown) => Promise<unknown> {
  return name.split('.').reduce((node, key) => (node as Record<string, unknown>)[key], caller) as (
    input: unknown,
  ) => Promise<unknown>;
}
