// Application request bodies are strict (docs/app-api.md, "Errors"), generated from the router itself
// (api/trpc/router.ts) so routes added later are walked too: every POST, PUT and PATCH route, called by a
// principal its access lets through, answers a body with a field it does not define with 400 `invalid_request`
// naming that field (`body.<field>`), before anything runs; every object a body may hold, at any depth, is a
// strict schema (or one of the few that are loose on purpose, listed below); the OpenAPI document says so
// (`additionalProperties: false`). The webhook case of issue 30: `{ url, events }` (a misspelt `eventTypes`) is
// refused and makes no endpoint, while `eventTypes: []` (and none given) explicitly means every event.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, proceduresOf } from '../../api/trpc/init.ts';
import { APP_OPENAPI_PATH } from '../../api/trpc/openapi.ts';
import { appRouter } from '../../api/trpc/router.ts';
import { WebhookEndpoint } from '../../db/entities/index.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { APP_ORIGIN, newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

interface BodyRoute {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  access: Access;
  inputs: unknown[];
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** Every application route that takes a JSON body, as the router declares it. */
const BODY_ROUTES: BodyRoute[] = proceduresOf(appRouter).flatMap(([name, procedure]) => {
  const route = procedure.meta?.openapi;
  if (!route || !BODY_METHODS.includes(route.method)) return [];
  return [
    {
      name,
      method: route.method as BodyRoute['method'],
      path: route.path,
      access: procedure.meta?.access ?? 'signed-in',
      inputs: procedure.inputs,
    },
  ];
});

/**
 * Objects a body may hold that keep fields they do not define, on purpose: a WebAuthn credential's JSON, whose
 * members are the browser's and grow with the standard (domain/account.ts, `credentialJson`).
 */
const LOOSE_ON_PURPOSE = new Set([
  'mfa.registerPasskey: body.response',
  'mfa.registerPasskey: body.response.response',
  'mfa.verifyLoginPasskey: body.response',
  'mfa.verifyLoginPasskey: body.response.response',
]);

const UNKNOWN = 'notAFieldOfThisRoute';

let harness: ApiHarness;
let owner: SignedInUser;
let admin: SignedInAdmin;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  admin = await signedInAdmin(harness, 'strict-bodies');
});
afterAll(() => harness?.close());

/** Headers of a principal the route's access lets through (a new session each time: sign-out ends one). */
async function headersFor(access: Access): Promise<Record<string, string>> {
  if (access === 'public') return { origin: APP_ORIGIN };
  if (access === 'platform-admin') return admin.headers;
  if (access === 'mfa-pending') return newSession(harness, owner.user, 'mfa_pending');
  return newSession(harness, owner.user, 'active');
}

const fieldsOf = (response: LightMyRequestResponse): string[] =>
  (response.json().error?.details ?? []).map((detail: { field?: string }) => detail.field);

