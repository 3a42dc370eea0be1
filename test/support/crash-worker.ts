// An envelope worker in its own process, for the finalization crash test: the real activities on a task
// queue of the test's choosing. With CRASH_POINT set, the first attempt of finalizeEnvelope announces on
// stdout that it reached that point and then never returns, so the test can SIGKILL the process mid-activity:
//   before-render  the attempt has started and nothing is rendered or stored yet;
//   after-commit   the real activity has stored the final PDF and the audit trail (its transaction is
//                  committed) but its result never reaches Temporal.
// Every line this process writes to stdout is one JSON object.
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { FinalizeEnvelopeRequest } from '../../activities/finalize.ts';
import { createActivities } from '../../activities/index.ts';
import { createOrm } from '../../db/orm.ts';
import { createEnvelopeWorker } from '../../temporal/worker/worker.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`crash-worker: ${name} is not set`);
  return value;
}

function announce(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const crashPoint = process.env.CRASH_POINT ?? '';
if (crashPoint !== '' && crashPoint !== 'before-render' && crashPoint !== 'after-commit') {
  throw new Error(`crash-worker: unknown CRASH_POINT ${crashPoint}`);
}

Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: ['SIGINT', 'SIGTERM'] });

const orm = await createOrm({ databaseUrl: required('DATABASE_URL'), poolMax: 2 });
const activities = createActivities({ orm });
const realFinalize = activities.finalizeEnvelope;

/** Keeps the attempt running until the process is killed. */
function hang(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => {}, 60_000);
  });
}

activities.finalizeEnvelope = async (request: FinalizeEnvelopeRequest) => {
  const { attempt } = Context.current().info;
  if (crashPoint === '' || attempt > 1) return realFinalize(request);
  if (crashPoint === 'before-render') {
    announce({ event: 'finalize-reached', point: crashPoint, attempt, envelopeId: request.envelopeId });
    return hang();
  }
  const result = await realFinalize(request);
  announce({ event: 'finalize-reached', point: crashPoint, attempt, envelopeId: request.envelopeId, result });
  return hang();
};

const connection = await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') });
const worker = await createEnvelopeWorker({
  connection,
  namespace: required('TEMPORAL_NAMESPACE'),
  activities,
  workflowBundle: { codePath: required('WORKFLOW_BUNDLE_PATH') },
  taskQueue: required('TASK_QUEUE'),
});
const running = worker.run();
announce({ event: 'worker-running', pid: process.pid, crashPoint: crashPoint || null });
await running;
await connection.close();
await orm.close();
