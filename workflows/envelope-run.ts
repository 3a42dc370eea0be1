// The envelope workflow's effects: what carrying out the model's decisions takes. Numbered transitions are
// queued and projected to PostgreSQL in order (with the webhook deliveries each one queues and the status
// search attribute), messages are sent in the background and their outcomes handed back to the model, the
// final PDF is rendered, and the run waits, settles and hands over. Every decision comes from the model
// (envelope-model.ts).
//
// Recorded histories replay against the commands this code issues, in their order within each activation
// (docs/development.md, Changing the workflow). Keep every `await` where it is: an extra async step (an
// `async` wrapper, an `await` on a settled value) can reorder the commands that handlers, messages and the
// main loop issue in one activation.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  sleep,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { sanitizeJson } from '../domain/text.ts';
import type { EnvelopeStatus } from '../domain/vocabulary.ts';
import {
  type CarriedEnvelopeState,
  ENVELOPE_RECORD_BEING_REPAIRED,
  type EnvelopeState,
  type EnvelopeTransition,
  type EnvelopeWorkflowInput,
  type ParkedProjection,
  PROJECTION_DATA_ERROR,
  type ProjectionStatus,
  type ResumeProjectionRequest,
  searchAttributes,
  TIMESTAMP_UNAVAILABLE,
  type TimestampRetrySchedule,
} from './contracts.ts';
import type {
  DecidedTransition,
  Decision,
  EnvelopeModel,
  MessageOutcome,
  MessageRequest,
} from './envelope-model.ts';
import {
  NOTIFICATION_ACTIVITY_OPTIONS,
  NOTIFICATION_ACTIVITY_OPTIONS_WITH_HEARTBEAT,
} from './notification-contracts.ts';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions } from './webhook-contracts.ts';

/** A run continues as new past this many history events (Temporal may suggest it earlier). */
const CONTINUE_AS_NEW_AT_HISTORY_LENGTH = 5000;
/** Runs that meet a projection PostgreSQL refuses for good park on this code instead of failing. */
const PARKING_PATCH = 'projection-parking';
/**
 * Runs on this code project every queued transition in one activity (one transaction, one activity task)
 * instead of one activity per transition (issue 19); runs recorded before it replay one at a time.
 */
const BATCHED_PROJECTION_PATCH = 'batched-projections';
/** The most transitions one batched projection writes. */
const MAX_PROJECTION_BATCH = 50;

// A projection is one short transaction: 10 s is far above any measured, and the activity heartbeats every
// second, so a worker that dies in the middle of one is noticed after 3 s, not after the whole timeout.
// Changing timeouts changes no command, so recorded histories replay unchanged.
const { projectEnvelopeTransition, projectEnvelopeTransitions, recordProjectionFailure } =
  proxyActivities<Activities>({
    startToCloseTimeout: '10 seconds',
    heartbeatTimeout: '3 seconds',
    // A projection must land eventually: PostgreSQL outages are waited out, never skipped. What retrying cannot
    // fix fails at once (ProjectionDataError) and parks the envelope instead.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

/** Rendering gets a few attempts; input that can never render fails at once (FinalPdfFailed). */
const FINALIZE_ATTEMPTS = 5;
const { finalizeEnvelope } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // The activity heartbeats every second (and between its steps), so a worker that dies while finalizing is
  // noticed within 5 s, not after the whole start-to-close timeout.
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumAttempts: FINALIZE_ATTEMPTS,
    nonRetryableErrorTypes: ['PdfRenderError', 'EnvelopeNotFound'],
  },
});

const { sendNotification } = proxyActivities<Activities>(NOTIFICATION_ACTIVITY_OPTIONS);
/** Messages sent on this code carry a heartbeat timeout: a dead worker's message is retried within seconds. */
const NOTIFICATION_HEARTBEAT_PATCH = 'notification-heartbeat';
const { sendNotification: sendNotificationWithHeartbeat } = proxyActivities<Activities>(
  NOTIFICATION_ACTIVITY_OPTIONS_WITH_HEARTBEAT,
);

