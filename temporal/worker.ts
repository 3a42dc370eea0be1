// The envelope worker: workflows from workflows/, activities built from their dependencies.
import { fileURLToPath } from 'node:url';
import { type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Activities } from '../activities/index.ts';
import { ENVELOPE_TASK_QUEUE } from '../workflows/contracts.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface EnvelopeWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  /** A pre-built bundle (tests build one and share it); otherwise the workflows are bundled now. */
  workflowBundle?: WorkflowBundleOption;
  taskQueue?: string;
}

export function createEnvelopeWorker(options: EnvelopeWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? ENVELOPE_TASK_QUEUE,
    activities: options.activities,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH }),
  });
}
