// The application routes' tRPC (docs/app-api.md): the specification's `/api/...` paths outside /api/v1 are
// tRPC procedures, each declaring its REST method and path with `route(...)`. The transport
// (api/trpc/fastify.ts) serves every procedure at exactly that path on the app's Fastify server, with the
// server's one error mapping; api/trpc/openapi.ts describes them in their own OpenAPI document; the web app
// calls them with @trpc/client (web/src/lib/shared/app-client.ts).
import { Readable } from 'node:stream';
import { type AnyTRPCRouter, initTRPC } from '@trpc/server';
import type { FastifyBaseLogger } from 'fastify';
import type { OpenApiMeta, OpenApiMethod } from 'trpc-to-openapi';
import { z } from 'zod';
import { backofficeRolesOf } from '../../domain/backoffice-roles.ts';
import { isPermission, type Permission } from '../../domain/permissions.ts';
import type { SessionPrincipal } from '../../services/accounts/sessions.ts';
import type { PlatformAdminPrincipal } from '../../services/backoffice/backoffice-sessions.ts';
import type { RequestServiceContext } from '../../services/context.ts';
import { AppError, Forbidden, Unauthorized } from '../../services/errors.ts';

/** What every procedure receives; the transport makes one per HTTP request. */
export interface AppContext {
  /** The request's unit of work (its own entity manager), Temporal and the configuration: pass it to services. */
  services: RequestServiceContext;
  /** The request's X-Request-Id, as error bodies and the log carry it. */
  requestId: string;
  /** The request's logger (every line carries the request id). */
  log: FastifyBaseLogger;
  /** Who is signed in (the session cookie's principal), or null. Checked by the route's `access`. */
  session: SessionPrincipal | null;
  /**
   * The platform administrator of the backoffice session cookie, or null; read only for /api/backoffice/*
   * routes (and there the organization user's session is not read): docs/backoffice.md.
   */
  platformAdmin: PlatformAdminPrincipal | null;
  /** The client's address (trusted proxies applied) and User-Agent, for sessions and the security log. */
  ipAddress: string;
  userAgent: string | null;
  /** Sets or clears the session cookie of the answer. */
  cookies: {
    setSession(token: string, expiresAt: Date): void;
    clearSession(): void;
    /** The backoffice session cookie (`sigil_backoffice_session`). */
    setBackofficeSession(token: string, expiresAt: Date): void;
    clearBackofficeSession(): void;
  };
}

/**
 * Who may call a route, declared by every route and checked in one place (the middleware below):
 * - `public`: anyone, signed in or not;
 * - `mfa-pending`: a session waiting for its second sign-in step (POST /api/auth/login/mfa);
 * - `enrolling`: a signed-in user, also one the organization makes enrol MFA first (me, sign-out, enrolment);
 * - `signed-in`: a signed-in user with a complete session, whatever the role;
 * - a permission (`users:manage`, …): a signed-in user whose role grants it (docs/accounts.md);
 * - `platform-admin`: a platform administrator signed in to the backoffice (its own session cookie; an
 *   organization user's session never passes), docs/backoffice.md.
 */
export type Access = 'public' | 'mfa-pending' | 'enrolling' | 'signed-in' | 'platform-admin' | Permission;

/** The principal of a procedure that declared an access other than `public` (present, checked). */
export function principalOf(ctx: AppContext): SessionPrincipal {
  if (!ctx.session) throw new Unauthorized('Sign in first.');
  return ctx.session;
}

/**
 * Statuses an application route may document besides 500, with what they mean; 400 (input refused) is
 * documented for every route with input, in words of its own when a route gives them.
 */
export type DocumentedErrors = Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 429 | 503, string>>;

