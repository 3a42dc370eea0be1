// The development capture (GET /api/dev/notifications) holds every organization's signing links and codes:
// it answers only clients on this machine (loopback), also behind a trusted proxy, and never in production;
// its `kind` filter takes every kind the capture keeps.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CAPTURED_NOTIFICATION_KINDS } from '../../domain/vocabulary.ts';
import { captureNotification } from '../../notifications/dev-capture.ts';
import { type ApiHarness, buildTestApp, openApiHarness } from '../support/api.ts';
import { testConfig } from '../support/context.ts';

let harness: ApiHarness;
beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness.close());

const capture = (remoteAddress: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'GET', url: '/api/dev/notifications?limit=1', remoteAddress, headers });

it('answers loopback clients, IPv4, IPv6 and IPv4-mapped', async () => {
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
    const response = await capture(address);
    expect(response.statusCode, address).toBe(200);
    expect(response.json()).toHaveProperty('notifications');
  }
});

it('refuses any other client with 403 and the error body, whatever it claims in X-Forwarded-For', async () => {
  for (const address of ['203.0.113.9', '10.0.0.7', '::ffff:192.168.1.2', '2001:db8::1']) {
    const response = await capture(address, { 'x-forwarded-for': '127.0.0.1' });
    expect(response.statusCode, address).toBe(403);
    expect(response.json()).toMatchObject({
      error: {
        code: 'forbidden',
        message: expect.stringMatching(/this machine only/),
        request_id: expect.any(String),
      },
    });
  }
});

it('behind a trusted proxy, judges the client the proxy names', async () => {
  const config = testConfig();
  const proxied = await buildTestApp(harness.ctx, {
    ...config,
    api: { ...config.api, trustedProxies: ['127.0.0.1'] },
  });
  try {
    const outside = await proxied.inject({
      method: 'GET',
      url: '/api/dev/notifications',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '198.51.100.4' },
    });
    expect(outside.statusCode).toBe(403);
    const local = await proxied.inject({
      method: 'GET',
      url: '/api/dev/notifications',
      remoteAddress: '127.0.0.1',
    });
    expect(local.statusCode).toBe(200);
  } finally {
    await proxied.close();
  }
});

it('filters by every kind the capture keeps, the account emails and the backoffice code included', async () => {
  const to = `kinds.${randomUUID()}@example.com`;
  const em = harness.ctx.orm.em.fork();
  for (const kind of CAPTURED_NOTIFICATION_KINDS) {
    captureNotification(em, { kind, channel: 'Email', to, body: `A ${kind} message` });
  }
  await em.flush();
  for (const kind of CAPTURED_NOTIFICATION_KINDS) {
    const response = await harness.app.inject({
      method: 'GET',
      url: `/api/dev/notifications?kind=${kind}&to=${encodeURIComponent(to)}`,
      remoteAddress: '127.0.0.1',
    });
    expect(response.statusCode, kind).toBe(200);
    const { notifications } = response.json() as { notifications: { kind: string; body: string }[] };
    expect(notifications.map((notification) => notification.kind)).toEqual([kind]);
  }
});
