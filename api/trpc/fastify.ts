// The application routes' transport: every procedure of the app router becomes one Fastify route at exactly
// the REST method and path its `route(...)` declares, next to /api/v1 on the same server, so the request id,
// the per-request unit of work (request.services), the body limit, logging and the one error mapping are the
// server's own. The route's handler builds the procedure's input from the path parameters and the query
// string (GET, DELETE) or the JSON body (POST, PUT, PATCH), calls the procedure through tRPC (which validates
// the input and the output with their zod schemas) and answers its output as JSON with 200. Errors are
// rethrown in the server's terms (api/trpc/errors.ts) and answered by its error handler; a path no procedure
// declares is the server's ordinary 404.
//
// trpc-to-openapi's own Fastify adapter is not used: it answers errors in its own shape
// (`{ message, code, issues }`) and its catch-all route would take over every unknown /api path. Its
// metadata and document generator are (api/trpc/init.ts, api/trpc/openapi.ts). See docs/app-api.md.
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDependencies } from '../dependencies.ts';
import { fromTRPCError, type InputSource } from './errors.ts';
import { type AppContext, type ProcedureDefinition, proceduresOf } from './init.ts';
import { APP_OPENAPI_PATH, appOpenApiDocument } from './openapi.ts';
import { appRouter } from './router.ts';

/** The application routes and their OpenAPI document. */
export async function registerAppRoutes(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  mountProcedures(app, appRouter);
  const document = appOpenApiDocument(appRouter, deps.config.publicBaseUrl);
  app.get(APP_OPENAPI_PATH, { schema: { hide: true } }, async () => document);
}

/** The context of a procedure call: the request's unit of work and id. */
export function appContext(request: FastifyRequest): AppContext {
  return { services: request.services, requestId: request.id, log: request.log };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Serves every procedure of `router` (built with api/trpc/init.ts) at its REST route. */
export function mountProcedures(app: FastifyInstance, router: AnyTRPCRouter): void {
  for (const [name, procedure] of proceduresOf(router)) {
    const { method, path } = checkedRoute(name, procedure);
    const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
    const takesBody = BODY_METHODS.has(method);
    const sourceOf: InputSource = (key) =>
      key !== undefined && pathParameters.includes(key) ? 'params' : takesBody ? 'body' : 'querystring';

    app.route({
      method,
      // `{id}` in the specification's notation, `:id` in Fastify's.
      url: path.replace(/\{(\w+)\}/g, ':$1'),
      // Described by the application routes' document, not /api/v1's.
      schema: { hide: true },
      handler: async (request, reply) => {
        const call = procedureAt(router.createCaller(appContext(request)), name);
        let output: unknown;
        try {
          output = await call(inputOf(request, takesBody, pathParameters.length > 0));
        } catch (error) {
          throw fromTRPCError(error, sourceOf);
        }
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(output ?? null));
      },
    });
  }
}

/** The procedure's route, refused when it is missing or does not fit (at start, not at the first request). */
function checkedRoute(name: string, procedure: ProcedureDefinition) {
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
  const { type } = procedure;
  if (type === 'subscription') throw new Error(`Procedure ${name}: subscriptions are not served.`);
  if ((type === 'query') !== (route.method === 'GET')) {
    throw new Error(`Procedure ${name}: queries are GET routes and mutations are not (${route.method}).`);
  }
  return route;
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
