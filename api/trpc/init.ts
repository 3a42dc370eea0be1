// The application routes' tRPC (docs/app-api.md): the specification's `/api/...` paths outside /api/v1 are
// tRPC procedures, each declaring its REST method and path with `route(...)`. The transport
// (api/trpc/fastify.ts) serves every procedure at exactly that path on the app's Fastify server, with the
// server's one error mapping; api/trpc/openapi.ts describes them in their own OpenAPI document; the web app
// calls them with @trpc/client (web/src/lib/shared/app-client.ts).
import { type AnyTRPCRouter, initTRPC } from '@trpc/server';
import type { FastifyBaseLogger } from 'fastify';
import type { OpenApiMeta, OpenApiMethod } from 'trpc-to-openapi';
import type { ServiceContext } from '../services/context.ts';

/** What every procedure receives; the transport makes one per HTTP request. */
export interface AppContext {
  /** The request's unit of work (its own entity manager), Temporal and the configuration: pass it to services. */
  services: ServiceContext;
  /** The request's X-Request-Id, as error bodies and the log carry it. */
  requestId: string;
  /** The request's logger (every line carries the request id). */
  log: FastifyBaseLogger;
  // Sign-in comes next: the transport will add the session it reads from the request (user, organization,
  // permissions), and `authenticatedProcedure` below will refuse a request without one.
}

/** Statuses an application route may document besides 400 (input refused) and 500, with what they mean. */
export type DocumentedErrors = Partial<Record<401 | 403 | 404 | 409 | 413 | 429 | 503, string>>;

/**
 * A procedure's metadata: trpc-to-openapi's `openapi` (method, path, summary, tags), made by `route()`, and
 * the error statuses the OpenAPI document lists for it.
 */
export type AppMeta = OpenApiMeta<{ errors?: DocumentedErrors }>;

const t = initTRPC.context<AppContext>().meta<AppMeta>().create();

export const router = t.router;

/** A route anyone may call, signed in or not: reference data such as the plans. */
export const publicProcedure = t.procedure;
// export const authenticatedProcedure = publicProcedure.use(/* the session check */);

export interface RouteDocs {
  summary: string;
  description?: string;
  /** Groups in the OpenAPI document (`plans`, `auth`, `organization`, …). */
  tags: string[];
  /** Error statuses the route answers besides 400 and 500, and why. */
  errors?: DocumentedErrors;
}

/**
 * The REST route of a procedure: `.meta(route('GET', '/api/plans', { summary, tags }))`. Path parameters are
 * written `{id}` and must be keys of the procedure's input. Queries are GET; mutations POST, PUT, PATCH or
 * DELETE (the transport checks both when it starts).
 */
export function route(method: OpenApiMethod, path: `/api/${string}`, docs: RouteDocs): AppMeta {
  const { errors, ...openapi } = docs;
  return {
    openapi: {
      method,
      path,
      ...openapi,
      // No session exists yet, so no route is protected; sign-in will set this for its routes.
      protect: false,
      // Error responses are ours (the specification's body, api/trpc/openapi.ts), not trpc-to-openapi's.
      errorResponses: {},
    },
    ...(errors ? { errors } : {}),
  };
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
