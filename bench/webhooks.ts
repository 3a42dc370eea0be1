// `npm run bench:webhooks`: webhook deliveries through the real webhook worker (task queue `webhooks`) on the
// Temporal dev server and PostgreSQL, to a receiver on 127.0.0.1 that answers 200 and checks every
// signature. Prints one table; asserts nothing.
// 1. Lifecycle path: an event queued as the envelope workflow will queue it (queueWebhookEventDeliveries,
//    then webhookDeliveryWorkflow started with webhookDeliveryChildOptions), one endpoint.
// 2. API path: POST /api/v1/webhooks/{id}/test (bearer token, idempotency plugin, rate limiter included).
// 3. The lifecycle path one delivery at a time: the latency without a backlog.
// Latency runs from the moment the delivery is queued to the receiver's 2xx. BENCH_DELIVERIES (default
// 200) deliveries per path, BENCH_CONCURRENCY (default 10) queued at a time.
import { randomUUID } from 'node:crypto';
import { createWebhookEndpoint } from '../api/services/webhooks/create-webhook-endpoint.ts';
import { queueWebhookEventDeliveries } from '../db/webhook-deliveries.ts';
import { startWebhookReceiver, verifies } from '../test/support/webhook-receiver.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  webhookDeliveryChildOptions,
} from '../workflows/webhook-contracts.ts';
import { startBenchApi } from './support.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const WARM_UP = 10;
const SEQUENTIAL = 30;
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

/** Runs `task` for 0..count-1 with at most `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

interface Measured {
  name: string;
  deliveries: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  verified: number;
}

const bench = await startBenchApi(say);
const receiver = await startWebhookReceiver();
const { app, infrastructure, organization, temporal } = bench;
try {
  const orm = infrastructure.orm;
  // The API runs with production settings; the receiver is on 127.0.0.1, which only development and test
  // accept, so the endpoint is created with test rules (the worker of the test infrastructure allows it too).
  const endpoint = await createWebhookEndpoint(
    { em: orm.em.fork(), config: { env: 'test' } },
    { organizationId: organization.id, url: `${receiver.url}/bench` },
  );

  /**
   * Queues `count` deliveries with `queue` (which returns the delivery id), `concurrency` at a time, and waits
   * for every 2xx. With `sequential`, each delivery is queued only after the previous one was received.
   */
  async function measure(
    name: string,
    count: number,
    queue: () => Promise<string>,
    sequential = false,
  ): Promise<Measured> {
    const queuedAt = new Map<string, number>();
    const first = Date.now();
    await pool(count, sequential ? 1 : CONCURRENCY, async () => {
      const started = Date.now();
      const id = await queue();
      queuedAt.set(id, started);
      if (sequential) await receiver.waitFor(1, (request) => request.headers['x-service-delivery'] === id);
    });
    const received = await receiver.waitFor(
      count,
      (request) => queuedAt.has(String(request.headers['x-service-delivery'])),
      120_000,
    );
    const latencies = received.map(
      (request) => request.receivedAt - (queuedAt.get(String(request.headers['x-service-delivery'])) ?? 0),
    );
    const last = Math.max(...received.map((request) => request.receivedAt));
    return {
      name,
      deliveries: count,
      seconds: (last - first) / 1000,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
      verified: received.filter((request) => verifies(request, endpoint.secret)).length,
    };
  }

  const viaEvent = async () => {
    const [id] = await queueWebhookEventDeliveries(orm.em.fork(), organization.id, {
      id: randomUUID(),
      type: 'envelope.completed',
      created_at: new Date().toISOString(),
      data: { envelope_id: randomUUID(), status: 'Completed', external_reference: 'bench' },
    });
    if (!id) throw new Error('no delivery queued');
    const { args, taskQueue, workflowId } = webhookDeliveryChildOptions(id);
    await temporal.client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, { args, taskQueue, workflowId });
    return id;
  };
  const viaApi = async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${endpoint.id}/test`,
      headers: bench.auth,
    });
    if (response.statusCode !== 202)
      throw new Error(`test delivery: ${response.statusCode} ${response.body}`);
    return response.json().id as string;
  };

  say(`warm-up: ${WARM_UP} deliveries…`);
  await measure('warm-up', WARM_UP, viaEvent);
  say(`lifecycle path: ${DELIVERIES} deliveries, ${CONCURRENCY} queued at a time…`);
  const event = await measure('event → queue + start (envelope path)', DELIVERIES, viaEvent);
  say(`API path: ${DELIVERIES} test deliveries, ${CONCURRENCY} at a time…`);
  const api = await measure('POST /api/v1/webhooks/{id}/test', DELIVERIES, viaApi);
  say(`at rest: ${SEQUENTIAL} deliveries, one at a time…`);
  const single = await measure('event, one at a time (no backlog)', SEQUENTIAL, viaEvent, true);

  const header = ['path', 'deliveries', 'deliveries/s', 'p50', 'p99', 'max', 'signatures ok'];
  const rows = [event, api, single].map((m) => [
    m.name,
    String(m.deliveries),
    (m.deliveries / m.seconds).toFixed(1),
    `${m.p50.toFixed(0)} ms`,
    `${m.p99.toFixed(0)} ms`,
    `${m.max.toFixed(0)} ms`,
    `${m.verified}/${m.deliveries}`,
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) =>
      column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
    );
  out();
  out(line(header).join('  '));
  for (const row of rows) out(line(row).join('  '));
  out(
    `\nLatency: from queuing the delivery to the receiver's 2xx; under load it includes the wait behind the ` +
      `deliveries queued before. One worker process (envelope and webhook workers), the dev server, ` +
      `PostgreSQL, the receiver and the load on one machine.`,
  );
} finally {
  await receiver.close();
  await bench.close();
}
