// `npm run bench:webhooks`: webhook deliveries through the real webhook worker (task queue `webhooks`) on the
// Temporal dev server and PostgreSQL, to a receiver on 127.0.0.1 that answers 200 and checks every
// signature. Prints one table; asserts nothing.
// 1. Lifecycle path: an event queued as the envelope workflow will queue it (queueWebhookEventDeliveries,
//    then webhookDeliveryWorkflow started with webhookDeliveryChildOptions), one endpoint.
// 2. API path: POST /api/v1/webhooks/{id}/test (bearer token, idempotency plugin, rate limiter included).
// 3. The lifecycle path one delivery at a time: the latency without a backlog.
// 4. The lifecycle path at fixed offered rates (open loop, BENCH_RATES deliveries/s, default 25,50): a delivery
//    is queued every 1/rate s whether or not the earlier ones arrived.
// 5. The baseline, in the same run on the same server: workflows with one no-op activity (bench/floor-workflow.ts)
//    started as the deliveries are, through their own worker; the ratios say how close deliveries come to the
//    least one workflow per delivery costs here. Then the same with a local activity: the least any workflow
//    with one step costs on this server.
// Latency runs from the moment the delivery is queued to the receiver's 2xx (for the baseline: to the
// workflow's result). BENCH_DELIVERIES (default 200) deliveries per path, BENCH_CONCURRENCY (default 10)
// queued at a time.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { queueWebhookEventDeliveries } from '../db/webhook-deliveries.ts';
import { createWebhookEndpoint } from '../services/webhooks/create-webhook-endpoint.ts';
import { startWebhookReceiver, verifies } from '../test/support/webhook-receiver.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  webhookDeliveryChildOptions,
} from '../workflows/webhook-contracts.ts';
import { percentile, pool } from './figures.ts';
import { processTree, serverKind } from './process-cpu.ts';
import { startBenchApi } from './support.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 200);
const RATES = (process.env.BENCH_RATES ?? '25,50')
  .split(',')
  .filter((rate) => rate !== '')
  .map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const WARM_UP = 10;
const SEQUENTIAL = 30;
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** CPU seconds so far: the Temporal dev server, PostgreSQL, and this process (API, workers, receiver). */
async function cpuNow(): Promise<{ temporal: number; postgres: number; ours: number }> {
  const tree = await processTree();
  const sum = (kind: string) =>
    tree
      .filter((entry) => serverKind(entry.name) === kind)
      // A backend that ended (a pool closing an idle connection) leaves its CPU with its parent.
      .reduce((total, entry) => total + entry.cpu + entry.reaped, 0);
  const own = process.cpuUsage();
  return {
    temporal: sum('Temporal dev server'),
    postgres: sum('PostgreSQL'),
    ours: (own.user + own.system) / 1e6,
  };
}

/** CPU milliseconds per item of each process group between two cpuNow(). */
function cpuPer(before: Awaited<ReturnType<typeof cpuNow>>, after: typeof before, count: number) {
  const per = (key: keyof typeof before) => ((after[key] - before[key]) * 1000) / count;
  return { temporal: per('temporal'), postgres: per('postgres'), ours: per('ours') };
}

