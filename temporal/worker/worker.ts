// The workers: one polls the task queue `envelopes`, one `webhooks` (deliveries, so a burst of HTTP
// attempts never delays envelope work). Both register every workflow of workflows/ and every activity.
import { fileURLToPath } from 'node:url';
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Activities } from '../../activities/index.ts';
import { ENVELOPE_TASK_QUEUE } from '../../workflows/contracts.ts';
import { WEBHOOK_TASK_QUEUE } from '../../workflows/webhook-contracts.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

export interface EnvelopeWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  /** A pre-built bundle (tests build one and share it); otherwise the workflows are bundled now. */
  workflowBundle?: WorkflowBundleOption;
  taskQueue?: string;
  /** Workflows kept in memory between tasks (WORKER_MAX_CACHED_WORKFLOWS); undefined: the SDK's default. */
  maxCachedWorkflows?: number | undefined;
}

/**
 * How long a workflow task waits on this worker's sticky queue (where its cached workflows' next tasks go)
 * before Temporal hands it to any worker. The SDK's default, 10 s, is how long an Update waited after its
 * worker was killed; 2 s bounds that, at the price of a full replay when a busy live worker is slower.
 */
export const STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT = '2 seconds';

export function createEnvelopeWorker(options: EnvelopeWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? ENVELOPE_TASK_QUEUE,
    activities: options.activities,
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH }),
  });
}

/** The worker of webhook deliveries (`webhookDeliveryWorkflow` and its HTTP attempts), task queue `webhooks`. */
export function createWebhookWorker(options: EnvelopeWorkerOptions): Promise<Worker> {
  return createEnvelopeWorker({ ...options, taskQueue: options.taskQueue ?? WEBHOOK_TASK_QUEUE });
}
