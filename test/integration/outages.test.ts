// A dependency that is down answers 503 `service_unavailable` with Retry-After and the error body, quickly
// (issue 13, defect 13): never a 500, never a hang.
//   - PostgreSQL stopped (a fault proxy in front of it refusing connections): a /api/v1 route, a signer route
//     and an application route answer 503; /api/health still names the database; everything answers again
//     once PostgreSQL is back.
//   - Every envelope worker stopped (a namespace of this file's own whose only worker the test shuts down):
//     send and cancel answer 503 within TEMPORAL_REQUEST_TIMEOUT_MS, saying the outcome is unknown; once a
//     worker is back, the same requests with the same Idempotency-Key are applied exactly once.
//   - Temporal unreachable (a client on a closed port): send answers 503 within about a second (the breaker's
//     probe finds the port refused), and a webhook test delivery then at once (the breaker is open).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../config/config.ts';
import { AuditEvent } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { ensureSearchAttributes } from '../../temporal/search-attributes.ts';
import { createEnvelopeWorker } from '../../temporal/worker/worker.ts';
import {
  type ApiHarness,
  buildTestApp,
  type Integrator,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { freePort } from '../support/infrastructure.ts';
import { type PgFaultProxy, startPgFaultProxy } from '../support/pg-fault-proxy.ts';

/** The Temporal deadline of the apps in this file; answers must come within it and a margin. */
const TIMEOUT_MS = 2_000;
const MARGIN_MS = 1_500;

let harness: ApiHarness;
let acme: Integrator;
let auth: { authorization: string };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  auth = await acme.auth();
});
afterAll(() => harness?.close());

function configWithDeadline() {
  return loadConfig({
    SIGIL_ENV: 'test',
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
    TEMPORAL_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
  });
}

/** The error body of a 503 with Retry-After, as every transport answers it. */
function expectUnavailable(response: LightMyRequestResponse, message: RegExp) {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.headers['retry-after']).toBe('5');
  expect(response.json()).toEqual({
    error: {
      code: 'service_unavailable',
      message: expect.stringMatching(message),
      details: expect.any(Array),
      request_id: response.headers['x-request-id'],
    },
  });
}

async function timed<T>(request: () => Promise<T>): Promise<{ response: T; elapsedMs: number }> {
  const started = Date.now();
  const response = await request();
  return { response, elapsedMs: Date.now() - started };
}

function createBody() {
  return {
    title: 'Outage agreement',
    templateId: acme.templateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ],
  };
}

async function draftOn(app: FastifyInstance): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: auth,
    payload: createBody(),
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

describe('PostgreSQL down', () => {
  let proxy: PgFaultProxy;
  let orm: Orm;
  let app: FastifyInstance;

  beforeAll(async () => {
    proxy = await startPgFaultProxy(inject('databaseUrl'));
    orm = await createOrm({ databaseUrl: proxy.url, poolMax: 4 });
    app = await buildTestApp({ ...harness.ctx, orm });
  });
  afterAll(async () => {
    await app?.close();
    await orm?.close();
    await proxy?.close();
  });

  const routes = [
    { name: 'a /api/v1 route', url: '/api/v1/templates', up: 200, withToken: true },
    { name: 'a signer route', url: `/api/signing/${'t'.repeat(43)}`, up: 404, withToken: false },
    { name: 'an application route', url: '/api/plans', up: 200, withToken: false },
  ];

  it('answers 503 with Retry-After on every kind of route, and again normally once it is back', async () => {
    for (const route of routes) {
      const response = await app.inject({
        method: 'GET',
        url: route.url,
        ...(route.withToken ? { headers: auth } : {}),
      });
      expect(response.statusCode, `${route.name} before the outage`).toBe(route.up);
    }

    await proxy.stop();
    for (const route of routes) {
      const { response, elapsedMs } = await timed(() =>
        app.inject({ method: 'GET', url: route.url, ...(route.withToken ? { headers: auth } : {}) }),
      );
      expectUnavailable(response, /database is unavailable/);
      expect(elapsedMs, route.name).toBeLessThan(MARGIN_MS);
    }
    // The health check keeps its own answer.
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'unavailable', db: 'unavailable', temporal: 'ok' });

    await proxy.start();
    for (const route of routes) {
      const response = await app.inject({
        method: 'GET',
        url: route.url,
        ...(route.withToken ? { headers: auth } : {}),
      });
      expect(response.statusCode, `${route.name} after the outage`).toBe(route.up);
    }
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});

