// `npm run bench:cache-eviction` (issue 19, "Cache eviction"): one envelope worker whose workflow cache is far
// smaller than the number of open envelopes. Prints two tables; asserts nothing.
// 1. Memory while BENCH_OPEN (default 10,000) two-signer envelopes are opened on the worker's own task queue
//    (created in PostgreSQL, their workflows started and run to "waiting for the first signer"), with a cache of
//    BENCH_CACHE (default 500) workflows: the process's heap and RSS after each fifth of them (forced GC when
//    run with --expose-gc, as the npm script does).
// 2. What a signer's action costs on an evicted envelope (one of the first opened, long out of the cache: its
//    history is replayed once) and on a cached one (one of the last opened): BENCH_ACTIONS (default 20) first
//    signers completing through the same Update the signer API sends, their latency p50/p99, and the history
//    replayed (events per envelope).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { NativeConnection } from '@temporalio/worker';
import { createActivities, finalizeSealingSettings } from '../activities/index.ts';
import { webhookDeliverySettings } from '../activities/webhooks.ts';
import { loadConfig } from '../config/config.ts';
import { completeRecipient } from '../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../services/envelopes/find-envelope.ts';
import { envelopeWorkflowInput } from '../services/envelopes/send-envelope.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import { createEnvelopeWorker } from '../temporal/worker/worker.ts';
import { TWO_SIGNERS } from '../test/support/context.ts';
import { ENVELOPE_WORKFLOW_TYPE, envelopeWorkflowId } from '../workflows/contracts.ts';
import { percentile, pool } from './figures.ts';
import { startBenchApi } from './support.ts';

const OPEN = Number(process.env.BENCH_OPEN ?? 10_000);
const CACHE = Number(process.env.BENCH_CACHE ?? 500);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 20);
const CONCURRENCY = 16;
const STEPS = 5;
const TASK_QUEUE = 'envelopes-cache-bench';
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const MiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function settledMemory(): Promise<{ heapUsed: number; rss: number }> {
  const gc = (globalThis as unknown as { gc?: () => void }).gc;
  await sleep(1000);
  gc?.();
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

const bench = await startBenchApi(say);
const { infrastructure, organization, template } = bench;
const client = bench.temporal.client;
const ctx = {
  get em() {
    return infrastructure.orm.em.fork();
  },
  temporal: client,
  config: bench.config,
  files: createFileObjects(bench.config.storage, infrastructure.orm.em),
};
const native = await NativeConnection.connect({ address: infrastructure.temporalAddress });
const worker = await createEnvelopeWorker({
  connection: native,
  namespace: infrastructure.namespace,
  taskQueue: TASK_QUEUE,
  workflowBundle: { codePath: infrastructure.workflowBundlePath },
  maxCachedWorkflows: CACHE,
  activities: createActivities({
    orm: infrastructure.orm,
    webhooks: webhookDeliverySettings('test'),
    notifications: { env: 'test', publicBaseUrl: bench.config.publicBaseUrl },
    sealing: finalizeSealingSettings(loadConfig()),
  }),
});
const running = worker.run();
try {
  /** Waits until every envelope opened so far waits for its first signer (its Sent projected). */
  async function settled(expected: number): Promise<void> {
    for (;;) {
      const [row] = await infrastructure.orm.em
        .fork()
        .execute<{ sent: number }[]>(
          `select count(*)::int as sent from envelope where organization_id = ? and status = 'Sent'`,
          [organization.id],
        );
      if ((row?.sent ?? 0) >= expected) return;
      await sleep(500);
    }
  }

  const opened: { id: string; firstRecipientId: string }[] = [];
  const memory: { open: number; heapUsed: number; rss: number }[] = [];
  await settled(0);
  memory.push({ open: 0, ...(await settledMemory()) });
  const started = performance.now();
  for (let step = 1; step <= STEPS; step += 1) {
    const target = Math.round((OPEN * step) / STEPS);
    const from = opened.length;
    await pool(target - from, CONCURRENCY, async (index) => {
      const envelope = await createEnvelope(ctx, {
        title: `Cache benchmark ${from + index + 1}`,
        recipients: TWO_SIGNERS,
        organizationId: organization.id,
        templateId: template.id,
      });
      const { recipients } = await findEnvelope(ctx, organization.id, envelope.id);
      await client.workflow.start(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients)],
      });
      const first = recipients.find((r) => r.signingOrder === 1) ?? recipients[0];
      opened.push({ id: envelope.id, firstRecipientId: first?.id as string });
    });
    await settled(target);
    const sample = await settledMemory();
    memory.push({ open: target, ...sample });
    say(
      `${target} envelopes open (${Math.round(target / ((performance.now() - started) / 1000))}/s): heap ` +
        `${MiB(sample.heapUsed)}, RSS ${MiB(sample.rss)}`,
    );
  }

  /** One first signer's completion, timed from the request to the Update's answer. */
  async function act(envelope: { id: string; firstRecipientId: string }): Promise<number> {
    const begun = performance.now();
    await completeRecipient(ctx, organization.id, envelope.id, envelope.firstRecipientId);
    return performance.now() - begun;
  }
  const historyLength = async (id: string) =>
    (await client.workflow.getHandle(envelopeWorkflowId(id)).fetchHistory()).events?.length ?? 0;

  say(`signer actions: ${ACTIONS} on evicted envelopes, ${ACTIONS} on cached ones…`);
  const evictedEnvelopes = opened.slice(0, ACTIONS);
  const cachedEnvelopes = opened.slice(-ACTIONS);
  const evictedHistory = await historyLength(evictedEnvelopes[0]?.id as string);
  const evicted: number[] = [];
  const cached: number[] = [];
  // Interleaved, one at a time: the cached ones stay among the last used, the evicted ones were never touched
  // since their first task.
  for (let i = 0; i < ACTIONS; i += 1) {
    cached.push(await act(cachedEnvelopes[cachedEnvelopes.length - 1 - i] as (typeof opened)[number]));
    evicted.push(await act(evictedEnvelopes[i] as (typeof opened)[number]));
  }

  out();
  out(`1. Memory of one process (API, shared worker and this worker) with a cache of ${CACHE} workflows`);
  out('   open envelopes | heap used  | RSS');
  for (const row of memory) {
    out(`   ${String(row.open).padStart(14)} | ${MiB(row.heapUsed).padStart(10)} | ${MiB(row.rss)}`);
  }
  const last = memory.at(-1) as (typeof memory)[number];
  const atCache = memory.find((row) => row.open >= CACHE * 2) ?? last;
  out(
    `   heap from ${atCache.open} to ${last.open} open: ${MiB(last.heapUsed - atCache.heapUsed)} ` +
      `(${(((last.heapUsed - atCache.heapUsed) / Math.max(1, last.open - atCache.open)) * 1024 ** -1).toFixed(2)} KiB per envelope)`,
  );
  out(
    `   forced GC before each sample: ${(globalThis as unknown as { gc?: unknown }).gc ? 'yes' : 'no (run with --expose-gc)'}`,
  );
  out();
  out(`2. A first signer's completion (${ACTIONS} each, one at a time)`);
  out('   envelope                   | p50      | p99');
  out(
    `   evicted (replays ${String(evictedHistory).padStart(2)} events) | ${percentile(evicted, 50).toFixed(0).padStart(5)} ms | ${percentile(evicted, 99).toFixed(0)} ms`,
  );
  out(
    `   cached                     | ${percentile(cached, 50).toFixed(0).padStart(5)} ms | ${percentile(cached, 99).toFixed(0)} ms`,
  );
} finally {
  worker.shutdown();
  await running;
  await native.close();
  await bench.close();
}
