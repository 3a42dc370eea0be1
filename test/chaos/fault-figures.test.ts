// The figures the chaos run and the cluster fault run print about waiting, on inputs made by hand: the slowest
// request per fault (the attempts that ended between one fault and the next), and the workflow tasks' durations
// and timeouts read from a history — the measured ground of the workflow task timeout.
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../scripts/chaos/integrator.ts';
import { recoveryOf, slowestAttempt } from '../../scripts/chaos/run.ts';
import { tallyWorkflowTasks } from '../../scripts/chaos/workflow-tasks.ts';

const { EventType, TimeoutType } = proto.temporal.api.enums.v1;

const attempt = (kind: Attempt['kind'], startedAt: number, endedAt: number, status: number | null = 200) =>
  ({ kind, startedAt, endedAt, status, code: null, settled: true }) satisfies Attempt;

describe('the slowest request per fault', () => {
  const attempts = [
    attempt('create', 0, 300),
    // In flight when the fault struck at 1,000, answered 10.2 s later: the fault's.
    attempt('complete', 900, 11_100),
    attempt('view', 1_200, 1_400),
    // Ends after the next fault (20,000): that one's, however long.
    attempt('save', 15_000, 21_000, 503),
  ];

  it('takes the longest attempt that ended from the fault until the next one', () => {
    expect(slowestAttempt(attempts, 1_000, 20_000)).toEqual({ ms: 10_200, kind: 'complete', status: 200 });
    expect(slowestAttempt(attempts, 20_000, Number.POSITIVE_INFINITY)).toEqual({
      ms: 6_000,
      kind: 'save',
      status: 503,
    });
    expect(slowestAttempt(attempts, 0, 1_000)).toEqual({ ms: 300, kind: 'create', status: 200 });
    expect(slowestAttempt(attempts, 30_000, 40_000)).toBeNull();
  });

  it('is part of each fault’s recovery figure', () => {
    const fault = {
      kind: 'worker-kill' as const,
      struckAt: 1_000,
      at: 1_000,
      restartedAt: 1_000,
      readyAt: 3_000,
      progress: 0.5,
    };
    const figure = recoveryOf(fault, 20_000, attempts, [2_500], []);
    expect(figure.slowestRequest).toEqual({ ms: 10_200, kind: 'complete', status: 200 });
    expect(figure.back).toBe(2_000);
    expect(figure.workflowProgress).toBe(1_500);
  });
});

const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 });

describe('workflow tasks read from a history', () => {
  it('times each task from started to completed and counts the timed-out ones by kind', () => {
    const events = [
      {
        eventId: 1,
        eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        eventTime: at(0),
        workflowExecutionStartedEventAttributes: { workflowTaskTimeout: { seconds: 3 } },
      },
      { eventId: 2, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, eventTime: at(1) },
      { eventId: 3, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, eventTime: at(5) },
      {
        eventId: 4,
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        eventTime: at(47),
        workflowTaskCompletedEventAttributes: { startedEventId: 3 },
      },
      // A task taken by a worker that was then killed: it times out start-to-close, another worker takes it.
      { eventId: 5, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, eventTime: at(1_000) },
      { eventId: 6, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, eventTime: at(1_002) },
      {
        eventId: 7,
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
        eventTime: at(4_002),
        workflowTaskTimedOutEventAttributes: { timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE },
      },
      // Left on the dead worker's sticky queue.
      {
        eventId: 8,
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
        eventTime: at(6_002),
        workflowTaskTimedOutEventAttributes: { timeoutType: TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START },
      },
      { eventId: 9, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, eventTime: at(6_010) },
      {
        eventId: 10,
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        eventTime: at(7_250),
        workflowTaskCompletedEventAttributes: { startedEventId: 9 },
      },
    ];
    // Made by hand: durations' seconds as numbers where the generated types say Long.
    expect(tallyWorkflowTasks(events as unknown as proto.temporal.api.history.v1.IHistoryEvent[])).toEqual({
      durations: [42, 1_240],
      startToCloseTimeouts: 1,
      scheduleToStartTimeouts: 1,
      workflowTaskTimeoutMs: 3_000,
    });
  });
});
