// Webhook retries under the Java time-skipping test server: five attempts over about 40 minutes of workflow
// time pass in seconds. The receiver is a real HTTP server on 127.0.0.1 that checks every signature itself.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { getWebhookDelivery } from '../../services/webhooks/list-webhook-deliveries.ts';
import { replayWebhookDelivery } from '../../services/webhooks/replay-webhook-delivery.ts';
import { sendTestDelivery } from '../../services/webhooks/send-test-delivery.ts';
import {
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_JITTER,
  type WebhookDeliveryResult,
  webhookDeliveryWorkflowId,
} from '../../workflows/webhook-contracts.ts';
import { servicesOn } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import {
  deliveryIdOf,
  type ReceivedRequest,
  startWebhookReceiver,
  verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

const TASK_QUEUE = 'webhooks-time-skipping';
/** The per-attempt timeout of this test's worker (production: 10 s), so a hanging receiver costs 1 s. */
const ATTEMPT_TIMEOUT_MS = 1000;

let env: TestWorkflowEnvironment;
let orm: Orm;
let receiver: WebhookReceiver;

beforeAll(async () => {
  installQuietRuntime();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('timeSkippingServerPath') } },
  });
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await env?.teardown();
  await orm?.close();
});

/** Runs a worker of this test's own task queue until `start` has queued a delivery and it has finished. */
async function deliver(
  start: () => Promise<{ id: string }>,
  retryDelayScale = 1,
): Promise<WebhookDeliveryResult> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({
      orm,
      webhooks: { allowPrivateTargets: true, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, retryDelayScale },
    }),
  });
  return worker.runUntil(async () => {
    const delivery = await start();
    return env.client.workflow
      .getHandle(webhookDeliveryWorkflowId(delivery.id))
      .result() as Promise<WebhookDeliveryResult>;
  });
}

async function newEndpoint() {
  const ctx = servicesOn(orm, { config: { env: 'test' as const } });
  const organization = await createOrganization(ctx, {
    name: 'Retry org',
    plan: 'Business',
    apiEnabled: true,
  });
  const endpoint = await createWebhookEndpoint(ctx, {
    organizationId: organization.id,
    url: `${receiver.url}/hooks/${organization.id}`,
  });
  return { organizationId: organization.id, endpoint };
}

/** The durations of the workflow's timers, in order: the waits between attempts. */
async function timerDurationsMs(deliveryId: string): Promise<number[]> {
  const history = await env.client.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId)).fetchHistory();
  return (history.events ?? [])
    .map((event) => event.timerStartedEventAttributes?.startToFireTimeout)
    .filter((timeout) => timeout != null)
    .map((timeout) => Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6));
}

function expectJitteredSchedule(durations: number[], scale = 1) {
  durations.forEach((duration, index) => {
    const base = (WEBHOOK_RETRY_DELAYS_MS[index] as number) * scale;
    expect(duration).toBeGreaterThanOrEqual(base * (1 - WEBHOOK_RETRY_JITTER));
    expect(duration).toBeLessThanOrEqual(base * (1 + WEBHOOK_RETRY_JITTER));
    if (index > 0) expect(duration).toBeGreaterThan(durations[index - 1] as number);
  });
}

