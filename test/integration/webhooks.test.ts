// Webhooks through the public API and the shared worker (task queue `webhooks`) on the Temporal dev server:
// signed test deliveries, Idempotency-Key, replay after the endpoint is fixed, secret rotation with its grace
// period, the plan feature, scopes, other organizations, and the fan-out of a lifecycle event. The receiver
// is a real HTTP server on 127.0.0.1 that checks every signature with its own HMAC code.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Organization, WebhookDelivery, WebhookEndpoint } from '../../db/entities/index.ts';
import { queueWebhookEventDeliveries, webhookPayloadBody } from '../../db/webhook-deliveries.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { getWebhookDelivery } from '../../services/webhooks/list-webhook-deliveries.ts';
import { rotateWebhookSecret } from '../../services/webhooks/rotate-webhook-secret.ts';
import { sendTestDelivery } from '../../services/webhooks/send-test-delivery.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  type WebhookEvent,
  webhookDeliveryChildOptions,
  webhookDeliveryWorkflowId,
} from '../../workflows/webhook-contracts.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import {
  deliveryIdOf,
  type ReceivedRequest,
  startWebhookReceiver,
  verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

let harness: ApiHarness;
let receiver: WebhookReceiver;
let acme: Integrator;
let other: Integrator;

beforeAll(async () => {
  harness = await openApiHarness();
  receiver = await startWebhookReceiver();
  acme = await newIntegrator(harness);
  other = await newIntegrator(harness);
});
afterAll(async () => {
  await receiver?.close();
  await harness?.close();
});

async function endpointFor(
  organizationId: string,
  options: { eventTypes?: string[]; enabled?: boolean } = {},
) {
  const path = `/hooks/${randomUUID()}`;
  const endpoint = await createWebhookEndpoint(harness.ctx, {
    organizationId,
    url: `${receiver.url}${path}`,
    eventTypes: options.eventTypes as never,
    enabled: options.enabled,
  });
  return { endpoint, path, ours: (request: ReceivedRequest) => request.path === path };
}

