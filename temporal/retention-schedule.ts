// The Temporal Schedule that starts the retention run every day (workflows/retention.ts), created or brought up
// to date by every worker at start (temporal/worker/main.ts), as the search attributes are. Operators see it
// in the Web UI under Schedules (`sigil-retention`): its next runs, its recent ones, and "Trigger" to run it
// now; pausing it there is kept across worker restarts. How it is kept up to date: temporal/daily-schedule.ts.
import type { Client, ScheduleOptions } from '@temporalio/client';
import {
  RETENTION_SCHEDULE_ID,
  RETENTION_TASK_QUEUE,
  RETENTION_TIME_UTC,
  RETENTION_WORKFLOW_ID,
  RETENTION_WORKFLOW_TYPE,
  type RetentionWorkflow,
} from '../workflows/retention-contracts.ts';
import { dailyScheduleOptions, ensureDailySchedule } from './daily-schedule.ts';

/** The schedule as this version of Sigil defines it. */
export function retentionScheduleOptions(): ScheduleOptions {
  return dailyScheduleOptions({
    scheduleId: RETENTION_SCHEDULE_ID,
    at: RETENTION_TIME_UTC,
    comment: 'Sigil retention: every day (UTC)',
    note: 'Deletes documents past their retention and purges deleted documents’ files (docs/envelope-lifecycle.md)',
    workflowType: RETENTION_WORKFLOW_TYPE,
    workflowId: RETENTION_WORKFLOW_ID,
    taskQueue: RETENTION_TASK_QUEUE,
    args: [{}] satisfies Parameters<RetentionWorkflow>,
  });
}

/** Creates the schedule, or updates it when its definition differs; says which. */
export function ensureRetentionSchedule(client: Client): Promise<'created' | 'updated' | 'unchanged'> {
  return ensureDailySchedule(client, retentionScheduleOptions());
}
