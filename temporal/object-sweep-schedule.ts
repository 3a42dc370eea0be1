// The Temporal Schedule that starts the orphan sweep every day (workflows/object-sweep.ts), created or brought up
// to date by every worker at start (temporal/worker/main.ts), as the retention Schedule is. Operators see it in
// the Web UI under Schedules (`sigil-object-sweep`): its runs with their results (objects checked, deleted, bytes
// freed), and "Trigger" to run it now. Its grace period is the worker's OBJECT_SWEEP_GRACE_HOURS, passed as the
// workflow's input, so a changed setting updates the Schedule at the next worker start.
import {
  type Client,
  ScheduleAlreadyRunning,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import {
  OBJECT_SWEEP_SCHEDULE_ID,
  OBJECT_SWEEP_TASK_QUEUE,
  OBJECT_SWEEP_TIME_UTC,
  OBJECT_SWEEP_WORKFLOW_ID,
  OBJECT_SWEEP_WORKFLOW_TYPE,
  type ObjectSweepWorkflow,
} from '../workflows/object-sweep-contracts.ts';

const FINGERPRINT_KEY = 'sigilScheduleDefinition';

/** The schedule as this version of Sigil defines it, with the configured grace period. */
export function objectSweepScheduleOptions(graceHours: number): ScheduleOptions {
  const definition = {
    spec: {
      calendars: [
        {
          hour: OBJECT_SWEEP_TIME_UTC.hour,
          minute: OBJECT_SWEEP_TIME_UTC.minute,
          comment: 'Sigil orphan sweep: every day (UTC)',
        },
      ],
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: OBJECT_SWEEP_WORKFLOW_TYPE,
      workflowId: OBJECT_SWEEP_WORKFLOW_ID,
      taskQueue: OBJECT_SWEEP_TASK_QUEUE,
      args: [{ graceHours }] satisfies Parameters<ObjectSweepWorkflow>,
    },
    policies: {
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '1 day',
      pauseOnFailure: false,
    },
  };
  const fingerprint = JSON.stringify(definition);
  return {
    scheduleId: OBJECT_SWEEP_SCHEDULE_ID,
    ...definition,
    action: { ...definition.action, memo: { [FINGERPRINT_KEY]: fingerprint } },
    state: {
      note: 'Deletes stored objects no file references after the grace period (docs/deployment.md "Object storage")',
    },
  };
}

/** Creates the schedule, or updates it when its definition differs; says which. */
export async function ensureObjectSweepSchedule(
  client: Client,
  graceHours: number,
): Promise<'created' | 'updated' | 'unchanged'> {
  const options = objectSweepScheduleOptions(graceHours);
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(OBJECT_SWEEP_SCHEDULE_ID);
  const current = await handle.describe();
  const wanted = options.action.memo?.[FINGERPRINT_KEY];
  if (current.action.memo?.[FINGERPRINT_KEY] === wanted) return 'unchanged';
  await handle.update((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: options.policies,
  }));
  return 'updated';
}
