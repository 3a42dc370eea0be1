// A Temporal Schedule that starts one workflow every day at a fixed UTC time (the retention run and the orphan
// sweep), created or brought up to date by every worker at start (temporal/worker/main.ts).
//
// Idempotent: the schedule's definition is fingerprinted in its action's memo; a worker whose definition is
// the same changes nothing, one with another definition (a new version of Sigil, a changed setting passed as
// the workflow's input) updates it in place, keeping its paused state and note. Several workers starting at
// once are harmless: the first creates it, the others find it.
import {
  type Client,
  ScheduleAlreadyRunning,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
} from '@temporalio/client';

const FINGERPRINT_KEY = 'sigilScheduleDefinition';

export interface DailySchedule {
  scheduleId: string;
  /** When it starts the workflow, every day (UTC). */
  at: { hour: number; minute: number };
  /** The calendar's comment, shown in the Web UI. */
  comment: string;
  /** The schedule's note, shown in the Web UI. */
  note: string;
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
}

/** The schedule's options, with its definition's fingerprint in the action's memo. */
export function dailyScheduleOptions(schedule: DailySchedule): ScheduleOptions {
  const definition = {
    spec: {
      calendars: [{ hour: schedule.at.hour, minute: schedule.at.minute, comment: schedule.comment }],
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: schedule.workflowType,
      workflowId: schedule.workflowId,
      taskQueue: schedule.taskQueue,
      args: schedule.args,
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
    scheduleId: schedule.scheduleId,
    ...definition,
    action: { ...definition.action, memo: { [FINGERPRINT_KEY]: fingerprint } },
    state: { note: schedule.note },
  };
}

/** Creates the schedule, or updates it when its definition differs; says which. */
export async function ensureDailySchedule(
  client: Client,
  options: ScheduleOptions,
): Promise<'created' | 'updated' | 'unchanged'> {
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(options.scheduleId);
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