/** What a route declares besides its OpenAPI words: who may call it, its errors, and how it answers. */
export interface RouteMeta {
  /** Error statuses the route answers besides 400 and 500, and why. */
  errors?: DocumentedErrors;
  /** Who may call it (see `Access`); 401 and 403 are documented from it. */
  access: Access;
  /** The route answers a file, not JSON (its procedure's output is a `FileAnswer`). */
  file?: FileResponse;
  /** The route answers an image, not JSON (its procedure's output is an `ImageAnswer`). */
  image?: ImageResponse;
  /** A larger body than the server's 1 MB is accepted (a 413 above this). */
  bodyLimit?: BodyLimit;
  /**
   * The JSON answer carries an ETag (a digest of its body) and a request whose If-None-Match names it gets 304
   * without a body: pages that poll a resource learn cheaply that nothing changed.
   */
  etag?: boolean;
  /**
   * The route honours an Idempotency-Key header as /api/v1's creates do (api/plugins/idempotency.ts), keyed
   * in the signed-in user's organization: a repeated request (a double click) gets the first answer again.
   */
  idempotent?: boolean;
}

/**
 * A procedure's metadata: trpc-to-openapi's `openapi` (method, path, summary, tags), made by `route()`, and
 * its `RouteMeta` (the error statuses the OpenAPI document lists for it among them).
 */
export type AppMeta = OpenApiMeta<RouteMeta>;

/**
 * A route that answers a file (a CSV export) rather than JSON: the transport sends the procedure's
 * `FileAnswer` as the body, with this content type and `Content-Disposition: attachment` naming the file, and
 * the document describes its 200 with the content type.
 */
export interface FileResponse {
  /** The answer's Content-Type (`text/csv; charset=utf-8`, `application/pdf`). */
  contentType: string;
  /** What the file holds, for the document. */
  description: string;
  /** Bytes rather than text (a PDF): the procedure's output is a `BinaryFileAnswer`. */
  binary?: boolean;
}

/** The output of a procedure whose route declares `file`: the file's name and its text. */
export const FileAnswer = z.object({ filename: z.string().min(1), content: z.string() });
export type FileAnswer = z.output<typeof FileAnswer>;

/**
 * The output of a procedure whose route declares a `binary` file: the file's name and its bytes, in memory or as a
 * stream (a stored file's, from object storage, checked by SHA-256 as it flows).
 */
export const BinaryFileAnswer = z
  .object({
    filename: z.string().min(1),
    content: z
      .custom<Uint8Array | Readable>(
        (value) => value instanceof Uint8Array || value instanceof Readable,
        'the file’s bytes',
      )
      .meta({ override: { type: 'string', format: 'binary' } } as never),
  })
  // Documented by api/trpc/openapi.ts as the file itself, not as this object.
  .meta({ override: { type: 'string', format: 'binary' } } as never);
export type BinaryFileAnswer = z.output<typeof BinaryFileAnswer>;

/**
 * A route that answers an image shown in a page (a personal stamp) rather than JSON: the transport sends the
 * procedure's `ImageAnswer` as the body with the answer's own content type (one of `contentTypes`, known
 * only once the image is found), `Content-Disposition: inline`, `X-Content-Type-Options: nosniff` and the
 * answer's Cache-Control; the document describes its 200 as binary in each of the content types.
 */
export interface ImageResponse {
  contentTypes: readonly string[];
  /** What the image is, for the document. */
  description: string;
}

/** The output of a procedure whose route declares `image`. */
export const ImageAnswer = z
  .object({
    contentType: z.string(),
    // In memory, or streamed from object storage (a template's PDF), checked by SHA-256 as it flows.
    content: z
      .custom<Uint8Array | Readable>(
        (value) => value instanceof Uint8Array || value instanceof Readable,
        'the image’s bytes',
      )
      .meta({ override: { type: 'string', format: 'binary' } } as never),
    /** `private, …`: the image belongs to the signed-in user. */
    cacheControl: z.string(),
  })
  // Documented by api/trpc/openapi.ts as the image itself, not as this object.
  .meta({ override: { type: 'string', format: 'binary' } } as never);
export type ImageAnswer = z.output<typeof ImageAnswer>;

/** A route whose body may be larger than the server's 1 MB (an image in base64), and why. */
export interface BodyLimit {
  bytes: number;
  /** Ends the 413's message: "The request body is larger than 2 MB, <purpose>." */
  purpose: string;
}

const t = initTRPC.context<AppContext>().meta<AppMeta>().create();

export const router = t.router;

/** A mutation's resolver that does `run`'s work and answers `{ ok: true }` (the routes whose answer is `Ok`). */
export function thenOk<Options>(run: (options: Options) => Promise<unknown>) {
  return async (options: Options): Promise<{ ok: true }> => {
    await run(options);
    return { ok: true };
  };
}