/** The longest wait between two tries of a seal that waits for a timestamp authority. */
const MAX_TIMESTAMP_WAIT_MS = 5 * 60_000;

/** The schedule a TimestampUnavailable failure carries, or null for any other failure. */
function timestampRetrySchedule(error: ActivityFailure): TimestampRetrySchedule | null {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== TIMESTAMP_UNAVAILABLE) return null;
  const details = cause.details?.[0] as Partial<TimestampRetrySchedule> | undefined;
  const retryInitialMs = Number(details?.retryInitialMs);
  const giveUpAfterMs = Number(details?.giveUpAfterMs);
  if (!(retryInitialMs > 0) || !(giveUpAfterMs > 0)) return null;
  return { retryInitialMs, giveUpAfterMs };
}

/** Behaviour that depends on the code a run started on (each answered by a `patched()` marker). */
export interface RunVersions {
  /** The projection queues a webhook delivery per subscribed endpoint for every event. */
  emitsWebhooks: boolean;
  /** Invitations, reminders and notices are sent (sendNotification). */
  sendsNotifications: boolean;
}

/** An Update validator's refusal: the model's reason as a non-retryable failure of the given type. */
export function refuse(reason: string | undefined, type: string): void {
  if (reason) throw ApplicationFailure.nonRetryable(reason, type);
}

export class EnvelopeRun {
  private readonly input: EnvelopeWorkflowInput;
  private readonly envelope: EnvelopeModel;
  private readonly versions: RunVersions;
  /** Decided transitions not yet in PostgreSQL, in order. */
  private readonly pending: EnvelopeTransition[] = [];
  /** Messages on their way; each hands its outcome to the model when it settles. */
  private readonly inflight = new Set<Promise<void>>();
  /** The last transition in PostgreSQL. */
  private projectedSequence: number;
  /**
   * The status attribute is kept current when the starter indexed the workflow with it (sendEnvelope does); a
   * server without Sigil's search attributes (such as the time-skipping test server) rejects them.
   */
  private readonly indexed: boolean;
  /** The status last written to the search attribute. */
  private lastStatus: EnvelopeStatus | undefined;
  private readonly historyLimit: number;
  /** Set while a transition PostgreSQL refused for good waits, with every later one, for an operator. */
  private parked: ParkedProjection | null = null;
  /** How often the projection parked (a resume answers when it parks again). */
  private parkings = 0;
  /**
   * Set after PostgreSQL refused a transition in a batch: transitions up to this sequence are projected one at a
   * time, so the refused one parks alone.
   */
  private singly: number | null = null;
  /** An operator's resume, until the parked projection takes it. */
  private resumeRequest: ResumeProjectionRequest | null = null;

  constructor(input: EnvelopeWorkflowInput, envelope: EnvelopeModel, versions: RunVersions) {
    this.input = input;
    this.envelope = envelope;
    this.versions = versions;
    // A continued run starts with everything before it projected.
    this.projectedSequence = envelope.sequence;
    this.indexed = workflowInfo().typedSearchAttributes.get(searchAttributes.envelopeStatus) !== undefined;
    this.lastStatus = input.carried?.indexedStatus ?? undefined;
    this.historyLimit = input.continueAsNewAtHistoryLength ?? CONTINUE_AS_NEW_AT_HISTORY_LENGTH;
  }

  /** Sends the decision's messages in the background and queues its transitions; returns the last sequence. */
  carryOut({ messages, transitions }: Decision): number {
    for (const message of messages) this.send(message);
    for (const transition of transitions) this.queue(transition);
    return this.envelope.sequence;
  }

  /**
   * An Update's answer: the decision carried out, then the state once all of it is projected. Not `async`: the
   * handler returns `projected`'s own promise, so the answer is issued exactly when it always was.
   */
  answer(decision: Decision): Promise<EnvelopeState> {
    return this.projected(this.carryOut(decision));
  }

