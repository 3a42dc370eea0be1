// The public API's rate limiter against the real schema: plan limits, organization overrides, the heavy
// bucket, Enterprise defaults, per-client buckets, and one counter shared by several API processes.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createServer } from '../../api/http/server.ts';
import {
  createRateLimiter,
  type RateLimiterDeps,
  type RateLimiterOptions,
} from '../../api/plugins/rate-limit.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import type { PlanName } from '../../domain/vocabulary.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { resolveLimits, windowFor } from '../../services/usage/rate-limit-policy.ts';
import { newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { signedInAdmin } from '../support/backoffice.ts';
import { servicesOn, testConfig } from '../support/context.ts';

const logger = pino({ level: 'silent' });
const config = testConfig();
// A fixed clock 30 s into the current minute: a test's requests never straddle a window edge, and every
// answer carries RateLimit-Reset 30.
const fixedNow = new Date(windowFor(new Date()).start.getTime() + 30_000);
const fixedClock: RateLimiterOptions = { now: () => fixedNow, cleanupProbability: 0 };

let orm: Orm;
const apps: FastifyInstance[] = [];

/** A bare server with a test principal (from headers), the rate limiter, one ordinary and one heavy route. */
function buildTestApp(
  deps: Partial<RateLimiterDeps> = {},
  options: RateLimiterOptions = fixedClock,
  phase: 'preHandler' | 'onRequest' = 'preHandler',
): FastifyInstance {
  const app = createServer({ logger });
  app.addHook(phase, async (request) => {
    const organizationId = request.headers['x-test-organization'];
    const oauthClientId = request.headers['x-test-client'];
    if (typeof organizationId === 'string' && typeof oauthClientId === 'string') {
      request.principal = { organizationId, oauthClientId, clientId: `test_${oauthClientId}`, scopes: [] };
    }
  });
  app.addHook(phase, createRateLimiter({ orm, config, ...deps }, options));
  app.get('/ping', async () => ({ ok: true }));
  app.post('/upload', { config: { heavy: true } }, async () => ({ uploaded: true }));
  apps.push(app);
  return app;
}

/** An API client as the test principal sees it: its organization and client ids, sent as headers. */
interface TestClient {
  organizationId: string;
  oauthClientId: string;
  headers: Record<string, string>;
}

function testClient(organizationId: string, oauthClientId = randomUUID()): TestClient {
  return {
    organizationId,
    oauthClientId,
    headers: { 'x-test-organization': organizationId, 'x-test-client': oauthClientId },
  };
}

async function organizationOn(
  plan: PlanName,
  overrides: { rate?: number | null; uploadRate?: number | null } = {},
): Promise<string> {
  const organization = await createOrganization(servicesOn(orm), {
    name: `Rate ${plan}`,
    plan,
    apiEnabled: true,
  });
  await orm.em
    .getConnection()
    .execute(
      'update organization set rate_limit_per_minute = ?, upload_rate_limit_per_minute = ? where id = ?',
      [overrides.rate ?? null, overrides.uploadRate ?? null, organization.id],
    );
  return organization.id;
}

async function newCaller(plan: PlanName, overrides: Parameters<typeof organizationOn>[1] = {}) {
  return testClient(await organizationOn(plan, overrides));
}

/** Sends `count` requests that must all pass; returns the RateLimit-Remaining values seen. */
async function spend(
  app: FastifyInstance,
  caller: TestClient,
  count: number,
  route: 'ping' | 'upload' = 'ping',
) {
  const remaining: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await asUser(app, caller, route === 'ping' ? 'GET' : 'POST', `/${route}`);
    expect(response.statusCode, `request ${i + 1} of ${count}`).toBe(200);
    remaining.push(Number(response.headers['ratelimit-remaining']));
  }
  return remaining;
}

function countdown(limit: number, count = limit): number[] {
  return Array.from({ length: count }, (_, i) => limit - 1 - i);
}

beforeAll(async () => {
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 4 });
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await orm.close();
});

describe('windowFor', () => {
  it('maps an instant to its minute and the whole seconds left in it', () => {
    expect(windowFor(new Date('2030-01-01T12:00:00.000Z'))).toEqual({
      start: new Date('2030-01-01T12:00:00.000Z'),
      resetSeconds: 60,
    });
    expect(windowFor(new Date('2030-01-01T12:00:30.200Z'))).toEqual({
      start: new Date('2030-01-01T12:00:00.000Z'),
      resetSeconds: 30,
    });
    expect(windowFor(new Date('2030-01-01T12:00:59.999Z'))).toEqual({
      start: new Date('2030-01-01T12:00:00.000Z'),
      resetSeconds: 1,
    });
  });
});