/** The one access check: the route's declared `access` against the request's session. */
export function accessRefusal(access: Access, session: SessionPrincipal | null): AppError | null {
  if (access === 'public') return null;
  // The backoffice's routes take the platform administrator's session, never an organization user's.
  if (access === 'platform-admin') return new Unauthorized('Sign in to the backoffice first.');
  if (!session) return new Unauthorized('Sign in first.');
  const state = session.session.state;
  if (access === 'mfa-pending') {
    return state === 'mfa_pending'
      ? null
      : new AppError(409, 'no_pending_sign_in', 'There is no sign-in waiting for a second step.');
  }
  if (state === 'mfa_pending') return new Unauthorized('Finish signing in: enter the code from your app.');
  if (access === 'enrolling') return null;
  if (state === 'mfa_enrolment_required') {
    return new AppError(
      403,
      'mfa_enrolment_required',
      'Your organization requires two-step verification: set it up first.',
    );
  }
  if (access === 'signed-in') return null;
  if (!isPermission(access) || !session.permissions.includes(access)) {
    return new Forbidden(`Your role does not have the permission ${access}.`, [
      { permission: access, message: `requires ${access}` },
    ]);
  }
  return null;
}

/** The backoffice's check: a backoffice session, whose role the route table allows (domain/backoffice-roles.ts). */
function backofficeRefusal(
  principal: PlatformAdminPrincipal | null,
  openapi: { method: string; path: string } | undefined,
): AppError | null {
  if (!principal) return new Unauthorized('Sign in to the backoffice first.');
  const roles = openapi ? backofficeRolesOf(openapi.method, openapi.path) : ['administrator'];
  if (roles.includes(principal.admin.role)) return null;
  return new Forbidden(
    `The backoffice role ${principal.admin.role} may not do this: ask a platform administrator.`,
    [{ role: principal.admin.role, message: `requires ${roles.join(' or ')}` }],
  );
}

/**
 * Every route's procedure: the access its `route(...)` declares is checked before the input is read. A route
 * without a declared access is refused when the transport starts (api/trpc/fastify.ts).
 */
export const procedure = t.procedure.use(({ ctx, meta, next }) => {
  const access = meta?.access ?? 'signed-in';
  const refusal =
    access === 'platform-admin'
      ? backofficeRefusal(ctx.platformAdmin, meta?.openapi)
      : accessRefusal(access, ctx.session);
  if (refusal) throw refusal;
  return next();
});

/** Reference data anyone may read (the plans): the same procedure, for routes declaring `access: 'public'`. */
export const publicProcedure = procedure;

/** A route's declaration: its OpenAPI words and its `RouteMeta`. */
export interface RouteDocs extends RouteMeta {
  summary: string;
  description?: string;
  /** Groups in the OpenAPI document (`plans`, `auth`, `organization`, …). */
  tags: string[];
}

/**
 * The REST route of a procedure: `.meta(route('GET', '/api/plans', { summary, tags }))`. Path parameters are
 * written `{id}` and must be keys of the procedure's input. Queries are GET; mutations POST, PUT, PATCH or
 * DELETE (the transport checks both when it starts).
 */
