// The application routes' transport (api/trpc/): tRPC procedures served at the specification's REST paths on
// the app's own server. GET /api/plans answers every plan as the database holds it, in the ladder's order;
// errors have the /api/v1 body and statuses — an unknown path, an input refused by the procedure's schema
// (naming the field where it came from), a service's AppError, a TRPCError, an unexpected error and an output
// that fails its schema (500s without internals, the cause in the log) — with X-Request-Id echoed; the
// routes have their own valid OpenAPI 3.1 document, and /api/v1's does not list them. (The web client's
// routes are generated from the procedures: test/unit/web-app-routes.test.ts.)
import SwaggerParser from '@apidevtools/swagger-parser';
import type { Connection } from '@temporalio/client';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { OPENAPI_PATH } from '../../api/http/openapi.ts';
import { registerRequestContext } from '../../api/http/request-context.ts';
import { createServer } from '../../api/http/server.ts';
import { mountProcedures } from '../../api/trpc/fastify.ts';
import { publicProcedure, route, router } from '../../api/trpc/init.ts';
import { APP_OPENAPI_PATH, appOpenApiDocument } from '../../api/trpc/openapi.ts';
import { Plan } from '../../db/entities/index.ts';
import { PLAN_NAMES } from '../../domain/vocabulary.ts';
import { NotFound, RateLimited } from '../../services/errors.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { testConfig } from '../support/context.ts';

let harness: ApiHarness;
let app: FastifyInstance;

beforeAll(async () => {
  harness = await openApiHarness();
  app = harness.app;
});
afterAll(() => harness?.close());

interface PlanRow {
  name: string;
  api_access: boolean;
  webhook_access: boolean;
  monthly_document_limit: number | null;
  user_limit: number | null;
  team_limit: number | null;
  sms_credits_included: number;
  rate_limit_per_minute: number | null;
  upload_rate_limit_per_minute: number | null;
  support_level: string;
}

const isShipped = (name: string) => (PLAN_NAMES as readonly string[]).includes(name);

function expectErrorBody(body: unknown, code: string, requestId: string) {
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array), request_id: requestId },
  });
}

