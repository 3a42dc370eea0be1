// Webhook management through the public API (issue 34): list, create, change, delete and secret rotation of
// endpoints and the delivery records with their filters, under scope webhooks.manage, with the business app's
// rules (plan access, the endpoint limit, URL checks, the secret shown once, the rotation's grace period, a key
// subscribing only to what its scopes read), other organizations' endpoints and deliveries invisible, and the
// meaning of X-Service-Sandbox and Idempotency-Key on these routes. Deliveries of the rotation test go through
// the shared worker to a real HTTP receiver on 127.0.0.1 that checks both signatures.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { Organization, WebhookDelivery, WebhookEndpoint } from '../../db/entities/index.ts';
import type { Scope } from '../../domain/scopes.ts';
import { permissionsOf } from '../../services/accounts/sessions.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import {
  createWebhookEndpoint,
  MAX_WEBHOOK_ENDPOINTS,
} from '../../services/webhooks/create-webhook-endpoint.ts';
import { getWebhookDelivery } from '../../services/webhooks/list-webhook-deliveries.ts';
import {
  type ApiHarness,
  buildTestApp,
  clientToken,
  type Integrator,
  newIntegrator,
  openApiHarness,
  productionConfig,
} from '../support/api.ts';
import { asUser, bearer, type Caller, callAs, expectError } from '../support/app-requests.ts';
import { testConfig } from '../support/context.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { startWebhookReceiver, verifies, type WebhookReceiver } from '../support/webhook-receiver.ts';

let harness: ApiHarness;
let production: FastifyInstance;
let receiver: WebhookReceiver;
let acme: Integrator;
let other: Integrator;

beforeAll(async () => {
  harness = await openApiHarness();
  // Production rules on the same database: https and public addresses only, sandbox not enabled.
  production = await buildTestApp(harness.ctx, productionConfig());
  receiver = await startWebhookReceiver();
  acme = await newIntegrator(harness);
  other = await newIntegrator(harness);
});
afterAll(async () => {
  await receiver?.close();
  await production?.close();
  await harness?.close();
});

const MANAGE: Scope[] = ['webhooks.manage', 'envelopes.read'];

async function as(integrator: Integrator, scopes: Scope[] = MANAGE): Promise<Caller> {
  return bearer(await integrator.token(scopes));
}

const hookUrl = () => `${receiver.url}/hooks/${randomUUID()}`;

async function endpointsOf(organizationId: string) {
  return harness.ctx.orm.em
    .fork()
    .find(WebhookEndpoint, { organizationId }, { orderBy: { createdAt: 'asc' } });
}

async function created(integrator: Integrator, body: Record<string, unknown> = {}) {
  return callAs(
    harness.app,
    await as(integrator),
    'POST',
    '/api/v1/webhooks',
    { url: hookUrl(), eventTypes: ['envelope.completed'], ...body },
    { status: 201 },
  );
}