export function route(method: OpenApiMethod, path: `/api/${string}`, docs: RouteDocs): AppMeta {
  const { errors, access, file, image, bodyLimit, etag, idempotent, ...openapi } = docs;
  const accessErrors: DocumentedErrors =
    access === 'public'
      ? {}
      : access === 'mfa-pending' || access === 'enrolling'
        ? { 401: 'Not signed in, or the session ended' }
        : access === 'signed-in'
          ? {
              401: 'Not signed in, or the session ended',
              // A session of an organization that requires MFA, by a user without a second factor, is held at
              // enrolment (`mfa_enrolment_required`), also one opened before the requirement (docs/accounts.md).
              403: 'MFA enrolment comes first (`mfa_enrolment_required`)',
            }
          : access === 'platform-admin'
            ? { 401: 'Not signed in to the backoffice, or the backoffice session ended' }
            : {
                401: 'Not signed in, or the session ended',
                403: `The role lacks ${access}, or MFA enrolment comes first`,
              };
  return {
    access,
    ...(file ? { file } : {}),
    ...(image ? { image } : {}),
    ...(bodyLimit ? { bodyLimit } : {}),
    ...(etag ? { etag } : {}),
    ...(idempotent ? { idempotent } : {}),
    openapi: {
      method,
      path,
      ...openapi,
      // The session cookie (sigil_session): documented as a security scheme of the application document.
      protect: access !== 'public',
      // Error responses are ours (the specification's body, api/trpc/openapi.ts), not trpc-to-openapi's.
      errorResponses: {},
    },
    errors: {
      ...accessErrors,
      ...(bodyLimit
        ? { 413: `The body is larger than ${bodyLimit.bytes} bytes (\`payload_too_large\`)` }
        : {}),
      ...(idempotent
        ? {
            409:
              '`idempotency_key_reused` (the Idempotency-Key named another request) or ' +
              '`idempotency_request_in_progress` (its first request is still running)',
          }
        : {}),
      ...(errors ?? {}),
    },
  };
}

/**
 * `route` for one area's procedures, its OpenAPI group declared once: `const route = areaRoute('webhooks')`
 * at the top of the area's module.
 */
export function areaRoute(tag: string) {
  return (method: OpenApiMethod, path: `/api/${string}`, docs: Omit<RouteDocs, 'tags'>): AppMeta =>
    route(method, path, { ...docs, tags: [tag] });
}

/** What the transport and the document read of a procedure. */
export interface ProcedureDefinition {
  type: 'query' | 'mutation' | 'subscription';
  meta?: AppMeta;
  /** The input schemas (none: the procedure takes no input). */
  inputs: unknown[];
}

/** Every procedure of a router by its name (`plans.list`): tRPC keeps them flat in `_def.procedures`. */
export function proceduresOf(router: AnyTRPCRouter): [string, ProcedureDefinition][] {
  return Object.entries(router._def.procedures as Record<string, { _def: ProcedureDefinition }>).map(
    ([name, procedure]) => [name, procedure._def],
  );
}

/** A procedure's REST route, as its `route(...)` declares it: the one declaration of both. */
export interface RestRoute {
  method: OpenApiMethod;
  /** Path parameters as `{id}`, keys of the procedure's input. */
  path: `/api/${string}`;
}

/**
 * The procedure's route, refused when it is missing or does not fit: the transport checks every procedure when
 * the app starts, and the web build when it takes the routes (restRoutesOf), so a mistake fails there, not in
 * a user's request.
 */
export function restRouteOf(name: string, procedure: ProcedureDefinition): RestRoute {
  const route = procedure.meta?.openapi;
  if (!route || route.enabled === false) {
    throw new Error(
      `Procedure ${name} has no REST route: declare one with .meta(route(...)) (api/trpc/init.ts).`,
    );
  }
  if (route.errorResponses === undefined) {
    // A bare `openapi` meta: trpc-to-openapi would document its own error bodies, registering their schemas
    // where /api/v1's document would list them too.
    throw new Error(`Procedure ${name}: declare its REST route with route(...) (api/trpc/init.ts).`);
  }
  if (procedure.meta?.access === undefined) {
    throw new Error(`Procedure ${name}: declare who may call it (access) in route(...) (api/trpc/init.ts).`);
  }
  const { type } = procedure;
  if (type === 'subscription') throw new Error(`Procedure ${name}: subscriptions are not served.`);
  if ((type === 'query') !== (route.method === 'GET')) {
    throw new Error(`Procedure ${name}: queries are GET routes and mutations are not (${route.method}).`);
  }
  return { method: route.method, path: route.path as RestRoute['path'] };
}

/**
 * Every procedure's REST route by its name (`{ 'plans.list': { method: 'GET', path: '/api/plans' } }`): the
 * table the web client sends each call by, generated from here when the web app is built
 * (scripts/app-routes.ts, web/vite.config.ts).
 */
export function restRoutesOf(router: AnyTRPCRouter): Record<string, RestRoute> {
  return Object.fromEntries(
    proceduresOf(router).map(([name, procedure]) => [name, restRouteOf(name, procedure)]),
  );
}
