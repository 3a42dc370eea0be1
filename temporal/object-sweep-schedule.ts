// The Temporal Schedule that starts the orphan sweep every day (workflows/object-sweep.ts), created or brought up
// to date by every worker at start (temporal/worker/main.ts), as the retention Schedule is. Operators see it in
// the Web UI under Schedules (`sigil-object-sweep`): its runs with their results (objects checked, deleted, bytes
// freed), and "Trigger" to run it now. Its grace period is the worker's OBJECT_SWEEP_GRACE_HOURS, passed as the
// workflow's input, so a changed setting updates the Schedule at the next worker start
// (temporal/daily-schedule.ts).
import type { Client, ScheduleOptions } from '@temporalio/client';
import {
  OBJECT_SWEEP_SCHEDULE_ID,
  OBJECT_SWEEP_TASK_QUEUE,
  OBJECT_SWEEP_TIME_UTC,
  OBJECT_SWEEP_WORKFLOW_ID,
  OBJECT_SWEEP_WORKFLOW_TYPE,
  type ObjectSweepWorkflow,
} from '../workflows/object-sweep-contracts.ts';
import { dailyScheduleOptions, ensureDailySchedule } from './daily-schedule.ts';

/** The schedule as this version of Sigil defines it, with the configured grace period. */
export function objectSweepScheduleOptions(graceHours: number): ScheduleOptions {
  return dailyScheduleOptions({
    scheduleId: OBJECT_SWEEP_SCHEDULE_ID,
    at: OBJECT_SWEEP_TIME_UTC,
    comment: 'Sigil orphan sweep: every day (UTC)',
    note: 'Deletes stored objects no file references after the grace period (docs/deployment.md "Object storage")',
    workflowType: OBJECT_SWEEP_WORKFLOW_TYPE,
    workflowId: OBJECT_SWEEP_WORKFLOW_ID,
    taskQueue: OBJECT_SWEEP_TASK_QUEUE,
    args: [{ graceHours }] satisfies Parameters<ObjectSweepWorkflow>,
  });
}

/** Creates the schedule, or updates it when its definition differs; says which. */
export function ensureObjectSweepSchedule(
  client: Client,
  graceHours: number,
): Promise<'created' | 'updated' | 'unchanged'> {
  return ensureDailySchedule(client, objectSweepScheduleOptions(graceHours));
}