describe('resolveLimits', () => {
  const defaults = { enterpriseRatePerMinute: 1200, enterpriseUploadRatePerMinute: 200 };
  const unset = { ratePerMinute: null, uploadRatePerMinute: null };

  it('uses the plan, then the organization override, then the configured default', () => {
    expect(resolveLimits({ ratePerMinute: 60, uploadRatePerMinute: 10 }, unset, defaults)).toEqual({
      standard: 60,
      heavy: 10,
    });
    expect(
      resolveLimits(
        { ratePerMinute: 180, uploadRatePerMinute: 30 },
        { ratePerMinute: 500, uploadRatePerMinute: 50 },
        defaults,
      ),
    ).toEqual({ standard: 500, heavy: 50 });
    expect(resolveLimits(unset, unset, defaults)).toEqual({ standard: 1200, heavy: 200 });
    expect(resolveLimits(unset, { ratePerMinute: 300, uploadRatePerMinute: null }, defaults)).toEqual({
      standard: 300,
      heavy: 200,
    });
  });

  it('never lets the heavy limit exceed the ordinary one', () => {
    expect(
      resolveLimits({ ratePerMinute: 60, uploadRatePerMinute: 10 }, { ...unset, ratePerMinute: 5 }, defaults),
    ).toEqual({ standard: 5, heavy: 5 });
  });
});