describe('webhook delivery retries', () => {
  it('retries after 500s and a timeout with growing waits, and records failure after the fifth attempt', async () => {
    const { organizationId, endpoint } = await newEndpoint();
    const path = `/hooks/${organizationId}`;
    const ours = (request: ReceivedRequest) => request.path === path;
    // Attempts 1, 2, 4 and 5: a server error with a body that echoes the secret; attempt 3: no answer.
    receiver.answer((request) =>
      ours(request) && receiver.received.filter(ours).length === 3
        ? 'hang'
        : { status: 500, body: `upstream exploded; secret=${endpoint.secret}; ${'x'.repeat(1000)}` },
    );
    const startedAt = await env.currentTimeMs();
    const wallClock = Date.now();
    const result = await deliver(() =>
      sendTestDelivery(servicesOn(orm, { temporal: env.client }), organizationId, endpoint.id, {
        taskQueue: TASK_QUEUE,
      }),
    );
    const elapsedWallClock = Date.now() - wallClock;

    expect(result).toMatchObject({ status: 'failed', attempts: 5 });
    const requests = receiver.received.filter(ours);
    expect(requests).toHaveLength(5);
    // One delivery id across every attempt, each attempt signed afresh.
    expect(new Set(requests.map(deliveryIdOf))).toEqual(new Set([result.deliveryId]));
    for (const request of requests) expect(verifies(request, endpoint.secret)).toBe(true);
    expect(new Set(requests.map((request) => request.rawBody)).size).toBe(1);

    const waits = await timerDurationsMs(result.deliveryId);
    expect(waits).toHaveLength(4);
    expectJitteredSchedule(waits);
    const total = waits.reduce((sum, wait) => sum + wait, 0);
    expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(total);
    console.info(
      `5 attempts over ${(total / 60_000).toFixed(1)} min of workflow time (waits ${waits
        .map((wait) => `${(wait / 1000).toFixed(0)} s`)
        .join(', ')}) in ${elapsedWallClock} ms of wall-clock time`,
    );

    const record = await getWebhookDelivery(servicesOn(orm), organizationId, result.deliveryId);
    expect(record).toMatchObject({
      status: 'failed',
      attemptCount: 5,
      lastStatusCode: 500,
      nextAttemptAt: null,
    });
    expect(record.deliveredAt).toBeNull();
    expect(record.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, null, 500, 500]);
    expect(record.attempts[2]?.error).toMatch(/Timed out after 1 s/);
    for (const attempt of record.attempts) {
      expect(attempt.error).not.toContain(endpoint.secret);
      expect((attempt.error ?? '').length).toBeLessThanOrEqual(230);
    }
    expect(record.lastError).toMatch(/^HTTP 500: upstream exploded; secret=\[redacted\]; x+…$/);
  });

  it('a worker with WEBHOOK_RETRY_DELAY_SCALE waits the schedule times the scale, and records that wait', async () => {
    const { organizationId, endpoint } = await newEndpoint();
    const path = `/hooks/${organizationId}`;
    const ours = (request: ReceivedRequest) => request.path === path;
    receiver.answer((request) =>
      ours(request) && receiver.received.filter(ours).length <= 2 ? { status: 503 } : { status: 204 },
    );
    let nextAttemptAfterFirst: Date | null = null;
    let firstFinishedAt: Date | null = null;
    const result = await deliver(async () => {
      const delivery = await sendTestDelivery(
        servicesOn(orm, { temporal: env.client }),
        organizationId,
        endpoint.id,
        { taskQueue: TASK_QUEUE },
      );
      // The record after the first attempt: its next_attempt_at says the scaled wait.
      for (let i = 0; i < 200 && nextAttemptAfterFirst === null; i += 1) {
        const record = await getWebhookDelivery(servicesOn(orm), organizationId, delivery.id);
        if (record.attemptCount >= 1 && record.nextAttemptAt) {
          nextAttemptAfterFirst = new Date(record.nextAttemptAt);
          firstFinishedAt = new Date(record.lastAttemptAt ?? 0);
        } else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return delivery;
    }, 0.02);
    expect(result).toMatchObject({ status: 'succeeded', attempts: 3 });
    const waits = await timerDurationsMs(result.deliveryId);
    expect(waits).toHaveLength(2);
    expectJitteredSchedule(waits, 0.02);
    // 30 s × 0.02 = 0.6 s (± jitter), not 30 s.
    expect(waits[0]).toBeLessThan(1000);
    expect(nextAttemptAfterFirst).not.toBeNull();
    const recordedWait =
      (nextAttemptAfterFirst as unknown as Date).getTime() - (firstFinishedAt as unknown as Date).getTime();
    expect(recordedWait).toBeGreaterThanOrEqual(0);
    expect(recordedWait).toBeLessThan(1000);
  });

  it('succeeds on a later attempt, and a replay after the endpoint is fixed is a new delivery of the same event', async () => {
    const { organizationId, endpoint } = await newEndpoint();
    const path = `/hooks/${organizationId}`;
    const ours = (request: ReceivedRequest) => request.path === path;
    receiver.answer((request) =>
      ours(request) && receiver.received.filter(ours).length <= 2 ? { status: 503 } : { status: 204 },
    );
    const first = await deliver(() =>
      sendTestDelivery(servicesOn(orm, { temporal: env.client }), organizationId, endpoint.id, {
        taskQueue: TASK_QUEUE,
      }),
    );
    expect(first).toMatchObject({ status: 'succeeded', attempts: 3 });
    expectJitteredSchedule(await timerDurationsMs(first.deliveryId));
    const record = await getWebhookDelivery(servicesOn(orm), organizationId, first.deliveryId);
    expect(record).toMatchObject({
      status: 'succeeded',
      attemptCount: 3,
      lastStatusCode: 204,
      lastError: null,
    });
    expect(record.deliveredAt).not.toBeNull();

    // Replayed: a new delivery id, the same payload, delivered once.
    const replay = await deliver(() =>
      replayWebhookDelivery(servicesOn(orm, { temporal: env.client }), organizationId, first.deliveryId, {
        taskQueue: TASK_QUEUE,
      }),
    );
    expect(replay).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(replay.deliveryId).not.toBe(first.deliveryId);
    const requests = receiver.received.filter(ours);
    expect(requests).toHaveLength(4);
    const last = requests[3] as ReceivedRequest;
    expect(deliveryIdOf(last)).toBe(replay.deliveryId);
    expect(JSON.parse(last.rawBody).id).toBe(JSON.parse((requests[0] as ReceivedRequest).rawBody).id);
    expect(verifies(last, endpoint.secret)).toBe(true);
    expect(await getWebhookDelivery(servicesOn(orm), organizationId, replay.deliveryId)).toMatchObject({
      replayOf: first.deliveryId,
      eventId: record.eventId,
      status: 'succeeded',
    });
  });
});