/** The schema's objects that are not strict, as `body.<path>` with their mode (`strip`, `loose`). */
function notStrict(schema: unknown, path: string, found: string[], seen = new Set<unknown>()): string[] {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  if (!def || seen.has(schema)) return found;
  seen.add(schema);
  const walk = (inner: unknown, at = path) => notStrict(inner, at, found, seen);
  switch (def.type) {
    case 'object': {
      const catchall = (def.catchall as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def?.type;
      if (catchall !== 'never') found.push(`${path} (${catchall === undefined ? 'strip' : 'loose'})`);
      for (const [key, value] of Object.entries(def.shape as Record<string, unknown>))
        walk(value, `${path}.${key}`);
      break;
    }
    case 'array':
      walk(def.element, `${path}.<n>`);
      break;
    case 'union':
      for (const option of def.options as unknown[]) walk(option);
      break;
    case 'intersection':
      walk(def.left);
      walk(def.right);
      break;
    case 'pipe':
      walk(def.in);
      break;
    case 'record':
      walk(def.valueType, `${path}.<key>`);
      break;
    case 'lazy':
      walk((def.getter as () => unknown)());
      break;
    default:
      if ('innerType' in def) walk(def.innerType);
  }
  return found;
}

describe('application request bodies', () => {
  it('walks every body route of the router', () => {
    const names = BODY_ROUTES.map((route) => route.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'webhooks.create',
        'webhooks.update',
        'sending.fromTemplate',
        'documents.remind',
        'auth.logout',
        'backofficeAdmins.requestOtp',
      ]),
    );
    expect(BODY_ROUTES.length).toBeGreaterThan(80);
  });

  it('refuse a field the route does not define with 400 naming it, on every route', async () => {
    const problems: string[] = [];
    for (const route of BODY_ROUTES) {
      const response = await asUser(
        harness.app,
        { headers: await headersFor(route.access) },
        route.method,
        route.path.replace(/\{\w+\}/g, () => randomUUID()),
        { [UNKNOWN]: true },
      );
      const where = `${route.method} ${route.path} (${route.name})`;
      if (response.statusCode !== 400 || response.json().error?.code !== 'invalid_request') {
        problems.push(`${where}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      } else if (!fieldsOf(response).includes(`body.${UNKNOWN}`)) {
        problems.push(`${where}: 400 without body.${UNKNOWN}: ${response.body.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('are strict objects at every depth, except the WebAuthn responses', () => {
    const loose = BODY_ROUTES.flatMap((route) =>
      route.inputs.flatMap((input) => notStrict(input, 'body', []).map((at) => `${route.name}: ${at}`)),
    );
    expect(loose.filter((at) => !LOOSE_ON_PURPOSE.has(at.replace(/ \(loose\)$/, '')))).toEqual([]);
    // The exceptions are still there and loose (not strip, which would drop the browser's fields).
    expect(loose.sort()).toEqual([...LOOSE_ON_PURPOSE].map((at) => `${at} (loose)`).sort());
  });

  it('name an unknown field inside a list item too (the send page reuses /api/v1’s create request)', async () => {
    const route = BODY_ROUTES.find((candidate) => candidate.name === 'sending.fromTemplate') as BodyRoute;
    const response = await asUser(
      harness.app,
      { headers: await headersFor(route.access) },
      route.method,
      route.path.replace(/\{\w+\}/g, () => randomUUID()),
      {
        title: 'Quote',
        templateId: randomUUID(),
        recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', mobile: '+1' }],
        initialValues: [{ fieldDefinitionId: randomUUID(), value: 'x', label: 'y' }],
      },
    );
    expect(response.statusCode, response.body).toBe(400);
    expect(fieldsOf(response)).toEqual(
      expect.arrayContaining(['body.recipients.0.mobile', 'body.initialValues.0.label']),
    );
  });

  it('are documented as strict: additionalProperties false on every body with fields', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: APP_OPENAPI_PATH })).json();
    const bodies = BODY_ROUTES.flatMap((route) => {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      const schema = operation?.requestBody?.content?.['application/json']?.schema;
      // A route whose input is only its path parameters documents no body.
      return schema ? [{ route: `${route.method} ${route.path}`, schema }] : [];
    });
    expect(bodies.length).toBeGreaterThan(50);
    expect(
      bodies.filter(({ schema }) => schema.additionalProperties !== false).map(({ route }) => route),
    ).toEqual([]);
  });
});

describe('webhook endpoints and their event types', () => {
  const count = () =>
    harness.ctx.orm.em.fork().count(WebhookEndpoint, { organizationId: owner.organization.id });

  it('refuse `events` (for eventTypes) naming it, and make no endpoint that would receive every event', async () => {
    const before = await count();
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: owner.headers,
      payload: { url: 'https://hooks.example.com/typo', events: ['envelope.completed'] },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'body.events', message: 'is not a field of this request' }],
    });
    expect(response.json().error.message).toBe(
      'Invalid request: body.events: is not a field of this request',
    );
    expect(await count()).toBe(before);

    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: owner.headers,
      payload: { url: 'https://hooks.example.com/one', eventTypes: ['envelope.completed'] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json() as { id: string };
    const update = await harness.app.inject({
      method: 'PUT',
      url: `/api/webhooks/${id}`,
      headers: owner.headers,
      payload: { events: [] },
    });
    expect(update.statusCode, update.body).toBe(400);
    expect(fieldsOf(update)).toEqual(['body.events']);
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(WebhookEndpoint, { id });
    expect(stored.eventTypes).toEqual(['envelope.completed']);
  });

  it('take `eventTypes: []` (and none given) as every event, as the document says', async () => {
    for (const payload of [
      { url: 'https://hooks.example.com/all', eventTypes: [] },
      { url: 'https://hooks.example.com/all-by-default' },
    ]) {
      const created = await harness.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: owner.headers,
        payload,
      });
      expect(created.statusCode, created.body).toBe(200);
      expect(created.json().eventTypes).toEqual([]);
    }
    const document = (await harness.app.inject({ method: 'GET', url: APP_OPENAPI_PATH })).json();
    for (const method of ['post', 'put']) {
      const path = method === 'post' ? '/api/webhooks' : '/api/webhooks/{id}';
      const schema = document.paths[path][method].requestBody.content['application/json'].schema;
      expect(schema.properties.eventTypes.description, `${method} ${path}`).toMatch(
        /Empty \(`\[\]`\): every event/,
      );
    }
  });
});
