// The envelope workflow: one durable workflow per sent envelope, from send to a final status.
// It decides every transition; the projection activity writes each one to PostgreSQL in order.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  type CancelEnvelopeRequest,
  type CompleteRecipientRequest,
  cancelEnvelopeUpdate,
  completeRecipientUpdate,
  type DeclineRecipientRequest,
  declineRecipientUpdate,
  type EnvelopeState,
  type EnvelopeTransition,
  type EnvelopeWorkflowInput,
  type ExtendEnvelopeRequest,
  envelopeStateQuery,
  extendEnvelopeUpdate,
  type RecipientOpenedRequest,
  type RecipientPlan,
  recipientOpenedUpdate,
  remindEnvelopeUpdate,
  retryFinalizationUpdate,
  type SignerActionOrigin,
  searchAttributes,
  sendEnvelopeUpdate,
} from './contracts.ts';
import { type EnvelopeStatus, isTerminalEnvelopeStatus, type RecipientStatus } from './domain.ts';
import { actsInRounds, currentRoundIndex, planRounds } from './rounds.ts';

const PROJECTION_TIMEOUT = '30 seconds';
const DAY_MS = 24 * 60 * 60 * 1000;

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

/** Envelopes whose last signature arrives on this code render a final PDF before they are Completed. */
const FINAL_PDF_PATCH = 'final-pdf-before-completed';

/** Statuses in which the signing is over but the envelope is not finished: no signer or sender action. */
const FINALIZING: readonly EnvelopeStatus[] = ['ProcessingFinalPdf', 'FinalPdfFailed'];

/** The envelope as the workflow sees it: a small plain class, no Temporal APIs inside. */
class Envelope {
  readonly input: EnvelopeWorkflowInput;
  readonly rounds: string[][];
  readonly required: Set<string>;
  status: EnvelopeStatus = 'Sent';
  expiresAt: string | null;
  /** When the last required recipient completed. */
  signedAt: string | null = null;
  /** The state just before expiry, restored when an extension revives the envelope within the grace window. */
  beforeExpiry: { status: EnvelopeStatus; recipients: Map<string, RecipientStatus> } | null = null;
  /** Until when an Expired envelope may still be extended (ISO); null: it may not. */
  graceUntil: string | null = null;
  readonly recipientStatus = new Map<string, RecipientStatus>();
  sequence = 0;

  constructor(input: EnvelopeWorkflowInput) {
    this.input = input;
    this.expiresAt = input.expiresAt;
    this.rounds = planRounds(input.workflowType, input.recipients);
    this.required = new Set(input.recipients.filter((r) => r.required && actsInRounds(r)).map((r) => r.id));
  }

  recipient(id: string): RecipientPlan | undefined {
    return this.input.recipients.find((r) => r.id === id);
  }

  completed(): Set<string> {
    return new Set([...this.recipientStatus].filter(([, s]) => s === 'Completed').map(([id]) => id));
  }

  roundIndex(): number {
    return currentRoundIndex(this.rounds, this.required, this.completed());
  }

  roundOf(id: string): number {
    return this.rounds.findIndex((round) => round.includes(id));
  }

  /** Recipients whose round has come may act; later ones wait for their turn. */
  refreshTurns(): void {
    const current = this.roundIndex();
    for (const recipient of this.input.recipients) {
      const status = this.recipientStatus.get(recipient.id);
      if (status === 'Completed') continue;
      // A recipient who opened their link keeps that status while their round is in turn.
      if (status === 'LinkOpened' && this.roundOf(recipient.id) <= current) continue;
      if (!actsInRounds(recipient)) {
        this.recipientStatus.set(recipient.id, 'Pending');
        continue;
      }
      this.recipientStatus.set(
        recipient.id,
        this.roundOf(recipient.id) <= current ? 'Pending' : 'WaitingForTurn',
      );
    }
  }

  /** Why the envelope takes no more actions, or undefined while it is in progress. */
  whyClosed(): string | undefined {
    if (isTerminalEnvelopeStatus(this.status)) return `The envelope is ${this.status}.`;
    if (FINALIZING.includes(this.status)) {
      return `The envelope is ${this.status}: every required recipient has completed.`;
    }
    return undefined;
  }