  /**
   * An Update's answer whose messages read what its transitions write (a delegate's address and name): the
   * transitions are queued, and the messages are sent once they are in PostgreSQL, then the state answers. Should
   * the projection park first, the messages wait for the repair and the caller is told at once.
   */
  answerBeforeMessages({ messages, transitions }: Decision): Promise<EnvelopeState> {
    const sequence = this.carryOut({ messages: [], transitions });
    const sending = (async () => {
      await condition(() => this.projectedSequence >= sequence);
      for (const message of messages) this.send(message);
    })();
    this.inflight.add(sending);
    void sending.finally(() => this.inflight.delete(sending));
    return this.projected(sequence);
  }

  /**
   * Waits until the given transition is in PostgreSQL, so callers read what they caused. When the projection
   * parks first, the caller is told at once instead of waiting for an operator: the change stays decided and is
   * written when the envelope is repaired.
   */
  async projected(sequence: number): Promise<EnvelopeState> {
    await condition(() => this.projectedSequence >= sequence || this.parked !== null);
    if (this.projectedSequence < sequence) {
      throw ApplicationFailure.nonRetryable(
        "The envelope's record is being repaired: the change was accepted and will be recorded once an operator has repaired it; read the envelope again later.",
        ENVELOPE_RECORD_BEING_REPAIRED,
      );
    }
    return this.envelope.snapshot();
  }

  /**
   * An Update validator's refusal: while the projection is parked every change is refused (nothing new is
   * decided that could not be recorded), otherwise the model's reason, if any.
   */
  refuse(reason: string | undefined, type: string): void {
    if (this.parked) {
      throw ApplicationFailure.nonRetryable(
        "The envelope's record is being repaired; try again later.",
        ENVELOPE_RECORD_BEING_REPAIRED,
      );
    }
    refuse(reason, type);
  }

  /** Why an operator's resume is refused: only a parked projection is resumed, once at a time. */
  whyCannotResume(): string | undefined {
    if (!this.parked) return "The envelope's projection is not parked: there is nothing to resume.";
    if (this.resumeRequest) return 'A resume of this projection is already under way.';
    return undefined;
  }

  /**
   * An operator resumes a parked projection (after repairing its cause): every queued transition is projected
   * again, optionally with unstorable text replaced first. Answers once they are written, or fails when
   * PostgreSQL refuses again (the projection is parked again).
   */
  resume(request: ResumeProjectionRequest | undefined): Promise<EnvelopeState> {
    const parkings = this.parkings;
    const target = this.envelope.sequence;
    this.resumeRequest = { sanitize: request?.sanitize === true };
    return this.resumed(parkings, target);
  }

  /** Where the projection stands: for operators (and `sigil envelope stuck`). */
  projectionStatus(): ProjectionStatus {
    return {
      projectedSequence: this.projectedSequence,
      decidedSequence: this.envelope.sequence,
      parked: this.parked,
    };
  }

  /** Whether something was decided that is not projected yet. */
  hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Every accepted Update has answered and every message has settled. */
  idle(): boolean {
    return allHandlersFinished() && this.inflight.size === 0;
  }

  historyIsLong(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.historyLimit;
  }

  /** Everything the next run needs, for continue-as-new. */
  carry(): CarriedEnvelopeState {
    return this.envelope.carry(this.lastStatus ?? null);
  }

  /** Waits for something to be decided or for the time `at`; false means the time came first. */
  async waitForChange(at: string | null): Promise<boolean> {
    if (at === null) {
      await condition(() => this.hasPending());
      return true;
    }
    return condition(() => this.hasPending(), Math.max(1, Date.parse(at) - Date.now()));
  }

