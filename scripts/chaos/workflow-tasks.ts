// How long workflow tasks took, read from the envelope workflows' histories: the measured ground for the
// workflow task timeout (temporal/workflow-task-timeout.ts). A task's start-to-close is the time between its
// WorkflowTaskStarted event (a worker took it) and its WorkflowTaskCompleted event (the worker's answer was
// recorded), both as the server stamped them; a task held by a worker that died ends in WorkflowTaskTimedOut.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { EventType, TimeoutType } = proto.temporal.api.enums.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface WorkflowTaskFigures {
  /** Workflow tasks started and completed. */
  completed: number;
  /** Start-to-close in ms of those: median, 99th percentile, slowest (null without any). */
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** Tasks held by a worker that died (start-to-close) or left on a dead worker's sticky queue. */
  startToCloseTimeouts: number;
  scheduleToStartTimeouts: number;
  /** The workflow task timeout each history's run was started with (ms), each distinct value once. */
  workflowTaskTimeoutMs: number[];
  /** Histories that could not be read (named by workflow id with the error). */
  unreadable: string[];
}

function ms(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null {
  if (!time) return null;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1_000_000);
}

/** The figures of one history's events (pure: tested on a made-up history). */
export function tallyWorkflowTasks(events: readonly HistoryEvent[]): {
  durations: number[];
  startToCloseTimeouts: number;
  scheduleToStartTimeouts: number;
  workflowTaskTimeoutMs: number | null;
} {
  const startedAt = new Map<number, number>();
  const durations: number[] = [];
  let startToCloseTimeouts = 0;
  let scheduleToStartTimeouts = 0;
  let workflowTaskTimeoutMs: number | null = null;
  for (const event of events) {
    const id = Number(event.eventId ?? 0);
    const at = ms(event.eventTime);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        workflowTaskTimeoutMs = ms(event.workflowExecutionStartedEventAttributes?.workflowTaskTimeout);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        if (at !== null) startedAt.set(id, at);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        const started = startedAt.get(
          Number(event.workflowTaskCompletedEventAttributes?.startedEventId ?? 0),
        );
        if (started !== undefined && at !== null) durations.push(at - started);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
        if (
          event.workflowTaskTimedOutEventAttributes?.timeoutType ===
          TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
        )
          scheduleToStartTimeouts += 1;
        else startToCloseTimeouts += 1;
        break;
    }
  }
  return { durations, startToCloseTimeouts, scheduleToStartTimeouts, workflowTaskTimeoutMs };
}

function percentile(sorted: readonly number[], share: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? null;
}

/** Reads each workflow's history (its current run), a few at a time, and sums the figures. */
export async function workflowTaskFigures(
  client: Client,
  workflowIds: readonly string[],
): Promise<WorkflowTaskFigures> {
  const durations: number[] = [];
  const timeouts = new Set<number>();
  const unreadable: string[] = [];
  let startToCloseTimeouts = 0;
  let scheduleToStartTimeouts = 0;
  let next = 0;
  const lane = async () => {
    while (next < workflowIds.length) {
      const workflowId = workflowIds[next] as string;
      next += 1;
      try {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        const tally = tallyWorkflowTasks(history.events ?? []);
        durations.push(...tally.durations);
        startToCloseTimeouts += tally.startToCloseTimeouts;
        scheduleToStartTimeouts += tally.scheduleToStartTimeouts;
        if (tally.workflowTaskTimeoutMs !== null) timeouts.add(tally.workflowTaskTimeoutMs);
      } catch (error) {
        unreadable.push(
          `${workflowId}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, lane));
  durations.sort((a, b) => a - b);
  return {
    completed: durations.length,
    p50Ms: percentile(durations, 0.5),
    p99Ms: percentile(durations, 0.99),
    maxMs: durations.at(-1) ?? null,
    startToCloseTimeouts,
    scheduleToStartTimeouts,
    workflowTaskTimeoutMs: [...timeouts].sort((a, b) => a - b),
    unreadable,
  };
}