describe('rate limiting', () => {
  it('allows a Professional client 60 requests a minute, then answers 429 with the error body', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Professional');
    const first = await asUser(app, caller, 'GET', '/ping');
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '60',
      'ratelimit-remaining': '59',
      'ratelimit-reset': '30',
      'ratelimit-policy': '60;w=60',
    });
    expect(await spend(app, caller, 59)).toEqual(countdown(60).slice(1));

    const refused = await asUser(app, caller, 'GET', '/ping');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers).toMatchObject({
      'retry-after': '30',
      'ratelimit-limit': '60',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '30',
      'ratelimit-policy': '60;w=60',
    });
    expect(refused.headers['x-request-id']).toBeTruthy();
    const body = refused.json();
    expect(body).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.stringMatching(/60 requests per minute/),
        details: [],
        request_id: refused.headers['x-request-id'],
      },
    });
    expect(body.error.message).toMatch(/60-second window/);
    expect(body.error.message).toMatch(/30 seconds/);
  });

  it('counts heavy routes in a separate, lower bucket', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Professional');
    expect(await spend(app, caller, 10, 'upload')).toEqual(countdown(10));
    const refused = await asUser(app, caller, 'POST', '/upload');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('10');
    expect(refused.headers['ratelimit-policy']).toBe('10;w=60');
    expect(refused.json().error.message).toMatch(/10 upload and other heavy requests per minute/);

    // The ordinary bucket is untouched by the uploads.
    const ordinary = await asUser(app, caller, 'GET', '/ping');
    expect(ordinary.statusCode).toBe(200);
    expect(ordinary.headers['ratelimit-limit']).toBe('60');
    expect(ordinary.headers['ratelimit-remaining']).toBe('59');
  });

  it('lets the organization’s own limit override its plan', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Business', { rate: 5 });
    expect(await spend(app, caller, 5)).toEqual(countdown(5));
    const refused = await asUser(app, caller, 'GET', '/ping');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('5');
  });

  it('gives an Enterprise organization its own limits', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Enterprise', { rate: 4, uploadRate: 2 });
    expect(await spend(app, caller, 4)).toEqual(countdown(4));
    expect((await asUser(app, caller, 'GET', '/ping')).statusCode).toBe(429);
    expect(await spend(app, caller, 2, 'upload')).toEqual(countdown(2));
    const refused = await asUser(app, caller, 'POST', '/upload');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('2');
  });

  it('gives an Enterprise organization without limits of its own the configured defaults', async () => {
    const app = buildTestApp({
      config: { api: { ...config.api, enterpriseRatePerMinute: 3, enterpriseUploadRatePerMinute: 2 } },
    });
    const caller = await newCaller('Enterprise');
    expect(await spend(app, caller, 3)).toEqual(countdown(3));
    const refused = await asUser(app, caller, 'GET', '/ping');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('3;w=60');
    expect(await spend(app, caller, 2, 'upload')).toEqual(countdown(2));
    expect((await asUser(app, caller, 'POST', '/upload')).statusCode).toBe(429);
  });

  it('shares one counter between API processes on the same database', async () => {
    const otherOrm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
    try {
      const first = buildTestApp();
      const second = buildTestApp({ orm: otherOrm });
      const caller = await newCaller('Premium', { rate: 4 });
      const remaining: string[] = [];
      for (const app of [first, second, first, second]) {
        const response = await asUser(app, caller, 'GET', '/ping');
        expect(response.statusCode).toBe(200);
        remaining.push(String(response.headers['ratelimit-remaining']));
      }
      expect(remaining).toEqual(['3', '2', '1', '0']);
      expect((await asUser(first, caller, 'GET', '/ping')).statusCode).toBe(429);
      expect((await asUser(second, caller, 'GET', '/ping')).statusCode).toBe(429);
    } finally {
      await otherOrm.close();
    }
  });

  it('gives another client of the same organization its own bucket', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Professional', { rate: 3 });
    await spend(app, caller, 3);
    expect((await asUser(app, caller, 'GET', '/ping')).statusCode).toBe(429);

    const colleague = testClient(caller.organizationId);
    const response = await asUser(app, colleague, 'GET', '/ping');
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-remaining']).toBe('2');
  });

  it('starts counting again in the next window', async () => {
    let now = fixedNow;
    const app = buildTestApp({}, { now: () => now, cleanupProbability: 0 });
    const caller = await newCaller('Professional', { rate: 2 });
    await spend(app, caller, 2);
    expect((await asUser(app, caller, 'GET', '/ping')).statusCode).toBe(429);
    now = new Date(fixedNow.getTime() + 45_000);
    const next = await asUser(app, caller, 'GET', '/ping');
    expect(next.statusCode).toBe(200);
    expect(next.headers['ratelimit-remaining']).toBe('1');
    expect(next.headers['ratelimit-reset']).toBe('45');
  });

  it('reads an organization’s limits on every request, so a change applies at once', async () => {
    const app = buildTestApp();
    const caller = await newCaller('Professional');
    expect((await asUser(app, caller, 'GET', '/ping')).headers['ratelimit-limit']).toBe('60');
    await orm.em
      .getConnection()
      .execute('update organization set rate_limit_per_minute = 7 where id = ?', [caller.organizationId]);
    expect((await asUser(app, caller, 'GET', '/ping')).headers['ratelimit-limit']).toBe('7');
  });

  it('works as an onRequest hook too, refusing before the body is read', async () => {
    const app = buildTestApp({}, fixedClock, 'onRequest');
    const caller = await newCaller('Professional', { uploadRate: 1 });
    expect(await spend(app, caller, 1, 'upload')).toEqual([0]);
    const refused = await asUser(app, caller, 'POST', '/upload');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('1');
  });

  it('leaves requests without a principal alone', async () => {
    const app = buildTestApp();
    const response = await app.inject({ method: 'GET', url: '/ping' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-limit']).toBeUndefined();
  });

  it('deletes windows older than five minutes now and then', async () => {
    const app = buildTestApp({}, { cleanupProbability: 1 });
    const current = windowFor(new Date()).start.getTime();
    const bucket = `cleanup-test:${randomUUID()}`;
    const old = new Date(current - 10 * 60_000).toISOString();
    const recent = new Date(current - 2 * 60_000).toISOString();
    await orm.em
      .getConnection()
      .execute(
        'insert into rate_limit_window (bucket, window_start, count) values (?, ?::timestamptz, 1), (?, ?::timestamptz, 1)',
        [bucket, old, bucket, recent],
      );
    expect((await asUser(app, await newCaller('Professional'), 'GET', '/ping')).statusCode).toBe(200);
    await vi.waitFor(async () => {
      const rows = await orm.em
        .getConnection()
        .execute<{ window_start: unknown }[]>('select window_start from rate_limit_window where bucket = ?', [
          bucket,
        ]);
      expect(rows).toHaveLength(1);
    });
    const [kept] = await orm.em
      .getConnection()
      .execute<{ kept: boolean }[]>(
        'select window_start = ?::timestamptz as kept from rate_limit_window where bucket = ?',
        [recent, bucket],
      );
    expect(kept?.kept).toBe(true);
  });
});