  /**
   * Projects every decided transition, in order, starting the webhook deliveries each one queued. A transition
   * PostgreSQL refuses for good parks the projection until an operator resumes it.
   */
  async drain(): Promise<void> {
    while (this.pending.length > 0) {
      if (this.singly === null && patched(BATCHED_PROJECTION_PATCH)) {
        await this.drainBatch();
        continue;
      }
      const transition = this.pending[0] as EnvelopeTransition;
      let projection: Awaited<ReturnType<typeof projectEnvelopeTransition>>;
      try {
        projection = await projectEnvelopeTransition(transition);
      } catch (error) {
        if (!isProjectionDataError(error) || !patched(PARKING_PATCH)) throw error;
        await this.park(transition, error.cause);
        continue;
      }
      // One child per (event, endpoint), abandoned on close: deliveries outlive the envelope's workflow.
      for (const deliveryId of projection?.deliveryIds ?? []) {
        await startChild(WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions(deliveryId));
      }
      this.projectedSequence = transition.sequence;
      this.pending.shift();
      this.index(transition.envelopeStatus);
      // Back to batches once the transition PostgreSQL refused in a batch is written.
      if (this.singly !== null && transition.sequence >= this.singly) this.singly = null;
    }
  }

  /**
   * Projects the queued transitions (up to MAX_PROJECTION_BATCH) in one activity. When PostgreSQL refuses one
   * for good, the batch is rolled back whole; the transitions are then projected one at a time up to the
   * refused one, so the projection parks on exactly that transition, as it always did.
   */
  private async drainBatch(): Promise<void> {
    const batch = this.pending.slice(0, MAX_PROJECTION_BATCH);
    let projections: Awaited<ReturnType<typeof projectEnvelopeTransitions>>;
    try {
      projections = await projectEnvelopeTransitions(batch);
    } catch (error) {
      if (!isProjectionDataError(error)) throw error;
      this.singly = batch.at(-1)?.sequence ?? null;
      return;
    }
    for (const projection of projections) {
      // One child per (event, endpoint), abandoned on close: deliveries outlive the envelope's workflow.
      for (const deliveryId of projection.deliveryIds ?? []) {
        await startChild(WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions(deliveryId));
      }
    }
    const last = batch.at(-1) as EnvelopeTransition;
    this.projectedSequence = last.sequence;
    this.pending.splice(0, batch.length);
    this.index(last.envelopeStatus);
  }

  /** Renders and stores the final PDF and the audit trail; the model decides what the outcome changes. */
  async finalize(): Promise<void> {
    // A seal whose policy requires a timestamp waits for an authority: durable timers between tries (each one
    // visible in the Web UI with the last failure), doubling up to 5 minutes, until the configured limit.
    let waitingSince: number | null = null;
    let wait = 0;
    for (;;) {
      try {
        const artifacts = await finalizeEnvelope({
          envelopeId: this.input.envelopeId,
          organizationId: this.input.organizationId,
          completedAt: this.envelope.signedAt ?? new Date().toISOString(),
        });
        this.carryOut(this.envelope.finalPdfStored(artifacts));
        return;
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        const cause = error.cause instanceof Error ? error.cause.message : error.message;
        const schedule = timestampRetrySchedule(error);
        if (schedule) {
          waitingSince ??= Date.now();
          wait = wait === 0 ? schedule.retryInitialMs : Math.min(wait * 2, MAX_TIMESTAMP_WAIT_MS);
          const remaining = waitingSince + schedule.giveUpAfterMs - Date.now();
          if (remaining > 0) {
            await sleep(Math.min(wait, remaining));
            continue;
          }
          const minutes = Math.round(schedule.giveUpAfterMs / 60_000);
          this.carryOut(
            this.envelope.finalPdfFailed(
              `${cause} (tried for ${minutes >= 1 ? `${minutes} min` : `${Math.round(schedule.giveUpAfterMs / 1000)} s`})`,
            ),
          );
          return;
        }
        this.carryOut(this.envelope.finalPdfFailed(cause));
        return;
      }
    }
  }