interface Measured {
  name: string;
  /** CPU ms per delivery (or workflow): the Temporal dev server, PostgreSQL, this process. */
  cpu: ReturnType<typeof cpuPer>;
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
    mode: 'backlog' | 'sequential' | { rate: number } = 'backlog',
  ): Promise<Measured> {
    const queuedAt = new Map<string, number>();
    const cpuBefore = await cpuNow();
    const first = Date.now();
    const queueOne = async () => {
      const started = Date.now();
      const id = await queue();
      queuedAt.set(id, started);
      if (mode === 'sequential')
        await receiver.waitFor(1, (request) => request.headers['x-service-delivery'] === id);
    };
    if (typeof mode === 'object') {
      // Open loop: the i-th delivery is queued at first + i/rate, however the earlier ones are doing.
      const queued: Promise<void>[] = [];
      for (let index = 0; index < count; index += 1) {
        const due = first + (index * 1000) / mode.rate;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        queued.push(queueOne());
      }
      await Promise.all(queued);
    } else {
      await pool(count, mode === 'sequential' ? 1 : CONCURRENCY, queueOne);
    }
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
      cpu: cpuPer(cpuBefore, await cpuNow(), count),
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

  /** The baseline: FLOOR workflows started like deliveries (CONCURRENCY at a time), until every result. */
  async function measureFloor(workflowType: string, name: string): Promise<Measured> {
    const taskQueue = `bench-floor-${randomUUID()}`;
    const worker = await Worker.create({
      connection: infrastructure.env.nativeConnection,
      namespace: infrastructure.namespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./floor-workflow.ts', import.meta.url)),
      activities: { floorNoop: async (id: string) => id },
    });
    return worker.runUntil(async () => {
      const run = async (count: number) => {
        const latencies: number[] = [];
        const results: Promise<unknown>[] = [];
        const first = Date.now();
        await pool(count, CONCURRENCY, async () => {
          const started = Date.now();
          const handle = await temporal.client.workflow.start(workflowType, {
            taskQueue,
            workflowId: `bench-floor/${randomUUID()}`,
            args: ['floor'],
          });
          results.push(handle.result().then(() => latencies.push(Date.now() - started)));
        });
        await Promise.all(results);
        return { seconds: (Date.now() - first) / 1000, latencies };
      };
      await run(WARM_UP);
      const cpuBefore = await cpuNow();
      const { seconds, latencies } = await run(DELIVERIES);
      return {
        name,
        cpu: cpuPer(cpuBefore, await cpuNow(), DELIVERIES),
        deliveries: DELIVERIES,
        seconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
        verified: 0,
      };
    });
  }

  say(`warm-up: ${WARM_UP} deliveries…`);
  await measure('warm-up', WARM_UP, viaEvent);
  say(`lifecycle path: ${DELIVERIES} deliveries, ${CONCURRENCY} queued at a time…`);
  const event = await measure('event → queue + start (envelope path)', DELIVERIES, viaEvent);
  say(`API path: ${DELIVERIES} test deliveries, ${CONCURRENCY} at a time…`);
  const api = await measure('POST /api/v1/webhooks/{id}/test', DELIVERIES, viaApi);
  say(`at rest: ${SEQUENTIAL} deliveries, one at a time…`);
  const single = await measure('event, one at a time (no backlog)', SEQUENTIAL, viaEvent, 'sequential');
  const offered: Measured[] = [];
  for (const rate of RATES) {
    say(`offered rate: ${DELIVERIES} deliveries at ${rate}/s (open loop)…`);
    offered.push(await measure(`event, ${rate}/s offered`, DELIVERIES, viaEvent, { rate }));
  }

  say(`baseline: ${DELIVERIES} workflows with one no-op activity, ${CONCURRENCY} started at a time…`);
  const floor = await measureFloor('floorWorkflow', 'baseline: workflow + no-op activity');
  say(`the same with a local activity (one workflow task, no activity task)…`);
  const floorLocal = await measureFloor('floorLocalWorkflow', 'workflow + no-op local activity');

  const header = [
    'path',
    'deliveries',
    'deliveries/s',
    'p50',
    'p99',
    'max',
    'signatures ok',
    'vs baseline',
    'CPU ms each: Temporal',
    'PostgreSQL',
    'ours',
  ];
  const rows = [event, api, single, ...offered, floor, floorLocal].map((m) => [
    m.name,
    String(m.deliveries),
    (m.deliveries / m.seconds).toFixed(1),
    `${m.p50.toFixed(0)} ms`,
    `${m.p99.toFixed(0)} ms`,
    `${m.max.toFixed(0)} ms`,
    m === floor || m === floorLocal ? '—' : `${m.verified}/${m.deliveries}`,
    m === floor ? '1.00' : (m.deliveries / m.seconds / (floor.deliveries / floor.seconds)).toFixed(2),
    m.cpu.temporal.toFixed(1),
    m.cpu.postgres.toFixed(1),
    m.cpu.ours.toFixed(1),
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
    `\nCPU ms each: CPU time per delivery (or workflow) from /proc while the path ran: the Temporal dev server, ` +
      `PostgreSQL, and this process (API, workers, receiver and load).`,
  );
  out(
    `vs baseline: deliveries/s over the baseline's workflows/s (only meaningful for the paths with a backlog; ` +
      `an offered rate below saturation is its own ceiling).`,
  );
  out(
    `Latency: from queuing the delivery to the receiver's 2xx; under load it includes the wait behind the ` +
      `deliveries queued before. One worker process (envelope and webhook workers), the dev server, ` +
      `PostgreSQL, the receiver and the load on one machine.`,
  );
} finally {
  await receiver.close();
  await bench.close();
}
