// The public API's machine-readable description (OpenAPI 3.1, version v1) at /api/openapi/v1/openapi.json
// and the interactive viewer at /swagger. Built from the same zod schemas that validate the requests, then
// shaped for client generators (openapi-for-generators.ts: one named schema per shape). The viewer's page and
// files carry a Content-Security-Policy of their own (Swagger UI's scripts and styles are
// files of /swagger/static; nothing inline runs) and may not be framed.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { APPLICATION_DOCUMENT_KEY } from '../../domain/common.ts';
import type { SCOPES } from '../../domain/scopes.ts';
import { shapeForGenerators } from './openapi-for-generators.ts';

export const OPENAPI_PATH = '/api/openapi/v1/openapi.json';

/** Swagger UI's page, its files and the document it reads. */
const SWAGGER_PATHS = /^\/swagger(?:[/?#]|$)/;

/**
 * The one inline style Swagger UI writes: the `<style>` inside its top bar's SVG logo
 * (`.logo_small_svg__cls-2{fill:#fff}…`, swagger-ui-bundle.js of @fastify/swagger-ui 6). Allowed by its hash, so
 * no other inline style applies; a new Swagger UI with another logo fails test/e2e/content-security-policy.test.ts.
 */
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * The viewer's policy: its own files only (and the logo's style by its hash); images and fonts also as data:
 * URLs (Swagger UI draws icons so); "Try it out" may call this server and PUBLIC_BASE_URL (the document's
 * server); never framed.
 */
export function swaggerPolicy(publicBaseUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${SWAGGER_LOGO_STYLE}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(publicBaseUrl).origin}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SCOPE_DESCRIPTIONS: Record<(typeof SCOPES)[number], string> = {
  'organization.read': 'organization profile and plan context',
  'usage.read': 'usage, diagnostics, rate-limit visibility',
  'templates.read': 'template list and detail',
  'files.write': 'source file upload',
  'envelopes.read': 'envelope detail, recipients, document download, final PDF, audit trail',
  'envelopes.write': 'create, send, cancel, remind, extend, sandbox lifecycle simulation',
  'webhooks.manage': 'webhook endpoints, test deliveries, delivery listing, replay, secret rotation',
};

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sigil public API',
        version: 'v1',
        description:
          'Electronic signatures: templates, uploads and envelopes. OAuth 2.0 client credentials ' +
          '(POST /oauth/token), JSON, errors as `{ error: { code, message, details, request_id } }`. ' +
          'Every response carries X-Request-Id; RateLimit-* headers report the rate limit.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: SCOPE_DESCRIPTIONS } },
          },
        },
      },
      security: [{ oauth2: [] }],
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      const scope = input.route.config?.scope;
      if (scope && transformed.schema) {
        (transformed.schema as Record<string, unknown>).security = [{ oauth2: [scope] }];
      }
      return transformed;
    },
    transformObject: (input) =>
      shapeForGenerators(withoutApplicationSchemas(errorsAsJson(jsonSchemaTransformObject(input)))),
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  const policy = swaggerPolicy(publicBaseUrl);
  app.addHook('onRequest', async (request, reply) => {
    if (!SWAGGER_PATHS.test(request.url)) return;
    reply
      .header('content-security-policy', policy)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
  });
  await app.register(swaggerUi, { routePrefix: '/swagger' });
}

type OpenApiDocument = ReturnType<typeof jsonSchemaTransformObject>;
interface MediaTypes {
  content?: Record<string, unknown>;
}

/**
 * A route that answers a file (`produces: ['application/pdf']`) still answers its errors with the JSON error
 * body; @fastify/swagger would document every response with the route's file type, so each error response is
 * put back to `application/json`.
 */
function errorsAsJson(document: OpenApiDocument): OpenApiDocument {
  const paths = (
    document as { paths?: Record<string, Record<string, { responses?: Record<string, MediaTypes> }>> }
  ).paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = response.content;
        if (Number(status) < 400 || !content || 'application/json' in content) continue;
        const [first] = Object.values(content);
        if (first) response.content = { 'application/json': first };
      }
    }
  }
  return document;
}

/**
 * The zod schemas named with `.meta({ id })` are in one registry for the whole process; the application
 * routes' own named bodies (the backoffice's) carry `APPLICATION_DOCUMENT_ONLY` and stay out of the public
 * document.
 */
function withoutApplicationSchemas(document: OpenApiDocument): OpenApiDocument {
  const schemas = (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas;
  for (const [name, schema] of Object.entries(schemas ?? {})) {
    if ((schema as Record<string, unknown>)[APPLICATION_DOCUMENT_KEY] === 'app') delete schemas?.[name];
  }
  return document;
}