describe('scope and organizations', () => {
  it('refuses every management route without webhooks.manage (403 naming the scope), changing nothing', async () => {
    const endpoint = await created(acme);
    const before = (await endpointsOf(acme.organizationId)).length;
    const caller = await as(acme, ['envelopes.read', 'envelopes.write', 'usage.read']);
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks', { url: hookUrl() }],
      ['PUT', `/api/v1/webhooks/${endpoint.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/secret/rotate`],
      ['GET', '/api/v1/webhooks/deliveries'],
      ['GET', `/api/v1/webhooks/deliveries/${randomUUID()}`],
    ];
    for (const [method, path, body] of routes) {
      const error = expectError(await asUser(harness.app, caller, method, path, body), 403, 'forbidden');
      expect(error.message, `${method} ${path}`).toMatch(/webhooks\.manage/);
    }
    const after = await endpointsOf(acme.organizationId);
    expect(after).toHaveLength(before);
    const same = after.find((row) => row.id === endpoint.id);
    expect(same?.enabled).toBe(true);
    expect(same?.secret).toBe(endpoint.secret);
  });

  it('shows only the organization’s own endpoints and deliveries: another’s are 404 on every route', async () => {
    const theirs = await created(other);
    const delivery = await callAs(
      harness.app,
      await as(other),
      'POST',
      `/api/v1/webhooks/${theirs.id}/test`,
      undefined,
      { status: 202 },
    );
    const caller = await as(acme);
    const list = await callAs(harness.app, caller, 'GET', '/api/v1/webhooks');
    expect(list.endpoints.map((e: { id: string }) => e.id)).not.toContain(theirs.id);
    for (const [method, path, body] of [
      ['PUT', `/api/v1/webhooks/${theirs.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${theirs.id}`],
      ['POST', `/api/v1/webhooks/${theirs.id}/secret/rotate`],
      ['GET', `/api/v1/webhooks/deliveries?endpointId=${theirs.id}`],
      ['GET', `/api/v1/webhooks/deliveries/${delivery.id}`],
    ] as [string, string, unknown?][]) {
      expectError(await asUser(harness.app, caller, method, path, body), 404, 'not_found');
    }
    const deliveries = await callAs(harness.app, caller, 'GET', '/api/v1/webhooks/deliveries');
    expect(deliveries.deliveries.map((d: { id: string }) => d.id)).not.toContain(delivery.id);
    const [row] = (await endpointsOf(other.organizationId)).filter((e) => e.id === theirs.id);
    expect(row?.enabled).toBe(true);
    expect(row?.secret).toBe(theirs.secret);
  });
});