  /**
   * The end of a run: messages still on their way (completion notices, …) settle and what they decided is
   * projected; then in-flight Updates return their answers before the workflow closes.
   */
  async settle(): Promise<void> {
    await this.drain();
    while (this.inflight.size > 0) {
      await condition(() => this.pending.length > 0 || this.inflight.size === 0);
      await this.drain();
    }
    await condition(allHandlersFinished);
  }

  /**
   * Parks the projection on a transition PostgreSQL refused for good: it and every later transition stay
   * queued, the envelope row is marked with the reason (a small write of its own), Updates are refused, and
   * the run waits for an operator's resume; then the queue is projected again, optionally repaired.
   */
  private async park(transition: EnvelopeTransition, failure: ApplicationFailure): Promise<void> {
    const details = failure.details?.[0] as { sqlState?: unknown } | undefined;
    this.parked = {
      sequence: transition.sequence,
      eventType: transition.event.type,
      reason: failure.message,
      sqlState: typeof details?.sqlState === 'string' ? details.sqlState : null,
      since: new Date().toISOString(),
    };
    this.parkings += 1;
    await recordProjectionFailure({
      envelopeId: this.input.envelopeId,
      organizationId: this.input.organizationId,
      ...this.parked,
    });
    await condition(() => this.resumeRequest !== null);
    if (this.resumeRequest?.sanitize) {
      for (const queued of this.pending) {
        queued.event = { ...queued.event, data: sanitizeJson(queued.event.data) };
      }
    }
    this.resumeRequest = null;
    this.parked = null;
  }

  /** A resume's answer: every transition decided before it is written, or the projection parked again. */
  private async resumed(parkings: number, target: number): Promise<EnvelopeState> {
    await condition(() => this.projectedSequence >= target || this.parkings > parkings);
    if (this.projectedSequence < target) {
      throw ApplicationFailure.nonRetryable(
        `The projection was parked again: ${this.parked?.reason ?? 'PostgreSQL refused a transition'}`,
        'ProjectionFailedAgain',
      );
    }
    return this.envelope.snapshot();
  }

  /** Sends one message in the background; when it settles, the model decides what its outcome changes. */
  private send(message: MessageRequest): void {
    if (!this.versions.sendsNotifications) return;
    // Decided before the first await, so the patch marker precedes the activity's command.
    const sendMessage = patched(NOTIFICATION_HEARTBEAT_PATCH)
      ? sendNotificationWithHeartbeat
      : sendNotification;
    const sending = (async () => {
      let outcome: MessageOutcome;
      try {
        const result = await sendMessage({
          notificationId: uuid4(),
          organizationId: this.input.organizationId,
          envelopeId: this.input.envelopeId,
          ...message,
        });
        outcome = { ok: true, result };
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        const cause = error.cause;
        outcome = {
          ok: false,
          failureType: cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Timeout',
          message: cause instanceof Error ? cause.message : error.message,
        };
      }
      this.carryOut(this.envelope.messageSettled(message, outcome));
    })();
    this.inflight.add(sending);
    void sending.finally(() => this.inflight.delete(sending));
  }

  /** Queues a decided transition; the main loop projects it, in order. */
  private queue(transition: DecidedTransition): void {
    this.pending.push({
      envelopeId: this.input.envelopeId,
      organizationId: this.input.organizationId,
      ...transition,
      occurredAt: new Date().toISOString(),
      ...(this.versions.emitsWebhooks ? { webhooks: true } : {}),
    });
  }

  /** Keeps the status search attribute current, when the workflow is indexed with it. */
  private index(status: EnvelopeStatus): void {
    if (!this.indexed || status === this.lastStatus) return;
    this.lastStatus = status;
    upsertSearchAttributes([{ key: searchAttributes.envelopeStatus, value: status }]);
  }
}

/** A projection PostgreSQL refused for a reason retrying cannot fix (activities/projection.ts). */
function isProjectionDataError(error: unknown): error is ActivityFailure & { cause: ApplicationFailure } {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === PROJECTION_DATA_ERROR
  );
}