describe('GET /api/plans', () => {
  it('answers every plan with the limits the database holds, Starter to Enterprise, without a session', async () => {
    // Other tests may add a plan of their own to the shared database: the shipped ones must be there, in order.
    const rows = await harness.ctx.orm.em
      .fork()
      .getConnection()
      .execute<PlanRow[]>('select * from plan order by sort_order, name');
    const response = await app.inject({
      method: 'GET',
      url: '/api/plans',
      headers: { 'x-request-id': 'plans-list-1' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-request-id']).toBe('plans-list-1');
    const plans = response.json() as { name: string }[];
    expect(plans.map((plan) => plan.name).filter((name) => isShipped(name))).toEqual([...PLAN_NAMES]);
    expect(plans.map((plan) => plan.name).slice(0, PLAN_NAMES.length)).toEqual([...PLAN_NAMES]);
    expect(plans.length).toBeGreaterThanOrEqual(PLAN_NAMES.length);
    for (const plan of plans.filter((candidate) => isShipped(candidate.name))) {
      const row = rows.find((candidate) => candidate.name === plan.name) as PlanRow;
      expect(plan).toEqual({
        name: row.name,
        apiAccess: row.api_access,
        webhookAccess: row.webhook_access,
        monthlyDocumentLimit: row.monthly_document_limit,
        userLimit: row.user_limit,
        teamLimit: row.team_limit,
        smsCreditsIncluded: row.sms_credits_included,
        apiRequestsPerMinute: row.rate_limit_per_minute,
        apiUploadsPerMinute: row.upload_rate_limit_per_minute,
        supportLevel: row.support_level,
      });
    }
    // Unlimited is null, not a number.
    expect(plans.find((plan) => plan.name === 'Enterprise')).toMatchObject({
      monthlyDocumentLimit: null,
      userLimit: null,
    });
  });

  it('answers an unknown application path with 404, and another method of a known one with 405 and Allow', async () => {
    for (const [method, url, status, code] of [
      ['GET', '/api/plans/Starter', 404, 'not_found'],
      ['GET', '/api/nothing-here', 404, 'not_found'],
      ['POST', '/api/plans', 405, 'method_not_allowed'],
      ['DELETE', '/api/plans', 405, 'method_not_allowed'],
    ] as const) {
      const response = await app.inject({ method, url, headers: { 'x-request-id': `unknown-${method}` } });
      expect(response.statusCode, `${method} ${url}`).toBe(status);
      expect(response.headers['x-request-id']).toBe(`unknown-${method}`);
      expectErrorBody(response.json(), code, `unknown-${method}`);
      if (status === 405) expect(response.headers.allow).toBe('GET, HEAD');
    }
  });
});

/** The test configuration's PUBLIC_BASE_URL: mutations must come from a page of this server. */
const ORIGIN = 'http://localhost:3000';
const TRANSPORT = { secureCookies: false, origins: { allowed: new Set([ORIGIN]), requestHost: true } };

describe('the transport and its one error mapping', () => {
  const logged: { msg?: string; err?: { message?: string; type?: string } }[] = [];
  let bare: FastifyInstance;

  // A throwaway router built with the same helpers as the application's.
  const testRouter = router({
    things: router({
      rename: publicProcedure
        .meta(
          route('PUT', '/api/test/things/{id}', {
            summary: 'Rename a thing',
            tags: ['test'],
            access: 'public',
          }),
        )
        .input(
          z.object({ id: z.uuid(), name: z.string().min(1).max(20), count: z.number().int().optional() }),
        )
        .output(z.object({ id: z.string(), name: z.string(), count: z.number().nullable() }))
        .mutation(({ input }) => ({ id: input.id, name: input.name, count: input.count ?? null })),
      search: publicProcedure
        .meta(
          route('GET', '/api/test/things', { summary: 'Search things', tags: ['test'], access: 'public' }),
        )
        .input(z.object({ search: z.string().min(2), from: z.iso.datetime().optional() }))
        .output(z.object({ search: z.string(), from: z.string().nullable() }))
        .query(({ input }) => ({ search: input.search, from: input.from ?? null })),
      missing: publicProcedure
        .meta(
          route('GET', '/api/test/missing', {
            summary: 'Never there',
            tags: ['test'],
            access: 'public',
            errors: { 404: 'No such thing' },
          }),
        )
        .output(z.object({}))
        .query(() => {
          throw new NotFound('No such thing.');
        }),
      throttled: publicProcedure
        .meta(
          route('POST', '/api/test/throttled', { summary: 'Too often', tags: ['test'], access: 'public' }),
        )
        .output(z.object({}))
        .mutation(() => {
          throw new RateLimited('Slow down.', 7);
        }),
      forbidden: publicProcedure
        .meta(
          route('GET', '/api/test/forbidden', { summary: 'A TRPCError', tags: ['test'], access: 'public' }),
        )
        .output(z.object({}))
        .query(() => {
          throw new TRPCError({ code: 'FORBIDDEN', message: 'Not for you.' });
        }),
      broken: publicProcedure
        .meta(route('GET', '/api/test/broken', { summary: 'Fails', tags: ['test'], access: 'public' }))
        .output(z.object({}))
        .query(() => {
          throw new Error('connection to db.internal:5432 failed for user sigil_admin');
        }),
      badOutput: publicProcedure
        .meta(
          route('GET', '/api/test/bad-output', {
            summary: 'Answers the wrong shape',
            tags: ['test'],
            access: 'public',
          }),
        )
        .output(z.object({ count: z.number() }))
        .query(() => ({ count: 'secret-internal-value' }) as unknown as { count: number }),
      context: publicProcedure
        .meta(
          route('GET', '/api/test/context', {
            summary: 'The request context',
            tags: ['test'],
            access: 'public',
          }),
        )
        .output(z.object({ requestId: z.string(), plans: z.number() }))
        .query(async ({ ctx }) => ({
          requestId: ctx.requestId,
          plans: await ctx.services.em.count(Plan, {}),
        })),
    }),
  });

  beforeAll(async () => {
    const logger = pino(
      { level: 'error' },
      { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) },
    );
    bare = createServer({ logger });
    registerRequestContext(bare, {
      config: testConfig(),
      orm: harness.ctx.orm,
      temporal: {
        connection: harness.ctx.temporal.connection as Connection,
        client: harness.ctx.temporal,
        namespace: inject('namespace'),
      },
      logger,
    });
    mountProcedures(bare, testRouter, TRANSPORT);
    await bare.ready();
  });
  afterAll(() => bare?.close());

  it('serves a procedure at its REST path: path parameters, the JSON body, the query string, the context', async () => {
    const id = '0b6f5f3e-8c9a-4c1e-9d39-2f8a0a7d1c55';
    const renamed = await bare.inject({
      method: 'PUT',
      url: `/api/test/things/${id}`,
      payload: { name: 'Contract', count: 3 },
      headers: { origin: ORIGIN },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ id, name: 'Contract', count: 3 });

    const found = await bare.inject({
      method: 'GET',
      url: '/api/test/things?search=nda&from=2026-01-01T00:00:00Z',
    });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual({ search: 'nda', from: '2026-01-01T00:00:00Z' });

    const context = await bare.inject({
      method: 'GET',
      url: '/api/test/context',
      headers: { 'x-request-id': 'context-1' },
    });
    expect(context.json()).toMatchObject({ requestId: 'context-1' });
    expect(context.json().plans).toBeGreaterThanOrEqual(PLAN_NAMES.length);
  });

  it('refuses a mutation that does not come from a page of this server (Origin, else Referer)', async () => {
    const url = '/api/test/things/0b6f5f3e-8c9a-4c1e-9d39-2f8a0a7d1c55';
    const payload = { name: 'Contract' };
    for (const headers of [
      {},
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/page' },
    ]) {
      const refused = await bare.inject({ method: 'PUT', url, payload, headers });
      expect(refused.statusCode, JSON.stringify(headers)).toBe(403);
      expect(refused.json().error.code).toBe('cross_site_request');
    }
    // A browser that sends no Origin but a Referer of this server; and the request's own host.
    for (const headers of [{ referer: `${ORIGIN}/app/settings` }, { origin: 'http://localhost:80' }]) {
      const accepted = await bare.inject({ method: 'PUT', url, payload, headers });
      expect(accepted.statusCode, JSON.stringify(headers)).toBe(200);
    }
    // Reads need no Origin.
    expect((await bare.inject({ method: 'GET', url: '/api/test/things?search=nda' })).statusCode).toBe(200);
  });

  it('refuses an input that fails the schema with 400 invalid_request naming each field where it came from', async () => {
    const badPath = await bare.inject({
      method: 'PUT',
      url: '/api/test/things/not-a-uuid',
      payload: { name: '' },
      headers: { 'x-request-id': 'invalid-1', origin: ORIGIN },
    });
    expect(badPath.statusCode).toBe(400);
    expect(badPath.headers['x-request-id']).toBe('invalid-1');
    expectErrorBody(badPath.json(), 'invalid_request', 'invalid-1');
    const { error } = badPath.json();
    expect(error.details.map((detail: { field: string }) => detail.field).sort()).toEqual([
      'body.name',
      'params.id',
    ]);
    expect(error.message).toMatch(/^Invalid request: (params\.id|body\.name): .+ \(and 1 more\)$/);

    const badQuery = await bare.inject({ method: 'GET', url: '/api/test/things?search=a' });
    expect(badQuery.statusCode).toBe(400);
    // Each detail also says the rule the field broke (docs/app-api.md, "The rule a refused field broke").
    expect(badQuery.json().error.details).toEqual([
      {
        field: 'querystring.search',
        message: expect.any(String),
        code: 'too_small',
        params: { origin: 'string', minimum: 2, inclusive: true },
      },
    ]);

    const missingQuery = await bare.inject({ method: 'GET', url: '/api/test/things' });
    expect(missingQuery.json().error.details[0].field).toBe('querystring.search');

    const wrongType = await bare.inject({
      method: 'PUT',
      url: '/api/test/things/0b6f5f3e-8c9a-4c1e-9d39-2f8a0a7d1c55',
      payload: { name: 'ok', count: 'three' },
      headers: { origin: ORIGIN },
    });
    expect(wrongType.json().error.details).toEqual([
      {
        field: 'body.count',
        message: expect.any(String),
        code: 'invalid_type',
        params: { expected: 'number' },
      },
    ]);

    // Malformed JSON never reaches the procedure: Fastify's own 400, in the same body.
    const malformed = await bare.inject({
      method: 'PUT',
      url: '/api/test/things/0b6f5f3e-8c9a-4c1e-9d39-2f8a0a7d1c55',
      headers: { 'content-type': 'application/json', 'x-request-id': 'malformed-1', origin: ORIGIN },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(400);
    expectErrorBody(malformed.json(), 'invalid_request', 'malformed-1');
  });

  it('answers an AppError a service throws with its status, code, message and headers', async () => {
    const missing = await bare.inject({
      method: 'GET',
      url: '/api/test/missing',
      headers: { 'x-request-id': 'nf-1' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'not_found', message: 'No such thing.', details: [], request_id: 'nf-1' },
    });
    const throttled = await bare.inject({
      method: 'POST',
      url: '/api/test/throttled',
      headers: { origin: ORIGIN },
    });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('7');
    expect(throttled.json().error).toMatchObject({ code: 'rate_limited', message: 'Slow down.' });
    const forbidden = await bare.inject({ method: 'GET', url: '/api/test/forbidden' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toMatchObject({ code: 'forbidden', message: 'Not for you.' });
  });

  it('answers an unexpected error and an output that fails its schema with 500 and nothing of the cause, which the log holds', async () => {
    for (const url of ['/api/test/broken', '/api/test/bad-output']) {
      const response = await bare.inject({ method: 'GET', url, headers: { 'x-request-id': 'boom-1' } });
      expect(response.statusCode, url).toBe(500);
      expect(response.headers['x-request-id']).toBe('boom-1');
      expect(response.json(), url).toEqual({
        error: {
          code: 'internal_error',
          message: 'An internal error occurred. Quote the request id when you report it.',
          details: [],
          request_id: 'boom-1',
        },
      });
      expect(response.body).not.toMatch(/db\.internal|sigil_admin|secret-internal-value|validation/i);
    }
    expect(logged.map((line) => line.err?.message ?? '').join('\n')).toMatch(/db\.internal:5432/);
    expect(logged).toHaveLength(2);
  });

  it('refuses at start a procedure without a REST route made by route(), or a query that is not a GET', () => {
    const unrouted = router({ loose: publicProcedure.query(() => 'x') });
    expect(() =>
      mountProcedures(createServer({ logger: pino({ level: 'silent' }) }), unrouted, TRANSPORT),
    ).toThrow(/loose has no REST route/);
    const wrongMethod = router({
      sneaky: publicProcedure
        .meta(
          route('POST', '/api/test/sneaky', { summary: 'A query on POST', tags: ['test'], access: 'public' }),
        )
        .output(z.object({}))
        .query(() => ({})),
    });
    expect(() =>
      mountProcedures(createServer({ logger: pino({ level: 'silent' }) }), wrongMethod, TRANSPORT),
    ).toThrow(/queries are GET routes/);
    // A bare trpc-to-openapi meta, without route(): its generated error schemas would reach /api/v1's document.
    const rawMeta = router({
      raw: publicProcedure
        .meta({ openapi: { method: 'GET', path: '/api/test/raw' }, access: 'public' })
        .output(z.object({}))
        .query(() => ({})),
    });
    expect(() =>
      mountProcedures(createServer({ logger: pino({ level: 'silent' }) }), rawMeta, TRANSPORT),
    ).toThrow(/declare its REST route with route/);
    // A route must say who may call it.
    const noAccess = router({
      open: publicProcedure
        .meta({
          ...route('GET', '/api/test/open', { summary: 'Open?', tags: ['test'], access: 'public' }),
          access: undefined as never,
        })
        .output(z.object({}))
        .query(() => ({})),
    });
    expect(() =>
      mountProcedures(createServer({ logger: pino({ level: 'silent' }) }), noAccess, TRANSPORT),
    ).toThrow(/declare who may call it/);
  });

  it('documents parameters, bodies and error responses with the error body', async () => {
    // As a client reads it: plain JSON.
    const document = JSON.parse(JSON.stringify(appOpenApiDocument(testRouter, 'http://localhost:3000')));
    await SwaggerParser.validate(structuredClone(document));
    const rename = document.paths['/api/test/things/{id}'].put;
    expect(rename.parameters).toEqual([expect.objectContaining({ in: 'path', name: 'id', required: true })]);
    expect(Object.keys(rename.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'count',
      'name',
    ]);
    expect(Object.keys(rename.responses).sort()).toEqual(['200', '400', '403', '500', '503']);
    expect(rename.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(Object.keys(document.paths['/api/test/missing'].get.responses).sort()).toEqual([
      '200',
      '404',
      '500',
      '503',
    ]);
  });
});

describe('the application routes OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document of its own, listing GET /api/plans with its error responses', async () => {
    const response = await app.inject({ method: 'GET', url: APP_OPENAPI_PATH });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    await SwaggerParser.validate(structuredClone(document));
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.title).toBe('Sigil application routes');
    const operation = document.paths['/api/plans'].get;
    expect(operation.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Plan' },
      description: expect.any(String),
    });
    expect(operation.responses['500'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(operation.security).toBeUndefined();
    expect(document.components.schemas.Plan.required).toEqual(
      expect.arrayContaining(['name', 'monthlyDocumentLimit', 'userLimit', 'teamLimit', 'supportLevel']),
    );

    // One error body: the same schema as /api/v1's (where the inner object is the named ErrorInfo, for client
    // generators); and /api/v1's document knows nothing of these routes.
    const v1 = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    expect(v1.components.schemas.Error.properties.error).toEqual({ $ref: '#/components/schemas/ErrorInfo' });
    expect(document.components.schemas.Error).toEqual({
      ...v1.components.schemas.Error,
      properties: { error: v1.components.schemas.ErrorInfo },
    });
    expect(Object.keys(v1.paths)).not.toContain('/api/plans');
    expect(Object.keys(v1.paths)).not.toContain(APP_OPENAPI_PATH);
    expect(Object.keys(v1.components.schemas)).not.toContain('Plan');
  });

  it('says that the organization’s supported languages are each named once (uniqueItems), as the server refuses a repeat', async () => {
    const document = (await app.inject({ method: 'GET', url: APP_OPENAPI_PATH })).json();
    const { schema } =
      document.paths['/api/organization/settings'].put.requestBody.content['application/json'];
    expect(schema.properties.supportedLanguages).toMatchObject({
      type: 'array',
      uniqueItems: true,
      items: { enum: ['en', 'he'] },
    });
  });
});
