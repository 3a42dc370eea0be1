// An envelope worker in its own process, for the recovery test (test/integration/worker-recovery.test.ts):
// the real activities on a task queue of the test's choosing. With HANG set, the first attempt of that
// activity announces on stdout that it started and then never returns, heartbeating as a live attempt does,
// so the test can SIGKILL the process in the middle of it:
//   projection   the projection (one transition, or a batch) holding the event type HANG_EVENT;
//   finalize     finalizeEnvelope.
// Every line this process writes to stdout is one JSON object.
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { FinalizeEnvelopeRequest } from '../../activities/finalize.ts';
import { createActivities } from '../../activities/index.ts';
import { createOrm } from '../../db/orm.ts';
import { createEnvelopeWorker } from '../../temporal/worker/worker.ts';
import type { EnvelopeTransition } from '../../workflows/contracts.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`recovery-worker: ${name} is not set`);
  return value;
}

function announce(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const hang = process.env.HANG ?? '';
if (hang !== '' && hang !== 'projection' && hang !== 'finalize') {
  throw new Error(`recovery-worker: unknown HANG ${hang}`);
}

Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: ['SIGINT', 'SIGTERM'] });

const orm = await createOrm({ databaseUrl: required('DATABASE_URL'), poolMax: 2 });
const activities = createActivities({
  orm,
  notifications: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
});

/** Never returns, heartbeating every half second: an attempt that is alive until its process dies. */
function hangAlive(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => Context.current().heartbeat(), 500);
  });
}

/** Whether this attempt of a projection of these transitions is the one to hang. */
function hangsOn(transitions: EnvelopeTransition[]): boolean {
  const { attempt } = Context.current().info;
  return (
    hang === 'projection' &&
    attempt === 1 &&
    transitions.some((transition) => transition.event.type === process.env.HANG_EVENT)
  );
}

const realProject = activities.projectEnvelopeTransition;
activities.projectEnvelopeTransition = async (transition: EnvelopeTransition) => {
  if (!hangsOn([transition])) return realProject(transition);
  announce({ event: 'hanging', activity: 'projectEnvelopeTransition', attempt: 1, at: Date.now() });
  return hangAlive();
};
const realProjectBatch = activities.projectEnvelopeTransitions;
activities.projectEnvelopeTransitions = async (transitions: EnvelopeTransition[]) => {
  if (!hangsOn(transitions)) return realProjectBatch(transitions);
  announce({ event: 'hanging', activity: 'projectEnvelopeTransitions', attempt: 1, at: Date.now() });
  return hangAlive();
};

const realFinalize = activities.finalizeEnvelope;
activities.finalizeEnvelope = async (request: FinalizeEnvelopeRequest) => {
  const { attempt } = Context.current().info;
  if (hang !== 'finalize' || attempt > 1) return realFinalize(request);
  announce({ event: 'hanging', activity: 'finalizeEnvelope', attempt, at: Date.now() });
  return hangAlive();
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
announce({ event: 'worker-running', pid: process.pid, hang: hang || null });
await running;
await connection.close();
await orm.close();