describe('create', () => {
  it('answers 201 with the secret once; afterwards only its last four characters are shown', async () => {
    const caller = await as(acme);
    const url = hookUrl();
    const answer = await callAs(
      harness.app,
      caller,
      'POST',
      '/api/v1/webhooks',
      { url, eventTypes: ['envelope.completed', 'envelope.completed', 'recipient.declined'] },
      { status: 201 },
    );
    expect(answer).toMatchObject({
      id: expect.any(String),
      url,
      eventTypes: ['envelope.completed', 'recipient.declined'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
      secretHint: `…${answer.secret.slice(-4)}`,
      previousSecretHint: null,
    });
    const [row] = (await endpointsOf(acme.organizationId)).filter((e) => e.id === answer.id);
    expect(row?.secret).toBe(answer.secret);

    const list = await asUser(harness.app, caller, 'GET', '/api/v1/webhooks');
    expect(list.body).not.toContain(answer.secret);
    const listed = list.json().endpoints.find((e: { id: string }) => e.id === answer.id);
    expect(listed).toMatchObject({ secretHint: answer.secretHint, recentDeliveries: { pending: 0 } });
    expect(listed).not.toHaveProperty('secret');
    expect(list.json()).toMatchObject({ webhookAccess: true, maxEndpoints: MAX_WEBHOOK_ENDPOINTS });
    const changed = await asUser(harness.app, caller, 'PUT', `/api/v1/webhooks/${answer.id}`, {
      enabled: false,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).not.toContain(answer.secret);
    expect(changed.json()).not.toHaveProperty('secret');
  });

  it('refuses bad input with 400 naming the field, and creates nothing', async () => {
    const caller = await as(acme);
    const before = (await endpointsOf(acme.organizationId)).length;
    const cases: [unknown, string][] = [
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://user:pw@example.com/hook' }, 'url'],
      [{ url: hookUrl(), eventTypes: ['envelope.signed'] }, 'eventTypes'],
      [{ url: hookUrl(), events: ['envelope.completed'] }, 'events'],
      [{ eventTypes: [] }, 'url'],
      [{ url: hookUrl(), enabled: 'yes' }, 'enabled'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(
        await asUser(harness.app, caller, 'POST', '/api/v1/webhooks', body),
        400,
        'invalid_request',
      );
      // A field not in the schema is named by the rule's params (`unrecognized_keys`, `keys`), as on every v1 body.
      expect(
        error.details.map((detail) => `${String(detail.field)} ${JSON.stringify(detail.params ?? {})}`),
        JSON.stringify(body),
      ).toEqual(expect.arrayContaining([expect.stringContaining(field)]));
    }
    expect(await endpointsOf(acme.organizationId)).toHaveLength(before);
  });

  it('in production, refuses http and private addresses as the application does', async () => {
    const caller = bearer(await acme.token(MANAGE));
    for (const url of ['http://1.1.1.1/hook', 'https://10.1.2.3/hook', 'https://127.0.0.1/hook']) {
      const error = expectError(
        await asUser(production, caller, 'POST', '/api/v1/webhooks', { url }),
        400,
        'invalid_request',
      );
      expect(error.details).toEqual([expect.objectContaining({ field: 'url' })]);
    }
    const accepted = await callAs(
      production,
      caller,
      'POST',
      '/api/v1/webhooks',
      { url: 'https://1.1.1.1/hook', eventTypes: ['envelope.completed'] },
      { status: 201 },
    );
    expect(accepted.url).toBe('https://1.1.1.1/hook');
  });

  it('stops at the organization’s endpoint limit with 409 webhook_endpoint_limit', async () => {
    const integrator = await newIntegrator(harness);
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      await createWebhookEndpoint(harness.ctx, { organizationId: integrator.organizationId, url: hookUrl() });
    }
    const error = expectError(
      await asUser(harness.app, await as(integrator), 'POST', '/api/v1/webhooks', {
        url: hookUrl(),
        eventTypes: ['envelope.completed'],
      }),
      409,
      'webhook_endpoint_limit',
    );
    expect(error.message).toMatch(/20/);
    expect(await endpointsOf(integrator.organizationId)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });

  it('refuses an organization whose plan has no webhook access (403 naming the plan)', async () => {
    const em = harness.ctx.orm.em.fork();
    const planName = `API only ${randomUUID().slice(0, 8)}`;
    await em.execute(
      `insert into plan (name, api_access, webhook_access, sms_credits_included, rate_limit_per_minute,
                         upload_rate_limit_per_minute, support_level, sort_order)
       values (?, true, false, 0, 1000, 100, 'Standard', 99)`,
      [planName],
    );
    const integrator = await newIntegrator(harness);
    await em.nativeUpdate(Organization, { id: integrator.organizationId }, { planName });
    const caller = await as(integrator);
    const error = expectError(
      await asUser(harness.app, caller, 'POST', '/api/v1/webhooks', { url: hookUrl() }),
      403,
      'forbidden',
    );
    expect(error.details).toEqual([expect.objectContaining({ field: 'plan' })]);
    expect(await endpointsOf(integrator.organizationId)).toHaveLength(0);
    const list = await callAs(harness.app, caller, 'GET', '/api/v1/webhooks');
    expect(list).toMatchObject({ endpoints: [], webhookAccess: false, planName });
  });

  it('does not honour Idempotency-Key: the secret is never answered twice', async () => {
    const caller = await as(acme);
    const body = { url: hookUrl(), eventTypes: ['envelope.completed'] };
    const options = { idempotencyKey: `create-${randomUUID()}`, status: 201 };
    const first = await callAs(harness.app, caller, 'POST', '/api/v1/webhooks', body, options);
    const second = await asUser(harness.app, caller, 'POST', '/api/v1/webhooks', body, options);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().id).not.toBe(first.id);
    expect(second.json().secret).not.toBe(first.secret);
  });
});

describe('nobody grants more than they hold', () => {
  it('a key subscribes an endpoint only to events its token’s scopes read (envelopes.read)', async () => {
    const narrow = await as(acme, ['webhooks.manage']);
    const before = (await endpointsOf(acme.organizationId)).length;
    for (const eventTypes of [[], ['envelope.completed', 'recipient.declined'], undefined]) {
      const error = expectError(
        await asUser(harness.app, narrow, 'POST', '/api/v1/webhooks', { url: hookUrl(), eventTypes }),
        403,
        'forbidden',
      );
      expect(error.message).toMatch(/envelopes\.read/);
      expect(error.details[0]).toMatchObject({ field: 'body.eventTypes', scope: 'envelopes.read' });
    }
    expect(await endpointsOf(acme.organizationId)).toHaveLength(before);

    // The endpoint as saved must stay within the token's scopes: no change, no secret without envelopes.read.
    const endpoint = await created(acme);
    for (const [method, path, body] of [
      ['PUT', `/api/v1/webhooks/${endpoint.id}`, { enabled: false }],
      ['PUT', `/api/v1/webhooks/${endpoint.id}`, { url: hookUrl() }],
      ['POST', `/api/v1/webhooks/${endpoint.id}/secret/rotate`],
    ] as [string, string, unknown?][]) {
      expectError(await asUser(harness.app, narrow, method, path, body), 403, 'forbidden');
    }
    const [row] = (await endpointsOf(acme.organizationId)).filter((e) => e.id === endpoint.id);
    expect(row).toMatchObject({ enabled: true, url: endpoint.url, secret: endpoint.secret });
  });

  it('an endpoint a key saves answers to the user who last changed the key', async () => {
    const admin = await signedInUser(harness, { role: 'administrator', organizationId: acme.organizationId });
    const key = await createOAuthClient(
      harness.ctx,
      { organizationId: acme.organizationId, name: 'ERP', scopes: MANAGE },
      { userId: admin.user.id, permissions: permissionsOf(admin.role), ipAddress: null },
    );
    const caller = bearer(await clientToken(harness.app, key.clientId, key.clientSecret));
    const answer = await callAs(
      harness.app,
      caller,
      'POST',
      '/api/v1/webhooks',
      { url: hookUrl(), eventTypes: ['envelope.completed'] },
      { status: 201 },
    );
    const [row] = (await endpointsOf(acme.organizationId)).filter((e) => e.id === answer.id);
    expect(row?.changedByUserId).toBe(admin.user.id);
    const listed = (await callAs(harness.app, caller, 'GET', '/api/v1/webhooks')).endpoints.find(
      (e: { id: string }) => e.id === answer.id,
    );
    expect(listed).toMatchObject({ changedBy: { id: admin.user.id, status: 'active' }, suspendedEvents: [] });
  });
});

describe('secrets in logs', () => {
  it('writes neither the created nor the rotated secret to the log, even at trace level', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = await buildTestApp(
      harness.ctx,
      testConfig(),
      createLogger({ logLevel: 'trace' }, 'sigil-test', stream),
    );
    try {
      const caller = await as(acme);
      const endpoint = await callAs(
        app,
        caller,
        'POST',
        '/api/v1/webhooks',
        { url: hookUrl(), eventTypes: ['envelope.completed'] },
        { status: 201 },
      );
      const rotated = await callAs(app, caller, 'POST', `/api/v1/webhooks/${endpoint.id}/secret/rotate`);
      await callAs(app, caller, 'GET', '/api/v1/webhooks');
      expect(lines.length).toBeGreaterThan(3);
      const log = lines.join('');
      expect(log).toContain('/api/v1/webhooks');
      expect(log).not.toContain(endpoint.secret);
      expect(log).not.toContain(rotated.secret);
    } finally {
      await app.close();
    }
  });
});

describe('change and delete', () => {
  it('changes what is given and keeps the rest; 400 for nothing to change or a bad id', async () => {
    const caller = await as(acme);
    const endpoint = await created(acme, { eventTypes: ['envelope.completed', 'envelope.expired'] });
    const url = hookUrl();
    const changed = await callAs(harness.app, caller, 'PUT', `/api/v1/webhooks/${endpoint.id}`, {
      url,
      enabled: false,
    });
    expect(changed).toMatchObject({
      id: endpoint.id,
      url,
      enabled: false,
      eventTypes: ['envelope.completed', 'envelope.expired'],
    });
    expectError(
      await asUser(harness.app, caller, 'PUT', `/api/v1/webhooks/${endpoint.id}`, {}),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, caller, 'PUT', `/api/v1/webhooks/${endpoint.id}`, { url: 'ftp://x/y' }),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, caller, 'PUT', '/api/v1/webhooks/not-a-uuid', { enabled: true }),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, caller, 'PUT', `/api/v1/webhooks/${randomUUID()}`, { enabled: true }),
      404,
      'not_found',
    );
    const [row] = (await endpointsOf(acme.organizationId)).filter((e) => e.id === endpoint.id);
    expect(row).toMatchObject({ url, enabled: false });
  });

  it('deletes an endpoint with its deliveries; deleting again is 404', async () => {
    const caller = await as(acme);
    const endpoint = await created(acme);
    await callAs(harness.app, caller, 'POST', `/api/v1/webhooks/${endpoint.id}/test`, undefined, {
      status: 202,
    });
    expect(await callAs(harness.app, caller, 'DELETE', `/api/v1/webhooks/${endpoint.id}`)).toEqual({
      id: endpoint.id,
      deleted: true,
    });
    expect(await endpointsOf(acme.organizationId)).not.toContainEqual(
      expect.objectContaining({ id: endpoint.id }),
    );
    expect(await harness.ctx.orm.em.fork().count(WebhookDelivery, { endpointId: endpoint.id })).toBe(0);
    expectError(
      await asUser(harness.app, caller, 'DELETE', `/api/v1/webhooks/${endpoint.id}`),
      404,
      'not_found',
    );
  });
});

