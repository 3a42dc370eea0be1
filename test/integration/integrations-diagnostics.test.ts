// The Integrations diagnostics (GET /api/integrations/diagnostics, docs/integrations.md, "Diagnostics") through
// HTTP with signed-in sessions on real PostgreSQL: real /api/v1 requests of an API key and per-minute counters
// written 2 hours, 3 days and 8 days ago; webhook deliveries of each status queued within 24 hours, within 7 days
// and before; the route's figures compared with figures the test works out from what it seeded. Another
// organization's keys, endpoints and deliveries stay out of it, and a role without integrations:read gets 403.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs } from '../support/app-requests.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let owner: SignedInUser;
let member: SignedInUser;
let reader: SignedInUser;
let stranger: SignedInUser;

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const URL = '/api/integrations/diagnostics';

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
  const organizationId = owner.organization.id;
  member = await signedInUser(harness, { role: 'member', organizationId });
  const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
    name: 'Diagnostics',
    permissions: ['integrations:read'],
  });
  reader = await signedInUser(harness, { role: role.id, organizationId });
  stranger = await signedInUser(harness, { role: 'owner', apiEnabled: true });
});
afterAll(() => harness?.close());

async function createKey(as: SignedInUser, name: string) {
  return (await callAs(harness.app, as, 'POST', '/api/api-keys', { name, scopes: ['templates.read'] })) as {
    apiKey: { id: string; clientId: string };
    secret: { clientSecret: string };
  };
}

async function accessToken(clientId: string, clientSecret: string): Promise<string> {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().access_token;
}

async function createEndpoint(as: SignedInUser, path: string): Promise<{ id: string; url: string }> {
  return callAs(harness.app, as, 'POST', '/api/webhooks', {
    url: `http://127.0.0.1:9/${path}`,
    enabled: path !== 'off',
  });
}

interface SeededDelivery {
  id: string;
  endpointId: string;
  status: 'succeeded' | 'failed' | 'pending';
  /** How long ago it was queued. */
  age: number;
}

async function seedStat(clientId: string, age: number, requests: number, errors: number, limited: number) {
  await harness.ctx.orm.em.fork().execute(
    `insert into api_request_stat (oauth_client_id, minute, requests, errors, rate_limited)
       values (?, date_trunc('minute', ?::timestamptz), ?, ?, ?)`,
    [clientId, new Date(Date.now() - age).toISOString(), requests, errors, limited],
  );
}