describe('every envelope worker down', () => {
  const namespace = `sigil-outage-${randomUUID().slice(0, 8)}`;
  let connection: Connection;
  let native: NativeConnection;
  let app: FastifyInstance;
  let worker: { worker: Worker; running: Promise<void> } | undefined;

  async function startWorker() {
    const created = await createEnvelopeWorker({
      connection: native,
      namespace,
      activities: createActivities({
        orm: harness.ctx.orm,
        notifications: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
      }),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    worker = { worker: created, running: created.run() };
  }

  async function stopWorker() {
    if (!worker) return;
    worker.worker.shutdown();
    await worker.running;
    worker = undefined;
  }

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    // A new namespace takes a moment to be known to every part of the server.
    for (let attempt = 0; ; attempt++) {
      try {
        await ensureSearchAttributes(connection, namespace);
        break;
      } catch (error) {
        if (attempt > 50) throw error;
        await sleep(200);
      }
    }
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection, namespace });
    app = await buildApp({
      config: configWithDeadline(),
      orm: harness.ctx.orm,
      temporal: { connection, client, namespace },
      logger: pino({ level: 'silent' }),
    });
    await startWorker();
  });
  afterAll(async () => {
    await stopWorker();
    await app?.close();
    await native?.close();
    await connection?.close();
  });

  it('answers 503 within the deadline, and the same requests with the same key apply once later', async () => {
    const sentId = await draftOn(app);
    // A new namespace's first workflow may wait for the server to settle: allow it a few attempts.
    for (let attempt = 0; ; attempt++) {
      const send = await asUser(
        app,
        { headers: auth },
        'POST',
        `/api/v1/envelopes/${sentId}/send`,
        undefined,
        { idempotencyKey: `first-send-${sentId}` },
      );
      if (send.statusCode === 200) break;
      if (attempt > 10) throw new Error(`the send did not succeed: ${send.body}`);
      await sleep(500);
    }
    const draftId = await draftOn(app);
    await stopWorker();

    const cancelKey = randomUUID();
    const cancel = await timed(() =>
      asUser(
        app,
        { headers: auth },
        'POST',
        `/api/v1/envelopes/${sentId}/cancel`,
        { reason: 'Worker outage' },
        { idempotencyKey: cancelKey },
      ),
    );
    expectUnavailable(cancel.response, /not confirmed.*may still be applied.*same Idempotency-Key/s);
    expect(cancel.response.json().error.details).toEqual([
      { message: 'outcome unknown', outcome: 'unknown' },
    ]);
    expect(cancel.elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(cancel.elapsedMs).toBeLessThan(TIMEOUT_MS + MARGIN_MS);

    const sendKey = randomUUID();
    const send = await timed(() =>
      asUser(app, { headers: auth }, 'POST', `/api/v1/envelopes/${draftId}/send`, undefined, {
        idempotencyKey: sendKey,
      }),
    );
    expectUnavailable(send.response, /not confirmed.*may still be applied/s);
    expect(send.elapsedMs).toBeLessThan(TIMEOUT_MS + MARGIN_MS);

    await startWorker();
    for (const [path, key, body, status] of [
      [`/api/v1/envelopes/${sentId}/cancel`, cancelKey, { reason: 'Worker outage' }, 'Cancelled'],
      [`/api/v1/envelopes/${draftId}/send`, sendKey, undefined, 'Sent'],
    ] as const) {
      let response = await asUser(app, { headers: auth }, 'POST', path, body, { idempotencyKey: key });
      // The restarted worker picks the admitted Updates up once the server hands their tasks over.
      for (let waited = 0; response.statusCode === 503 && waited < 30_000; waited += 500) {
        await sleep(500);
        response = await asUser(app, { headers: auth }, 'POST', path, body, { idempotencyKey: key });
      }
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().status).toBe(status);
    }
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(AuditEvent, { envelopeId: sentId, type: 'envelope.cancelled' })).toBe(1);
    expect(await em.count(AuditEvent, { envelopeId: draftId, type: 'envelope.sent' })).toBe(1);
  });
});

describe('Temporal unreachable', () => {
  let app: FastifyInstance;
  let connection: Connection;

  beforeAll(async () => {
    // Nothing listens there: every call is refused until the deadline.
    connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    const client = new Client({ connection, namespace: inject('namespace') });
    app = await buildApp({
      config: configWithDeadline(),
      orm: harness.ctx.orm,
      temporal: { connection, client, namespace: inject('namespace') },
      logger: pino({ level: 'silent' }),
    });
  });
  // The client's gRPC retry interceptor keeps retrying a refused call on timers after the API has answered
  // (up to 10 attempts, backing off to 5 s: about 20 s in all). Closing the connection while one is pending makes
  // that timer throw "Channel has been shut down" outside any test (an unhandled error that fails the run), so
  // the connection is closed only once the last call's retries are over.
  let lastCallAt = 0;
  afterAll(async () => {
    await app?.close();
    const retriesOver = lastCallAt + 22_000 - Date.now();
    if (retriesOver > 0) await new Promise((resolve) => setTimeout(resolve, retriesOver));
    await connection?.close();
  });

  it('answers a send with 503 within about a second, and a webhook test delivery then at once', async () => {
    const draftId = await draftOn(app);
    const send = await timed(() =>
      app.inject({ method: 'POST', url: `/api/v1/envelopes/${draftId}/send`, headers: auth }),
    );
    expectUnavailable(send.response, /not confirmed.*Check the envelope's state/s);
    // The breaker (temporal/breaker.ts) probes the address after half a second and finds it refused: well within
    // the deadline.
    expect(send.elapsedMs).toBeLessThan(Math.min(TIMEOUT_MS, 1_500));

    const endpoint = await createWebhookEndpoint(harness.ctx, {
      organizationId: acme.organizationId,
      url: 'http://127.0.0.1:9/hooks',
    });
    const test = await timed(() =>
      app.inject({ method: 'POST', url: `/api/v1/webhooks/${endpoint.id}/test`, headers: auth }),
    );
    lastCallAt = Date.now();
    expectUnavailable(test.response, /Temporal is not reachable/);
    // The breaker is open now: refused at once.
    expect(test.elapsedMs).toBeLessThan(500);
  });
});