describe('secret rotation', () => {
  it('answers the new secret once; for 24 hours deliveries are signed with both', async () => {
    const caller = await as(acme);
    const path = `/hooks/${randomUUID()}`;
    const endpoint = await created(acme, { url: `${receiver.url}${path}` });
    const before = Date.now();
    const rotated = await callAs(
      harness.app,
      caller,
      'POST',
      `/api/v1/webhooks/${endpoint.id}/secret/rotate`,
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.secretHint).toBe(`…${rotated.secret.slice(-4)}`);
    expect(rotated.previousSecretHint).toBe(`…${endpoint.secret.slice(-4)}`);
    const graceEnds = Date.parse(rotated.previousSecretExpiresAt);
    expect(graceEnds).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(graceEnds).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);

    const delivery = await callAs(
      harness.app,
      caller,
      'POST',
      `/api/v1/webhooks/${endpoint.id}/test`,
      undefined,
      {
        status: 202,
      },
    );
    const [request] = await receiver.waitFor(1, (r) => r.path === path);
    if (!request) throw new Error('no delivery arrived');
    expect(verifies(request, rotated.secret)).toBe(true);
    expect(verifies(request, endpoint.secret, true)).toBe(true);
    expect(verifies(request, endpoint.secret)).toBe(false);

    const list = await asUser(harness.app, caller, 'GET', '/api/v1/webhooks');
    expect(list.body).not.toContain(rotated.secret);
    expect(list.body).not.toContain(endpoint.secret);
    const record = await settledDelivery(acme.organizationId, delivery.id);
    expect(record.status).toBe('succeeded');
  });
});