/** The delivery record once it has left `pending` (or has `attempts` attempts). */
async function settled(organizationId: string, deliveryId: string, attempts = 1) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const record = await getWebhookDelivery(harness.ctx, organizationId, deliveryId);
    if (record.status !== 'pending' || record.attemptCount >= attempts) return record;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} still pending`);
    await delay(50);
  }
}

describe('POST /api/v1/webhooks/{id}/test', () => {
  it('delivers a signed sample event that the receiver verifies and acknowledges', async () => {
    const { endpoint, ours } = await endpointFor(acme.organizationId);
    const response = await asUser(
      harness.app,
      {
        headers: {
          ...(await acme.auth(['webhooks.manage'])),
          'x-request-id': 'test-delivery-request-1',
        },
      },
      'POST',
      `/api/v1/webhooks/${endpoint.id}/test`,
    );
    expect(response.statusCode).toBe(202);
    const queued = response.json();
    expect(queued).toMatchObject({
      endpointId: endpoint.id,
      kind: 'test',
      eventType: 'envelope.completed',
      status: 'pending',
      attemptCount: 0,
      requestId: 'test-delivery-request-1',
      replayOf: null,
    });

    const [request] = await receiver.waitFor(1, ours);
    if (!request) throw new Error('no request');
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(deliveryIdOf(request)).toBe(queued.id);
    expect(request.headers['x-service-event']).toBe('envelope.completed');
    const timestamp = Number(request.headers['x-service-timestamp']);
    expect(String(timestamp)).toMatch(/^\d{10}$/);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(verifies(request, endpoint.secret)).toBe(true);
    expect(verifies(request, `${endpoint.secret}x`)).toBe(false);
    expect(request.headers['x-service-signature-previous']).toBeUndefined();

    const payload = JSON.parse(request.rawBody);
    expect(Object.keys(payload)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(payload).toMatchObject({
      id: queued.eventId,
      type: 'envelope.completed',
      data: { envelope_id: '00000000-0000-4000-8000-000000000000', status: 'Completed', test: true },
    });
    expect(new Date(payload.created_at).toISOString()).toBe(payload.created_at);
    expect(payload.data).toHaveProperty('external_reference');

    const record = await settled(acme.organizationId, queued.id);
    expect(record).toMatchObject({
      status: 'succeeded',
      attemptCount: 1,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(record.deliveredAt).not.toBeNull();
    expect(record.endpointUrl).toBe(endpoint.url);
  });

  it('honours Idempotency-Key: the same key queues one delivery and replays the answer', async () => {
    const { endpoint, ours } = await endpointFor(acme.organizationId);
    const headers = { ...(await acme.auth(['webhooks.manage'])), 'idempotency-key': `test-${randomUUID()}` };
    const first = await asUser(
      harness.app,
      { headers: headers },
      'POST',
      `/api/v1/webhooks/${endpoint.id}/test`,
    );
    const second = await asUser(
      harness.app,
      { headers: headers },
      'POST',
      `/api/v1/webhooks/${endpoint.id}/test`,
    );
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().id).toBe(first.json().id);
    await receiver.waitFor(1, ours);
    await delay(500);
    expect(receiver.received.filter(ours)).toHaveLength(1);
    expect(await harness.ctx.orm.em.fork().count(WebhookDelivery, { endpointId: endpoint.id })).toBe(1);
  });
});

describe('POST /api/v1/webhooks/deliveries/{id}/replay', () => {
  it('replays a failed delivery once the endpoint is fixed: new delivery id, same payload id', async () => {
    const { endpoint, ours } = await endpointFor(acme.organizationId);
    const auth = await acme.auth(['webhooks.manage']);
    receiver.answer((request) =>
      ours(request) ? { status: 500, body: `broken, key ${endpoint.secret}` } : { status: 200 },
    );
    const failing = (
      await asUser(harness.app, { headers: auth }, 'POST', `/api/v1/webhooks/${endpoint.id}/test`)
    ).json();
    const [failed] = await receiver.waitFor(1, ours);
    const record = await settled(acme.organizationId, failing.id);
    // The first attempt failed; the next is 30 s ± 20 % away.
    expect(record).toMatchObject({ status: 'pending', attemptCount: 1, lastStatusCode: 500 });
    expect(record.lastError).toBe('HTTP 500: broken, key [redacted]');
    const wait = Date.parse(record.nextAttemptAt ?? '') - Date.parse(record.lastAttemptAt ?? '');
    expect(wait).toBeGreaterThanOrEqual(24_000);
    expect(wait).toBeLessThanOrEqual(37_000);

    // Fixed.
    receiver.answer(() => ({ status: 200 }));
    const response = await asUser(
      harness.app,
      {
        headers: {
          ...auth,
          'idempotency-key': `replay-${randomUUID()}`,
        },
      },
      'POST',
      `/api/v1/webhooks/deliveries/${failing.id}/replay`,
    );
    expect(response.statusCode).toBe(202);
    const replay = response.json();
    expect(replay.id).not.toBe(failing.id);
    expect(replay).toMatchObject({ replayOf: failing.id, eventId: failing.eventId, status: 'pending' });
    const [, replayed] = await receiver.waitFor(2, ours);
    if (!failed || !replayed) throw new Error('missing requests');
    expect(deliveryIdOf(replayed)).toBe(replay.id);
    expect(replayed.rawBody).toBe(failed.rawBody);
    expect(JSON.parse(replayed.rawBody).id).toBe(failing.eventId);
    expect(verifies(replayed, endpoint.secret)).toBe(true);
    expect(await settled(acme.organizationId, replay.id)).toMatchObject({
      status: 'succeeded',
      attemptCount: 1,
    });

    // The original keeps its own schedule; stop it so it does not outlive the test.
    await harness.ctx.temporal.workflow
      .getHandle(webhookDeliveryWorkflowId(failing.id))
      .terminate('test done');
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the grace period, then with the new one only', async () => {
    const { endpoint, ours } = await endpointFor(acme.organizationId);
    const rotated = await rotateWebhookSecret(harness.ctx, acme.organizationId, endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.secret).toMatch(/^whsec_[\w-]{43}$/);
    const graceHours = (Date.parse(rotated.previousSecretExpiresAt ?? '') - Date.now()) / 3600_000;
    expect(graceHours).toBeGreaterThan(23.9);
    expect(graceHours).toBeLessThanOrEqual(24);
    expect(rotated.previousSecretHint).toBe(`…${endpoint.secret.slice(-4)}`);

    const auth = await acme.auth(['webhooks.manage']);
    expect(
      (await asUser(harness.app, { headers: auth }, 'POST', `/api/v1/webhooks/${endpoint.id}/test`))
        .statusCode,
    ).toBe(202);
    const [during] = await receiver.waitFor(1, ours);
    if (!during) throw new Error('no request');
    expect(verifies(during, rotated.secret)).toBe(true);
    expect(verifies(during, endpoint.secret)).toBe(false);
    expect(verifies(during, endpoint.secret, true)).toBe(true);
    expect(verifies(during, rotated.secret, true)).toBe(false);

    // The grace period is over.
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(
        WebhookEndpoint,
        { id: endpoint.id },
        { previousSecretExpiresAt: new Date(Date.now() - 1000) },
      );
    expect(
      (await asUser(harness.app, { headers: auth }, 'POST', `/api/v1/webhooks/${endpoint.id}/test`))
        .statusCode,
    ).toBe(202);
    const [, after] = await receiver.waitFor(2, ours);
    if (!after) throw new Error('no request');
    expect(after.headers['x-service-signature-previous']).toBeUndefined();
    expect(verifies(after, rotated.secret)).toBe(true);
    expect(verifies(after, endpoint.secret)).toBe(false);
  });
});

describe('access', () => {
  it('needs the webhooks.manage scope (403 naming it)', async () => {
    const { endpoint } = await endpointFor(acme.organizationId);
    const auth = await acme.auth(['envelopes.read', 'envelopes.write']);
    for (const url of [
      `/api/v1/webhooks/${endpoint.id}/test`,
      `/api/v1/webhooks/deliveries/${randomUUID()}/replay`,
    ]) {
      const response = await asUser(harness.app, { headers: auth }, 'POST', url);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
      expect(response.json().error.message).toMatch(/webhooks\.manage/);
    }
  });

  it('answers 404 for another organization’s endpoint and delivery, 400 for a malformed id', async () => {
    const { endpoint } = await endpointFor(other.organizationId);
    const otherAuth = await other.auth(['webhooks.manage']);
    const delivery = (
      await asUser(harness.app, { headers: otherAuth }, 'POST', `/api/v1/webhooks/${endpoint.id}/test`)
    ).json();
    const auth = await acme.auth(['webhooks.manage']);
    const test = await asUser(harness.app, { headers: auth }, 'POST', `/api/v1/webhooks/${endpoint.id}/test`);
    expect(test.statusCode).toBe(404);
    expect(test.json().error.code).toBe('not_found');
    const replay = await asUser(
      harness.app,
      { headers: auth },
      'POST',
      `/api/v1/webhooks/deliveries/${delivery.id}/replay`,
    );
    expect(replay.statusCode).toBe(404);
    expect(
      (await asUser(harness.app, { headers: auth }, 'POST', '/api/v1/webhooks/not-a-uuid/test')).statusCode,
    ).toBe(400);
    expect(
      (await asUser(harness.app, { headers: auth }, 'POST', `/api/v1/webhooks/${randomUUID()}/test`))
        .statusCode,
    ).toBe(404);
  });

  it('refuses an organization whose plan has no webhook access (403 with a clear message)', async () => {
    // A plan with API access but without webhooks (none of the shipped plans is one), for this test only.
    const em = harness.ctx.orm.em.fork();
    const planName = `API only ${randomUUID().slice(0, 8)}`;
    await em.execute(
      `insert into plan (name, api_access, webhook_access, sms_credits_included, rate_limit_per_minute,
                         upload_rate_limit_per_minute, support_level, sort_order)
       values (?, true, false, 0, 1000, 100, 'Standard', 99)`,
      [planName],
    );
    const integrator = await newIntegrator(harness);
    const { endpoint } = await endpointFor(integrator.organizationId);
    const delivery = (
      await asUser(
        harness.app,
        { headers: await integrator.auth() },
        'POST',
        `/api/v1/webhooks/${endpoint.id}/test`,
      )
    ).json();
    await em.nativeUpdate(Organization, { id: integrator.organizationId }, { planName });

    const auth = await integrator.auth(['webhooks.manage']);
    for (const url of [
      `/api/v1/webhooks/${endpoint.id}/test`,
      `/api/v1/webhooks/deliveries/${delivery.id}/replay`,
    ]) {
      const response = await asUser(harness.app, { headers: auth }, 'POST', url);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.message).toMatch(
        new RegExp(`Webhooks are not included in the ${planName} plan`),
      );
    }
    await expect(
      createWebhookEndpoint(harness.ctx, {
        organizationId: integrator.organizationId,
        url: `${receiver.url}/x`,
      }),
    ).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(/upgrade to a plan with webhook access/),
    });
    // No lifecycle event is queued for it either.
    const queued = await queueWebhookEventDeliveries(em, integrator.organizationId, {
      id: randomUUID(),
      type: 'envelope.sent',
      created_at: new Date().toISOString(),
      data: {},
    });
    expect(queued).toEqual([]);
  });
});

describe('lifecycle event fan-out (the entry point for the envelope workflow)', () => {
  it('queues one delivery per subscribed enabled endpoint, once, and a child-style start delivers it', async () => {
    const integrator = await newIntegrator(harness);
    const all = await endpointFor(integrator.organizationId);
    const completedOnly = await endpointFor(integrator.organizationId, {
      eventTypes: ['envelope.completed'],
    });
    const sentOnly = await endpointFor(integrator.organizationId, { eventTypes: ['envelope.sent'] });
    const disabled = await endpointFor(integrator.organizationId, { enabled: false });
    const event: WebhookEvent = {
      id: randomUUID(),
      type: 'envelope.completed',
      created_at: new Date().toISOString(),
      data: { envelope_id: randomUUID(), status: 'Completed', external_reference: 'PO-7' },
    };
    const em = harness.ctx.orm.em.fork();
    const ids = await em.transactional((tx) =>
      queueWebhookEventDeliveries(tx, integrator.organizationId, event),
    );
    expect(ids).toHaveLength(2);
    // A retried activity queues nothing new.
    expect(await queueWebhookEventDeliveries(em, integrator.organizationId, event)).toEqual(ids);
    const rows = await em.find(WebhookDelivery, { id: { $in: ids } });
    expect(rows.map((row) => row.endpointId).sort()).toEqual(
      [all.endpoint.id, completedOnly.endpoint.id].sort(),
    );
    for (const row of rows) {
      expect(row).toMatchObject({
        kind: 'event',
        eventId: event.id,
        status: 'pending',
        payload: webhookPayloadBody(event),
      });
    }
    expect(
      await em.count(WebhookDelivery, { endpointId: { $in: [sentOnly.endpoint.id, disabled.endpoint.id] } }),
    ).toBe(0);

    // What the envelope workflow does with each id (as a child; here from a client with the same options).
    for (const id of ids) {
      const { args, taskQueue, workflowId } = webhookDeliveryChildOptions(id);
      await harness.ctx.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
        args,
        taskQueue,
        workflowId,
      });
    }
    const [fromAll] = await receiver.waitFor(1, all.ours);
    const [fromCompleted] = await receiver.waitFor(1, completedOnly.ours);
    if (!fromAll || !fromCompleted) throw new Error('missing requests');
    expect(fromAll.rawBody).toBe(webhookPayloadBody(event));
    expect(verifies(fromAll, all.endpoint.secret)).toBe(true);
    expect(verifies(fromCompleted, completedOnly.endpoint.secret)).toBe(true);
    for (const id of ids) {
      expect(await settled(integrator.organizationId, id)).toMatchObject({
        status: 'succeeded',
        kind: 'event',
      });
    }

    const diagnostics = await harness.app.inject({
      method: 'GET',
      url: '/api/v1/diagnostics',
      headers: await integrator.auth(['usage.read']),
    });
    expect(diagnostics.json().webhooks).toEqual({
      available: true,
      endpoints: 4,
      deliveriesLast24Hours: 2,
      failedLast24Hours: 0,
    });
  });
});

describe('attempts to one endpoint at once (WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT, 8 by default)', () => {
  it('keeps at most 8 attempts in flight to a slow receiver, while another endpoint is served at once', async () => {
    const slow = await startWebhookReceiver();
    const quick = await startWebhookReceiver();
    try {
      // The slow receiver answers each request after 2 s.
      slow.answer(() => ({ status: 200, delayMs: 2000 }));
      const slowEndpoint = await createWebhookEndpoint(harness.ctx, {
        organizationId: acme.organizationId,
        url: `${slow.url}/slow`,
      });
      const quickEndpoint = await createWebhookEndpoint(harness.ctx, {
        organizationId: other.organizationId,
        url: `${quick.url}/quick`,
      });
      const queuedAt = Date.now();
      await Promise.all(
        Array.from({ length: 20 }, () => sendTestDelivery(harness.ctx, acme.organizationId, slowEndpoint.id)),
      );
      // Once the slow endpoint is busy, the other organization's deliveries still go out at once.
      await slow.waitFor(8);
      await Promise.all(
        Array.from({ length: 3 }, () =>
          sendTestDelivery(harness.ctx, other.organizationId, quickEndpoint.id),
        ),
      );
      const quickReceived = await quick.waitFor(3);

      // Every slow delivery arrives in the end, never more than 8 at once.
      const received = await slow.waitFor(20, () => true, 60_000);
      await vi.waitFor(
        () => expect(received.every((request) => request.answeredAt !== undefined)).toBe(true),
        {
          timeout: 10_000,
        },
      );
      let most = 0;
      for (const request of received) {
        const overlapping = received.filter(
          (other) => other.receivedAt <= request.receivedAt && (other.answeredAt ?? 0) > request.receivedAt,
        ).length;
        most = Math.max(most, overlapping);
      }
      expect(most).toBe(8);
      // Twenty 2-second answers, 8 at a time: three rounds, the last starting 4 s after the first. The other
      // endpoint did not wait for them.
      const lastSlow = Math.max(...received.map((request) => request.receivedAt));
      expect(lastSlow - queuedAt).toBeGreaterThan(4000);
      expect(Math.max(...quickReceived.map((request) => request.receivedAt))).toBeLessThan(lastSlow);
      for (const request of received) expect(verifies(request, slowEndpoint.secret)).toBe(true);
      await vi.waitFor(
        async () => {
          const deliveries = await harness.ctx.orm.em
            .fork()
            .find(WebhookDelivery, { endpointId: slowEndpoint.id });
          expect(deliveries.map((delivery) => [delivery.status, delivery.attemptCount])).toEqual(
            Array.from({ length: 20 }, () => ['succeeded', 1]),
          );
        },
        { timeout: 10_000 },
      );
    } finally {
      await slow.close();
      await quick.close();
    }
  });
});