describe('leases: several positions per statement, the limit exact across processes', () => {
  /** An ORM that counts its rate_limit_window upserts. */
  async function countingOrm() {
    const counted = { upserts: 0 };
    const counting = await createOrm({
      databaseUrl: inject('databaseUrl'),
      poolMax: 4,
      onQuery: (sql) => {
        if (/insert into rate_limit_window/i.test(sql)) counted.upserts += 1;
      },
    });
    return { orm: counting, counted };
  }

  it('takes one statement for many requests while plenty of the window is left', async () => {
    const { orm: counting, counted } = await countingOrm();
    try {
      const app = buildTestApp({ orm: counting });
      const caller = await newCaller('Enterprise', { rate: 100_000 });
      const remaining = await spend(app, caller, 200);
      // Every request still gets its own position: the countdown is exact in one process.
      expect(remaining).toEqual(countdown(100_000, 200));
      // The first position alone, then leases of 64: 1 + ceil(199 / 64) = 5 statements for 200 requests.
      expect(counted.upserts).toBe(5);
      const [row] = await counting.em
        .getConnection()
        .execute<{ count: number }[]>('select count from rate_limit_window where bucket like ?', [
          `${caller.oauthClientId}:%`,
        ]);
      // The shared count runs ahead of the requests by the positions leased and not yet handed out.
      expect(Number(row?.count)).toBe(1 + 4 * 64);
    } finally {
      await counting.close();
    }
  });

  it('admits exactly the limit across two processes under concurrent load, then refuses each request', async () => {
    const processes = [await countingOrm(), await countingOrm()];
    try {
      const apps = processes.map((process) => buildTestApp({ orm: process.orm }));
      const caller = await newCaller('Enterprise', { rate: 500 });
      // 1,200 requests, 8 at a time in each process.
      const statuses: number[] = [];
      await Promise.all(
        apps.flatMap((app) =>
          Array.from({ length: 8 }, async () => {
            for (let i = 0; i < 75; i++)
              statuses.push((await asUser(app, caller, 'GET', '/ping')).statusCode);
          }),
        ),
      );
      expect(statuses).toHaveLength(1200);
      expect(statuses.filter((status) => status === 200)).toHaveLength(500);
      expect(statuses.filter((status) => status === 429)).toHaveLength(700);
      // Each refusal takes a statement (it is counted); the 500 admitted requests took leases, far fewer.
      const upserts = processes.reduce((sum, process) => sum + process.counted.upserts, 0);
      expect(upserts).toBeGreaterThanOrEqual(700);
      expect(upserts).toBeLessThan(700 + 500 / 4);
      const [row] = await orm.em
        .getConnection()
        .execute<{ count: number }[]>('select count from rate_limit_window where bucket like ?', [
          `${caller.oauthClientId}:%`,
        ]);
      expect(Number(row?.count)).toBeGreaterThanOrEqual(1200);
    } finally {
      for (const process of processes) await process.orm.close();
    }
  });
});

describe('a platform administrator’s change of limits (issue 30)', () => {
  it('applies to the next request of the public API, lowering and raising', async () => {
    const harness = await openApiHarness();
    try {
      const admin = await signedInAdmin(harness, 'rates');
      const integrator = await newIntegrator(harness);
      const auth = await integrator.auth(['templates.read']);
      const list = () => harness.app.inject({ method: 'GET', url: '/api/v1/templates', headers: auth });
      const agree = async (ratePerMinute: number) => {
        const response = await harness.app.inject({
          method: 'PUT',
          url: `/api/backoffice/organizations/${integrator.organizationId}`,
          headers: admin.headers,
          payload: { plan: 'Enterprise', ratePerMinute },
        });
        expect(response.statusCode, response.body).toBe(200);
      };
      // The requests below must fall in one window: start with at least 20 s of it left.
      const left = windowFor(new Date()).resetSeconds;
      if (left < 20) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));

      expect((await list()).headers['ratelimit-limit']).toBe('180'); // the integrator's plan: Business
      await agree(3);
      const lowered = [];
      for (let i = 0; i < 5; i++) lowered.push(await list());
      expect(new Set(lowered.map((response) => response.headers['ratelimit-limit']))).toEqual(new Set(['3']));
      // One request was counted before the change: two more pass, then every one is refused.
      expect(lowered.map((response) => response.statusCode)).toEqual([200, 200, 429, 429, 429]);

      await agree(500);
      const raised = await list();
      expect(raised.statusCode).toBe(200);
      expect(raised.headers['ratelimit-limit']).toBe('500');
    } finally {
      await harness.close();
    }
  });
});