async function seedDeliveries(
  organizationId: string,
  endpoint: { id: string; url: string },
  list: SeededDelivery[],
) {
  const em = harness.ctx.orm.em.fork();
  for (const delivery of list) {
    const at = new Date(Date.now() - delivery.age);
    await em.execute(
      `insert into webhook_delivery (id, endpoint_id, organization_id, kind, event_id, event_type, event_created_at,
                                     payload, status, attempt_count, last_status_code, last_error, last_attempt_at,
                                     endpoint_url, created_at, updated_at)
         values (?, ?, ?, 'event', ?, 'envelope.completed', ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        delivery.id,
        endpoint.id,
        organizationId,
        randomUUID(),
        at,
        delivery.status,
        delivery.status === 'pending' ? 1 : 5,
        delivery.status === 'failed' ? 500 : delivery.status === 'succeeded' ? 200 : null,
        delivery.status === 'failed' ? 'HTTP 500: receiver down' : null,
        delivery.status === 'pending' ? null : new Date(at.getTime() + 60_000),
        endpoint.url,
        at,
        at,
      ],
    );
  }
}

function deliveries(endpointId: string, status: SeededDelivery['status'], ages: number[]): SeededDelivery[] {
  return ages.map((age) => ({ id: randomUUID(), endpointId, status, age }));
}

/** The figures of a window as the test works them out from what it seeded. */
function expectedDeliveries(list: SeededDelivery[], endpointId: string | null, within: number) {
  const counted = list.filter(
    (delivery) => (endpointId === null || delivery.endpointId === endpointId) && delivery.age < within,
  );
  const count = (status: SeededDelivery['status']) => counted.filter((d) => d.status === status).length;
  const succeeded = count('succeeded');
  const failed = count('failed');
  return {
    succeeded,
    failed,
    pending: count('pending'),
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
  };
}

describe('GET /api/integrations/diagnostics', () => {
  it('counts requests per key and deliveries per endpoint over 24 hours and 7 days, for its organization only', async () => {
    const busy = await createKey(owner, 'Busy');
    const quiet = await createKey(owner, 'Quiet');
    const token = await accessToken(busy.apiKey.clientId, busy.secret.clientSecret);
    const v1 = (url: string) =>
      harness.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect((await v1('/api/v1/templates')).statusCode).toBe(200);
    expect((await v1('/api/v1/templates')).statusCode).toBe(200);
    expect((await v1('/api/v1/usage')).statusCode).toBe(403);
    // Requests: the three above, and counters of other minutes.
    const stats: { client: string; age: number; requests: number; errors: number; limited: number }[] = [
      { client: busy.apiKey.id, age: 2 * HOUR, requests: 20, errors: 6, limited: 4 },
      { client: busy.apiKey.id, age: 3 * DAY, requests: 40, errors: 7, limited: 5 },
      { client: quiet.apiKey.id, age: 5 * DAY, requests: 10, errors: 0, limited: 0 },
      { client: quiet.apiKey.id, age: 8 * DAY, requests: 100, errors: 50, limited: 30 },
    ];
    for (const stat of stats) await seedStat(stat.client, stat.age, stat.requests, stat.errors, stat.limited);

    const hook = await createEndpoint(owner, 'hook');
    const idle = await createEndpoint(owner, 'off');
    const seeded = [
      ...deliveries(hook.id, 'succeeded', [1 * HOUR, 5 * HOUR, 20 * HOUR, 2 * DAY, 6 * DAY, 9 * DAY]),
      ...deliveries(hook.id, 'failed', [3 * HOUR, 4 * DAY, 10 * DAY, 30 * DAY]),
      ...deliveries(hook.id, 'pending', [10 * 60_000]),
    ];
    await seedDeliveries(owner.organization.id, hook, seeded);

    // Another organization: a key with requests, an endpoint with failures.
    const theirs = await createKey(stranger, 'Theirs');
    await seedStat(theirs.apiKey.id, HOUR, 9, 9, 9);
    const theirHook = await createEndpoint(stranger, 'theirs');
    const theirDeliveries = deliveries(theirHook.id, 'failed', [HOUR, 2 * HOUR]);
    await seedDeliveries(stranger.organization.id, theirHook, theirDeliveries);

    // The counters of the real requests are written after each answer went out (api/auth/request-stats.ts).
    await expect
      .poll(async () => (await callAs(harness.app, owner, 'GET', URL)).clients[0].last24Hours.requests)
      .toBe(3 + 20);
    const answer = await callAs(harness.app, reader, 'GET', URL);

    const counts = (client: string, within: number, extra = { requests: 0, errors: 0, rateLimited: 0 }) => {
      const rows = stats.filter((stat) => stat.client === client && stat.age < within);
      const requests = extra.requests + rows.reduce((sum, row) => sum + row.requests, 0);
      const errors = extra.errors + rows.reduce((sum, row) => sum + row.errors, 0);
      return {
        requests,
        errors,
        rateLimited: extra.rateLimited + rows.reduce((sum, row) => sum + row.limited, 0),
        errorRate: requests === 0 ? null : errors / requests,
      };
    };
    const live = { requests: 3, errors: 1, rateLimited: 0 };
    const busyDay = counts(busy.apiKey.id, DAY, live);
    const busyWeek = counts(busy.apiKey.id, 7 * DAY, live);
    const quietDay = counts(quiet.apiKey.id, DAY);
    const quietWeek = counts(quiet.apiKey.id, 7 * DAY);
    expect(busyDay).toEqual({ requests: 23, errors: 7, rateLimited: 4, errorRate: 7 / 23 });
    expect(quietWeek).toEqual({ requests: 10, errors: 0, rateLimited: 0, errorRate: 0 });
    const sum = (a: typeof busyDay, b: typeof busyDay) => {
      const requests = a.requests + b.requests;
      const errors = a.errors + b.errors;
      return { requests, errors, rateLimited: a.rateLimited + b.rateLimited, errorRate: errors / requests };
    };

    expect(answer).toEqual({
      generatedAt: expect.any(String),
      apiAccess: true,
      webhookAccess: true,
      clients: [
        {
          id: busy.apiKey.id,
          clientId: busy.apiKey.clientId,
          name: 'Busy',
          lastUsedAt: expect.any(String),
          last24Hours: busyDay,
          last7Days: busyWeek,
          rateLimit: expect.objectContaining({ windowSeconds: 60, standard: expect.any(Object) }),
        },
        {
          id: quiet.apiKey.id,
          clientId: quiet.apiKey.clientId,
          name: 'Quiet',
          lastUsedAt: null,
          last24Hours: { requests: 0, errors: 0, rateLimited: 0, errorRate: null },
          last7Days: quietWeek,
          rateLimit: expect.objectContaining({ windowSeconds: 60 }),
        },
      ],
      totals: { last24Hours: sum(busyDay, quietDay), last7Days: sum(busyWeek, quietWeek) },
      webhookEndpoints: [
        {
          id: hook.id,
          url: hook.url,
          enabled: true,
          last24Hours: expectedDeliveries(seeded, hook.id, DAY),
          last7Days: expectedDeliveries(seeded, hook.id, 7 * DAY),
        },
        {
          id: idle.id,
          url: idle.url,
          enabled: false,
          last24Hours: { succeeded: 0, failed: 0, pending: 0, successRate: null },
          last7Days: { succeeded: 0, failed: 0, pending: 0, successRate: null },
        },
      ],
      webhookTotals: {
        last24Hours: expectedDeliveries(seeded, null, DAY),
        last7Days: expectedDeliveries(seeded, null, 7 * DAY),
      },
      // The failures of the last 7 days, newest first; the older ones are not listed.
      recentFailures: seeded
        .filter((delivery) => delivery.status === 'failed' && delivery.age < 7 * DAY)
        .sort((a, b) => a.age - b.age)
        .map((delivery) => ({
          id: delivery.id,
          endpointId: hook.id,
          endpointUrl: hook.url,
          eventType: 'envelope.completed',
          attemptCount: 5,
          lastStatusCode: 500,
          lastError: 'HTTP 500: receiver down',
          createdAt: expect.any(String),
          lastAttemptAt: expect.any(String),
        })),
    });
    // The figures spelled out once, so a mistake in the helpers cannot hide one in the route.
    expect(answer.webhookEndpoints[0].last24Hours).toEqual({
      succeeded: 3,
      failed: 1,
      pending: 1,
      successRate: 0.75,
    });
    expect(answer.webhookEndpoints[0].last7Days).toEqual({
      succeeded: 5,
      failed: 2,
      pending: 1,
      successRate: 5 / 7,
    });
    expect(answer.recentFailures).toHaveLength(2);

    // The other organization sees only its own.
    const other = await callAs(harness.app, stranger, 'GET', URL);
    expect(other.clients.map((client: { id: string }) => client.id)).toEqual([theirs.apiKey.id]);
    expect(other.totals.last24Hours).toEqual({ requests: 9, errors: 9, rateLimited: 9, errorRate: 1 });
    expect(other.webhookEndpoints.map((endpoint: { id: string }) => endpoint.id)).toEqual([theirHook.id]);
    expect(other.webhookTotals.last24Hours).toEqual({ succeeded: 0, failed: 2, pending: 0, successRate: 0 });
    expect(other.recentFailures.map((failure: { id: string }) => failure.id).sort()).toEqual(
      theirDeliveries.map((delivery) => delivery.id).sort(),
    );
    const ours = JSON.stringify(answer);
    expect(ours).not.toContain(theirs.apiKey.id);
    expect(ours).not.toContain(theirHook.id);

    // The webhooks list's 7-day figures are the same counting.
    const list = await callAs(harness.app, owner, 'GET', '/api/webhooks');
    const listed = list.endpoints.find((endpoint: { id: string }) => endpoint.id === hook.id);
    const { successRate: _, ...week } = answer.webhookEndpoints[0].last7Days;
    expect(listed.recentDeliveries).toEqual(week);
  });

  it('refuses a role without integrations:read with 403 naming it', async () => {
    const response = await asUser(harness.app, member, 'GET', URL);
    expect(response.statusCode, response.body).toBe(403);
    const body = response.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({
      code: 'forbidden',
      message: expect.any(String),
      details: [expect.objectContaining({ permission: 'integrations:read' })],
      request_id: response.headers['x-request-id'],
    });
    const signedOut = await harness.app.inject({ method: 'GET', url: URL });
    expect(signedOut.statusCode).toBe(401);
  });

  it('answers an organization without keys or endpoints with empty lists and null rates', async () => {
    const starter = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    expect(await callAs(harness.app, starter, 'GET', URL)).toEqual({
      generatedAt: expect.any(String),
      apiAccess: false,
      webhookAccess: false,
      clients: [],
      totals: {
        last24Hours: { requests: 0, errors: 0, rateLimited: 0, errorRate: null },
        last7Days: { requests: 0, errors: 0, rateLimited: 0, errorRate: null },
      },
      webhookEndpoints: [],
      webhookTotals: {
        last24Hours: { succeeded: 0, failed: 0, pending: 0, successRate: null },
        last7Days: { succeeded: 0, failed: 0, pending: 0, successRate: null },
      },
      recentFailures: [],
    });
  });
});