  /** Why this recipient cannot complete now, or undefined when they can. */
  whyCannotComplete(recipientId: string): string | undefined {
    if (isTerminalEnvelopeStatus(this.status))
      return `The envelope is ${this.status}; nothing can be signed.`;
    if (FINALIZING.includes(this.status)) return `The envelope is ${this.status}; signing is over.`;
    const recipient = this.recipient(recipientId);
    if (!recipient) return `Recipient ${recipientId} does not belong to this envelope.`;
    if (!actsInRounds(recipient)) return `Recipient ${recipientId} is a Cc recipient and does not sign.`;
    if (this.recipientStatus.get(recipientId) === 'Completed')
      return `Recipient ${recipientId} has already completed.`;
    if (this.recipientStatus.get(recipientId) === 'WaitingForTurn') {
      return `Recipient ${recipientId} is not yet in turn: recipients with an earlier signing order must complete first.`;
    }
    return undefined;
  }

  completeRecipient(recipientId: string): void {
    this.recipientStatus.set(recipientId, 'Completed');
    if (this.roundIndex() >= this.rounds.length) {
      this.status = 'Completed';
      return;
    }
    this.refreshTurns();
    const roundChanged = this.roundOf(recipientId) < this.roundIndex();
    this.status = roundChanged ? 'WaitingForNextSigner' : 'InProgress';
  }

  /** Recipients who may act now and have not yet: the ones a reminder is for. */
  awaitedRecipients(): string[] {
    return [...this.recipientStatus]
      .filter(
        ([id, status]) =>
          (status === 'Pending' || status === 'LinkOpened') &&
          actsInRounds(this.recipient(id) as RecipientPlan),
      )
      .map(([id]) => id);
  }

  whyCannotRemind(): string | undefined {
    const closed = this.whyClosed();
    if (closed) return `${closed} There is no one to remind.`;
    if (this.awaitedRecipients().length === 0) return 'No recipient is waiting to act.';
    return undefined;
  }

  whyCannotExtend(expiresAt: string, now: number): string | undefined {
    const revivable =
      this.status === 'Expired' && this.graceUntil !== null && now < Date.parse(this.graceUntil);
    const closed = revivable ? undefined : this.whyClosed();
    if (closed) return `${closed} Its deadline cannot change.`;
    const next = Date.parse(expiresAt);
    if (Number.isNaN(next)) return `expiresAt ${expiresAt} is not a date-time.`;
    if (next <= now) return 'The new expiresAt must be in the future.';
    if (this.expiresAt !== null && next <= Date.parse(this.expiresAt)) {
      return `The new expiresAt must be later than the current deadline ${this.expiresAt}.`;
    }
    return undefined;
  }

  /** The deadline passed; with a grace window the state is kept so an extension can revive it. */
  expire(graceDays: number, now: number): void {
    this.beforeExpiry = { status: this.status, recipients: new Map(this.recipientStatus) };
    this.graceUntil = graceDays > 0 ? new Date(now + graceDays * DAY_MS).toISOString() : null;
    this.finish('Expired');
  }

  /** An extension within the grace window: the envelope continues where it stood at expiry. */
  revive(): void {
    if (this.status !== 'Expired' || !this.beforeExpiry) return;
    this.status = this.beforeExpiry.status;
    for (const [id, status] of this.beforeExpiry.recipients) this.recipientStatus.set(id, status);
    this.beforeExpiry = null;
    this.graceUntil = null;
  }

  /** Ends the envelope; every recipient who had not completed takes the same final status. */
  finish(status: 'Cancelled' | 'Expired'): void {
    this.status = status;
    for (const [id, recipientStatus] of this.recipientStatus) {
      if (recipientStatus !== 'Completed') this.recipientStatus.set(id, status);
    }
  }

