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
  proxyActivities,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { EnvelopeStatus } from '../domain/vocabulary.ts';
import {
  type CarriedEnvelopeState,
  type EnvelopeState,
  type EnvelopeTransition,
  type EnvelopeWorkflowInput,
  searchAttributes,
} from './contracts.ts';
import type {
  DecidedTransition,
  Decision,
  EnvelopeModel,
  MessageOutcome,
  MessageRequest,
} from './envelope-model.ts';
import { NOTIFICATION_ACTIVITY_OPTIONS } from './notification-contracts.ts';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions } from './webhook-contracts.ts';

const PROJECTION_TIMEOUT = '30 seconds';
/** A run continues as new past this many history events (Temporal may suggest it earlier). */
const CONTINUE_AS_NEW_AT_HISTORY_LENGTH = 5000;

const { projectEnvelopeTransition } = proxyActivities<Activities>({
  startToCloseTimeout: PROJECTION_TIMEOUT,
  // A projection must land eventually: PostgreSQL outages are waited out, never skipped.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Rendering gets a few attempts; input that can never render fails at once (FinalPdfFailed). */
const FINALIZE_ATTEMPTS = 5;
const { finalizeEnvelope } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // The activity heartbeats between its steps, so a worker that dies while finalizing is noticed in
  // seconds, not after the whole start-to-close timeout. Well above the longest render measured.
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumAttempts: FINALIZE_ATTEMPTS,
    nonRetryableErrorTypes: ['PdfRenderError', 'EnvelopeNotFound'],
  },
});

const { sendNotification } = proxyActivities<Activities>(NOTIFICATION_ACTIVITY_OPTIONS);

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

  /** Waits until the given transition is in PostgreSQL, so callers read what they caused. */
  async projected(sequence: number): Promise<EnvelopeState> {
    await condition(() => this.projectedSequence >= sequence);
    return this.envelope.snapshot();
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

  /** Projects every decided transition, in order, starting the webhook deliveries each one queued. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const transition = this.pending[0] as EnvelopeTransition;
      const projection = await projectEnvelopeTransition(transition);
      // One child per (event, endpoint), abandoned on close: deliveries outlive the envelope's workflow.
      for (const deliveryId of projection?.deliveryIds ?? []) {
        await startChild(WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions(deliveryId));
      }
      this.projectedSequence = transition.sequence;
      this.pending.shift();
      this.index(transition.envelopeStatus);
    }
  }

  /** Renders and stores the final PDF and the audit trail; the model decides what the outcome changes. */
  async finalize(): Promise<void> {
    try {
      const artifacts = await finalizeEnvelope({
        envelopeId: this.input.envelopeId,
        organizationId: this.input.organizationId,
        completedAt: this.envelope.signedAt ?? new Date().toISOString(),
      });
      this.carryOut(this.envelope.finalPdfStored(artifacts));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      this.carryOut(this.envelope.finalPdfFailed(cause));
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

  /** Sends one message in the background; when it settles, the model decides what its outcome changes. */
  private send(message: MessageRequest): void {
    if (!this.versions.sendsNotifications) return;
    const sending = (async () => {
      let outcome: MessageOutcome;
      try {
        const result = await sendNotification({
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