describe('GET /api/v1/webhooks/deliveries', () => {
  it('filters by endpoint, event type, status and creation range, a page at a time', async () => {
    const integrator = await newIntegrator(harness);
    const caller = await as(integrator);
    const first = await created(integrator);
    const second = await created(integrator);
    const em = harness.ctx.orm.em.fork();
    const at = (iso: string) => new Date(iso);
    const rows = [
      { endpoint: first, type: 'envelope.completed', status: 'succeeded', createdAt: '2026-03-01T10:00:00Z' },
      { endpoint: first, type: 'envelope.completed', status: 'failed', createdAt: '2026-03-02T10:00:00Z' },
      { endpoint: first, type: 'recipient.declined', status: 'succeeded', createdAt: '2026-03-03T10:00:00Z' },
      {
        endpoint: second,
        type: 'envelope.completed',
        status: 'succeeded',
        createdAt: '2026-03-04T10:00:00Z',
      },
      { endpoint: second, type: 'envelope.expired', status: 'failed', createdAt: '2026-03-05T10:00:00Z' },
    ].map((row) =>
      em.create(WebhookDelivery, {
        id: randomUUID(),
        endpointId: row.endpoint.id,
        organizationId: integrator.organizationId,
        kind: 'event',
        eventId: randomUUID(),
        eventType: row.type,
        eventCreatedAt: at(row.createdAt),
        payload: '{}',
        endpointUrl: row.endpoint.url,
        status: row.status,
        attemptCount: 1,
        createdAt: at(row.createdAt),
        updatedAt: at(row.createdAt),
      }),
    );
    await em.flush();
    const ids = (query: string) =>
      callAs(harness.app, caller, 'GET', `/api/v1/webhooks/deliveries${query}`).then((page) =>
        page.deliveries.map((d: { id: string }) => rows.findIndex((row) => row.id === d.id)),
      );
    expect(await ids('')).toEqual([4, 3, 2, 1, 0]);
    expect(await ids(`?endpointId=${first.id}`)).toEqual([2, 1, 0]);
    expect(await ids('?eventType=envelope.completed')).toEqual([3, 1, 0]);
    expect(await ids('?status=failed')).toEqual([4, 1]);
    expect(await ids('?from=2026-03-02T10:00:00Z&to=2026-03-04T10:00:00Z')).toEqual([2, 1]);
    expect(await ids(`?endpointId=${first.id}&status=succeeded&from=2026-03-02T00:00:00Z`)).toEqual([2]);

    const page = await callAs(harness.app, caller, 'GET', '/api/v1/webhooks/deliveries?limit=2&offset=2');
    expect(page.total).toBe(5);
    expect(page.nextOffset).toBe(4);
    expect(page.deliveries.map((d: { id: string }) => d.id)).toEqual([rows[2]?.id, rows[1]?.id]);
    const last = await callAs(harness.app, caller, 'GET', '/api/v1/webhooks/deliveries?limit=2&offset=4');
    expect(last.nextOffset).toBeNull();

    const one = await callAs(harness.app, caller, 'GET', `/api/v1/webhooks/deliveries/${rows[1]?.id}`);
    expect(one).toMatchObject({ id: rows[1]?.id, status: 'failed', endpointUrl: first.url, attempts: [] });
  });

  it('refuses bad filters with 400 naming them', async () => {
    const caller = await as(acme);
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['eventType=envelope.signed', 'eventType'],
      ['endpointId=nope', 'endpointId'],
      ['from=yesterday', 'from'],
      ['from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'to'],
      ['limit=201', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const error = expectError(
        await asUser(harness.app, caller, 'GET', `/api/v1/webhooks/deliveries?${query}`),
        400,
        'invalid_request',
      );
      expect(
        error.details.map((detail) => String(detail.field)),
        query,
      ).toEqual(expect.arrayContaining([expect.stringContaining(field as string)]));
    }
  });
});

describe('X-Service-Sandbox', () => {
  it('is ignored where sandbox is enabled: the same production endpoints, no sandbox answer header', async () => {
    const caller = await as(acme);
    const sandbox = { headers: { 'x-service-sandbox': 'true' } };
    const answer = await asUser(
      harness.app,
      caller,
      'POST',
      '/api/v1/webhooks',
      { url: hookUrl(), eventTypes: ['envelope.completed'] },
      sandbox,
    );
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['x-service-sandbox']).toBeUndefined();
    const listed = await asUser(harness.app, caller, 'GET', '/api/v1/webhooks', undefined, sandbox);
    expect(listed.json().endpoints.map((e: { id: string }) => e.id)).toContain(answer.json().id);
    expect(await endpointsOf(acme.organizationId)).toContainEqual(
      expect.objectContaining({ id: answer.json().id }),
    );
  });

  it('is refused with 403 on a server without sandbox, creating nothing', async () => {
    const caller = bearer(await acme.token(MANAGE));
    const before = (await endpointsOf(acme.organizationId)).length;
    const error = expectError(
      await asUser(
        production,
        caller,
        'POST',
        '/api/v1/webhooks',
        { url: 'https://1.1.1.1/hook' },
        { headers: { 'x-service-sandbox': 'true' } },
      ),
      403,
      'forbidden',
    );
    expect(error.message).toMatch(/Sandbox mode is not enabled/);
    expect(await endpointsOf(acme.organizationId)).toHaveLength(before);
  });
});

/** The delivery record once it has left `pending`. */
async function settledDelivery(organizationId: string, deliveryId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const record = await getWebhookDelivery(harness.ctx, organizationId, deliveryId);
    if (record.status !== 'pending') return record;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} still pending`);
    await delay(50);
  }
}