  /** Why this recipient cannot decline now, or undefined when they can (the same turn rules as completing). */
  whyCannotDecline(recipientId: string, reason: string): string | undefined {
    if (reason.trim() === '') return 'A reason is required to decline.';
    return this.whyCannotComplete(recipientId)?.replace(
      'complete first',
      'complete before anyone later may act',
    );
  }

  /** The first open of a recipient's link: LinkOpened; a Sent envelope becomes Opened. */
  open(recipientId: string): void {
    this.recipientStatus.set(recipientId, 'LinkOpened');
    if (this.status === 'Sent') this.status = 'Opened';
  }

  /** A recipient declined: the envelope stops; everyone else who had not completed is Cancelled. */
  decline(recipientId: string): void {
    this.finish('Cancelled');
    this.status = 'Declined';
    this.recipientStatus.set(recipientId, 'Declined');
  }

  snapshot(): EnvelopeState {
    return {
      envelopeId: this.input.envelopeId,
      status: this.status,
      expiresAt: this.expiresAt,
      recipients: this.input.recipients.map((r) => ({
        id: r.id,
        status: this.recipientStatus.get(r.id) ?? 'Pending',
      })),
      sequence: this.sequence,
    };
  }
}

export async function envelopeWorkflow(input: EnvelopeWorkflowInput): Promise<EnvelopeState> {
  const envelope = new Envelope(input);
  const pending: EnvelopeTransition[] = [];
  let projectedSequence = 0;

  /** Decides a transition now; the main loop projects it, in order. Returns its sequence. */
  function record(type: string, recipientId: string | null, data: Record<string, unknown> = {}): number {
    envelope.sequence += 1;
    const state = envelope.snapshot();
    pending.push({
      envelopeId: input.envelopeId,
      organizationId: input.organizationId,
      sequence: envelope.sequence,
      envelopeStatus: state.status,
      expiresAt: state.expiresAt,
      recipients: state.recipients,
      event: { type, recipientId, data },
      occurredAt: new Date().toISOString(),
    });
    return envelope.sequence;
  }

  /** Waits until the given transition is in PostgreSQL, so callers read what they caused. */
  async function projected(sequence: number): Promise<EnvelopeState> {
    await condition(() => projectedSequence >= sequence);
    return envelope.snapshot();
  }

  // Send: the first round may act, later rounds wait for their turn. Decided before any handler is set:
  // Updates that arrive with the start (such as an early extend) are delivered when their handler is set,
  // and must find the envelope sent.
  envelope.refreshTurns();
  record('envelope.sent', null);

  setHandler(envelopeStateQuery, () => envelope.snapshot());

  // Sending is idempotent: a repeated send answers with the state once the send is projected.
  setHandler(sendEnvelopeUpdate, () => projected(1));

  setHandler(
    completeRecipientUpdate,
    (request: CompleteRecipientRequest) => {
      const { recipientId } = request;
      envelope.completeRecipient(recipientId);
      if (envelope.status === 'Completed' && patched(FINAL_PDF_PATCH)) {
        // Everyone required has completed: the main loop renders the final PDF, then completes.
        envelope.status = 'ProcessingFinalPdf';
        envelope.signedAt = new Date().toISOString();
        return projected(record('recipient.completed', recipientId, originData(request)));
      }
      let sequence = record('recipient.completed', recipientId, originData(request));
      if (envelope.status === 'Completed') {
        sequence = record('envelope.completed', null, completedEventData(input));
      }
      return projected(sequence);
    },
    {
      validator: ({ recipientId }: CompleteRecipientRequest) => {
        const reason = envelope.whyCannotComplete(recipientId);
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'RecipientCannotComplete');
      },
    },
  );

  setHandler(
    cancelEnvelopeUpdate,
    ({ reason }: CancelEnvelopeRequest) => {
      envelope.finish('Cancelled');
      return projected(record('envelope.cancelled', null, reason ? { reason } : {}));
    },
    {
      validator: (_request: CancelEnvelopeRequest) => {
        if (isTerminalEnvelopeStatus(envelope.status)) {
          throw ApplicationFailure.nonRetryable(
            `The envelope is already ${envelope.status} and cannot be cancelled.`,
            'EnvelopeNotCancellable',
          );
        }
        if (FINALIZING.includes(envelope.status)) {
          throw ApplicationFailure.nonRetryable(
            `The envelope is ${envelope.status}: every required recipient has completed, so it cannot be cancelled.`,
            'EnvelopeNotCancellable',
          );
        }
      },
    },
  );

  setHandler(
    declineRecipientUpdate,
    (request: DeclineRecipientRequest) => {
      const { recipientId, reason } = request;
      envelope.decline(recipientId);
      return projected(
        record('recipient.declined', recipientId, { reason: reason.trim(), ...originData(request) }),
      );
    },
    {
      validator: ({ recipientId, reason }: DeclineRecipientRequest) => {
        const why = envelope.whyCannotDecline(recipientId, typeof reason === 'string' ? reason : '');
        if (why) throw ApplicationFailure.nonRetryable(why, 'RecipientCannotDecline');
      },
    },
  );

  // Opening a link records once; a later open (or an open by a recipient who cannot act) records nothing.
  setHandler(
    recipientOpenedUpdate,
    (request: RecipientOpenedRequest) => {
      if (envelope.recipientStatus.get(request.recipientId) !== 'Pending') {
        return projected(envelope.sequence);
      }
      envelope.open(request.recipientId);
      return projected(record('recipient.opened', request.recipientId, originData(request)));
    },
    {
      validator: ({ recipientId }: RecipientOpenedRequest) => {
        const reason = envelope.whyCannotComplete(recipientId);
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'RecipientCannotOpen');
      },
    },
  );

  setHandler(
    retryFinalizationUpdate,
    () => {
      envelope.status = 'ProcessingFinalPdf';
      return projected(record('envelope.final_pdf_retried', null));
    },
    {
      validator: () => {
        if (envelope.status !== 'FinalPdfFailed') {
          throw ApplicationFailure.nonRetryable(
            `The envelope is ${envelope.status}; only a FinalPdfFailed envelope is finalized again.`,
            'EnvelopeNotRetryable',
          );
        }
      },
    },
  );

  setHandler(
    remindEnvelopeUpdate,
    () => projected(record('envelope.reminded', null, { recipient_ids: envelope.awaitedRecipients() })),
    {
      validator: () => {
        const reason = envelope.whyCannotRemind();
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'EnvelopeNotRemindable');
      },
    },
  );

  setHandler(
    extendEnvelopeUpdate,
    ({ expiresAt }: ExtendEnvelopeRequest) => {
      const previous = envelope.expiresAt;
      const revived = envelope.status === 'Expired';
      envelope.revive();
      envelope.expiresAt = new Date(Date.parse(expiresAt)).toISOString();
      return projected(
        record('envelope.extended', null, {
          previous_expires_at: previous,
          expires_at: envelope.expiresAt,
          ...(revived ? { revived_from: 'Expired' } : {}),
        }),
      );
    },
    {
      validator: ({ expiresAt }: ExtendEnvelopeRequest) => {
        const reason = envelope.whyCannotExtend(expiresAt, Date.now());
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'EnvelopeNotExtendable');
      },
    },
  );

  // The status attribute is kept current when the starter indexed the workflow with it (sendEnvelope
  // does); a server without Sigil's search attributes (such as the time-skipping test server) rejects them.
  const indexed = workflowInfo().typedSearchAttributes.get(searchAttributes.envelopeStatus) !== undefined;
  let lastStatus: EnvelopeStatus | undefined;
  // Automatic reminders count from the send, every `everyDays`, at most `max` times.
  const nextReminder = {
    sent: 0,
    at: input.automaticReminders
      ? new Date(Date.now() + input.automaticReminders.everyDays * DAY_MS).toISOString()
      : null,
  };
  while (true) {
    while (pending.length > 0) {
      const transition = pending[0] as EnvelopeTransition;
      await projectEnvelopeTransition(transition);
      projectedSequence = transition.sequence;
      pending.shift();
      if (indexed && transition.envelopeStatus !== lastStatus) {
        lastStatus = transition.envelopeStatus;
        upsertSearchAttributes([{ key: searchAttributes.envelopeStatus, value: lastStatus }]);
      }
    }
    if (envelope.status === 'Expired' && envelope.graceUntil !== null) {
      // Within the grace window an extend revives the envelope; after it the envelope stays Expired.
      const graceLeft = Date.parse(envelope.graceUntil) - Date.now();
      if (graceLeft > 0 && (await condition(() => pending.length > 0, graceLeft))) continue;
      break;
    }
    if (isTerminalEnvelopeStatus(envelope.status)) break;

    if (envelope.status === 'ProcessingFinalPdf') {
      await finalize();
      continue;
    }
    if (envelope.status === 'FinalPdfFailed') {
      // Signing is over, so the deadline no longer applies: wait for an operator's retry.
      await condition(() => pending.length > 0);
      continue;
    }

    // The deadline is read again on every pass, so an extension takes effect at once. An automatic
    // reminder due before the deadline wakes the loop first.
    const reminderDue =
      nextReminder.at !== null && Date.parse(nextReminder.at) < deadlineMs(envelope.expiresAt);
    const wakeAt = reminderDue ? nextReminder.at : envelope.expiresAt;
    const somethingHappened = await waitForChange(() => pending.length > 0, wakeAt);
    if (somethingHappened) continue;
    if (reminderDue && input.automaticReminders) {
      nextReminder.sent += 1;
      const recipientIds = envelope.awaitedRecipients();
      if (recipientIds.length > 0)
        record('envelope.reminded', null, { recipient_ids: recipientIds, automatic: true });
      nextReminder.at =
        nextReminder.sent < input.automaticReminders.max
          ? new Date(
              Date.parse(nextReminder.at as string) + input.automaticReminders.everyDays * DAY_MS,
            ).toISOString()
          : null;
      continue;
    }
    envelope.expire(input.expiredExtensionGraceDays ?? 0, Date.now());
    record('envelope.expired', null, { expires_at: envelope.expiresAt });
  }

  /** Renders and stores the final PDF and the audit trail; then Completed, or FinalPdfFailed with the reason. */
  async function finalize(): Promise<void> {
    try {
      const artifacts = await finalizeEnvelope({
        envelopeId: input.envelopeId,
        organizationId: input.organizationId,
        completedAt: envelope.signedAt ?? new Date().toISOString(),
      });
      envelope.status = 'Completed';
      record('envelope.completed', null, completedEventData(input));
      record('document.final_pdf_ready', null, {
        envelope_id: input.envelopeId,
        final_pdf_file_id: artifacts.finalPdfFileId,
        audit_trail_file_id: artifacts.auditTrailFileId,
        final_pdf_sha256: artifacts.finalPdfSha256,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      envelope.status = 'FinalPdfFailed';
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      record('envelope.final_pdf_failed', null, { reason: cause });
    }
  }

  // Let in-flight update handlers return their answers before the workflow closes.
  await condition(allHandlersFinished);
  return envelope.snapshot();
}

/** Waits for `changed` or the deadline; false means the deadline passed first. */
async function waitForChange(changed: () => boolean, expiresAt: string | null): Promise<boolean> {
  if (expiresAt === null) {
    await condition(changed);
    return true;
  }
  return condition(changed, Math.max(1, Date.parse(expiresAt) - Date.now()));
}

function deadlineMs(expiresAt: string | null): number {
  return expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(expiresAt);
}

/** A signer action's origin as audit-event data; nothing when the action came from the operator side. */
function originData(origin: SignerActionOrigin): Record<string, unknown> {
  return {
    ...(origin.ip ? { ip: origin.ip } : {}),
    ...(origin.userAgent ? { user_agent: origin.userAgent } : {}),
  };
}

function completedEventData(input: EnvelopeWorkflowInput): Record<string, unknown> {
  return {
    envelope_id: input.envelopeId,
    status: 'Completed',
    external_reference: input.externalReference ?? '',
  };
}
