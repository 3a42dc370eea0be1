// The application routes' own OpenAPI document (OpenAPI 3.1) at /api/openapi/app/openapi.json, separate from
// the public API's (/api/openapi/v1/openapi.json). trpc-to-openapi writes the paths, parameters, bodies and
// success responses from each procedure's route and zod schemas; the error responses are added here, each
// with the specification's error body, the same `Error` schema as /api/v1's.
import type { AnyTRPCRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { ErrorBody } from '../../domain/common.ts';
import { PlanView } from '../../domain/plan.ts';
import { type DocumentedErrors, type ProcedureDefinition, proceduresOf } from './init.ts';

export const APP_OPENAPI_PATH = '/api/openapi/app/openapi.json';

/** Schemas named in the document's components (the domain's schemas carry no global id; see domain/plan.ts). */
const COMPONENTS = { Plan: PlanView, Error: ErrorBody };

const ERROR_REF = { $ref: '#/components/schemas/Error' };

export function appOpenApiDocument(router: AnyTRPCRouter, publicBaseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Sigil application routes',
    version: '1',
    description:
      'The routes of the web applications (business app and backoffice): `/api/...` outside `/api/v1`, ' +
      'JSON in and out, errors as `{ error: { code, message, details, request_id } }` (as in /api/v1). ' +
      'Every response carries X-Request-Id. Not a public contract: they change with the web app that ' +
      'ships with them. The public API is described at /api/openapi/v1/openapi.json.',
    baseUrl: publicBaseUrl,
    openApiVersion: '3.1.0',
    // Routes that need a signed-in user list this scheme: the session cookie set by sign-in (docs/accounts.md).
    securitySchemes: {
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'sigil_session',
        description:
          'The browser session of an organization user, set by POST /api/auth/login (HttpOnly, SameSite=Lax). ' +
          'Mutations must also send an Origin header of this server.',
      },
      backoffice: {
        type: 'apiKey',
        in: 'cookie',
        name: 'sigil_backoffice_session',
        description:
          'The backoffice session of a platform administrator, set by POST /api/backoffice/session after the ' +
          'emailed code (HttpOnly, SameSite=Strict; docs/backoffice.md). Mutations must also send an Origin ' +
          'header of this server.',
      },
    },
    defs: COMPONENTS,
  });
  for (const [name, procedure] of proceduresOf(router)) {
    const { meta } = procedure;
    if (!meta?.openapi) continue;
    const operation = document.paths?.[meta.openapi.path]?.[lowerCase(meta.openapi.method)];
    if (!operation) throw new Error(`${name}: not in the generated document`);
    const errors = { ...meta.errors };
    if (meta.openapi.method !== 'GET') {
      // The transport's cross-site rule (api/trpc/fastify.ts) holds for every mutation.
      const crossSite = 'No Origin (or Referer) of this server: `cross_site_request`';
      errors[403] = errors[403] ? `${errors[403]}; or ${crossSite}` : crossSite;
    }
    if (meta.file) {
      // A file, not the FileAnswer the procedure hands the transport (api/trpc/fastify.ts).
      operation.responses = {
        ...operation.responses,
        200: {
          description: meta.file.description,
          headers: {
            'Content-Disposition': {
              description: 'attachment; filename="…"',
              schema: { type: 'string' },
            },
          },
          content: {
            [mediaTypeOf(meta.file.contentType)]: {
              schema: meta.file.binary ? { type: 'string', format: 'binary' } : { type: 'string' },
            },
          },
        },
      };
    }
    if (meta.etag) {
      // The transport's conditional answer (api/trpc/fastify.ts): an ETag on 200, 304 for a tag still current.
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'The ETag of an earlier answer: 304 without a body while it is still current',
          schema: { type: 'string' },
        },
      ];
      const ok = operation.responses?.[200];
      operation.responses = {
        ...operation.responses,
        ...(ok && !('$ref' in ok)
          ? {
              200: {
                ...ok,
                headers: {
                  ...ok.headers,
                  ETag: {
                    description: 'A tag of this answer, for If-None-Match',
                    schema: { type: 'string' },
                  },
                },
              },
            }
          : {}),
        304: { description: 'Not modified: the answer is still the one If-None-Match names' },
      };
    }
    if (meta.idempotent) {
      // The transport's Idempotency-Key (api/trpc/fastify.ts), as /api/v1's creates declare it.
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Names this request (1 to 255 printable ASCII characters): repeated within 24 hours with the same ' +
            'body it answers the first answer again (`Idempotent-Replayed: true`) without acting twice',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        },
      ];
    }
    if (meta.image) {
      // The image's bytes, not the ImageAnswer the procedure hands the transport (api/trpc/fastify.ts).
      operation.responses = {
        ...operation.responses,
        200: {
          description: meta.image.description,
          headers: {
            'Cache-Control': {
              description: 'private: only the user’s browser keeps it',
              schema: { type: 'string' },
            },
            'X-Content-Type-Options': { description: 'nosniff', schema: { type: 'string' } },
          },
          content: Object.fromEntries(
            meta.image.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
          ),
        },
      };
    }
    operation.responses = { ...operation.responses, ...errorResponses(errors, procedure) };
    // trpc-to-openapi rebuilds a refined input (`.superRefine`) as a plain object when it takes the path
    // parameters out, losing its strictness: the body refuses what it does not define all the same.
    const body = operation.requestBody;
    const bodySchema = body && !('$ref' in body) ? body.content['application/json']?.schema : undefined;
    if (bodySchema && !('$ref' in bodySchema) && procedure.inputs.every(isStrictObject)) {
      bodySchema.additionalProperties = false;
    }
    // Each protected route names the one cookie it reads: the backoffice's or the organization user's.
    if (operation.security) {
      operation.security = [meta.access === 'platform-admin' ? { backoffice: [] } : { session: [] }];
    }
  }
  return document;
}

function errorResponses(errors: DocumentedErrors | undefined, procedure: ProcedureDefinition) {
  const statuses: Record<string, string> = {
    ...(procedure.inputs.length > 0
      ? { 400: 'Input refused: `details` names each field (`params.…`, `querystring.…` or `body.…`)' }
      : {}),
    ...errors,
    500: 'Internal error (the log holds the cause under the request id)',
    503: 'A dependency (the database or the workflow service) is unavailable; retry after Retry-After seconds',
  };
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: ERROR_REF } } },
    ]),
  );
}

/** A zod object that refuses the fields it does not define (`z.strictObject`, `.strict()`). */
function isStrictObject(schema: unknown): boolean {
  const def = (
    schema as { _zod?: { def?: { type?: string; catchall?: { _zod?: { def?: { type?: string } } } } } }
  )._zod?.def;
  return def?.type === 'object' && def.catchall?._zod?.def?.type === 'never';
}

/** `text/csv` of `text/csv; charset=utf-8`. */
function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]?.trim() ?? contentType;
}

function lowerCase<T extends string>(method: T): Lowercase<T> {
  return method.toLowerCase() as Lowercase<T>;
}
