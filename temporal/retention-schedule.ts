// The Temporal Schedule that starts the retention run every day (workflows/retention.ts), created or brought up
// to date by every worker at start (temporal/worker/main.ts), as the search attributes are. Operators see it
// in the Web UI under Schedules (`sigil-retention`): its next runs, its recent ones, and "Trigger" to run it
// now; pausing it there is kept across worker restarts.
//
// Idempotent: the schedule's definition is fingerprinted in its action's memo; a worker whose definition is
// the same changes nothing, one with another definition (a new version of Sigil) updates it in place, keeping
// its paused state and note. Several workers starting at once are harmless: the first creates it, the others
// find it.
import {
  type Client,
  ScheduleAlreadyRunning,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import {
  RETENTION_SCHEDULE_ID,
  RETENTION_TASK_QUEUE,
  RETENTION_TIME_UTC,
  RETENTION_WORKFLOW_ID,
  RETENTION_WORKFLOW_TYPE,
  type RetentionWorkflow,
} from '../workflows/retention-contracts.ts';

const FINGERPRINT_KEY = 'sigilScheduleDefinition';

/** The schedule as this version of Sigil defines it. */
export function retentionScheduleOptions(): ScheduleOptions {
  const definition = {
    spec: {
      calendars: [
        {
          hour: RETENTION_TIME_UTC.hour,
          minute: RETENTION_TIME_UTC.minute,
          comment: 'Sigil retention: every day (UTC)',
        },
      ],
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: RETENTION_WORKFLOW_TYPE,
      workflowId: RETENTION_WORKFLOW_ID,
      taskQueue: RETENTION_TASK_QUEUE,
      args: [{}] satisfies Parameters<RetentionWorkflow>,
    },
    policies: {
      // A run still going (a database outage) is not joined by another; it finishes what is due.
      overlap: ScheduleOverlapPolicy.SKIP,
      // After an outage of Temporal, a missed day runs once it is back, within a day.
      catchupWindow: '1 day',
      pauseOnFailure: false,
    },
  };
  const fingerprint = JSON.stringify(definition);
  return {
    scheduleId: RETENTION_SCHEDULE_ID,
    ...definition,
    action: { ...definition.action, memo: { [FINGERPRINT_KEY]: fingerprint } },
    state: {
      note: 'Deletes documents past their retention and purges deleted documents’ files (docs/envelope-lifecycle.md)',
    },
  };
}

/** Creates the schedule, or updates it when its definition differs; says which. */
export async function ensureRetentionSchedule(client: Client): Promise<'created' | 'updated' | 'unchanged'> {
  const options = retentionScheduleOptions();
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(RETENTION_SCHEDULE_ID);
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
