// The envelope workflow: one durable workflow per sent envelope, from send to a final status.
// It decides every transition; the projection activity writes each one to PostgreSQL in order.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { type EnvelopeStatus, isTerminalEnvelopeStatus } from '../domain/vocabulary.ts';
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
  type RecipientAuthenticationRequest,
  type RecipientOpenedRequest,
  type RecipientProgressRequest,
  recipientAuthenticationUpdate,
  recipientOpenedUpdate,
  recipientProgressUpdate,
  remindEnvelopeUpdate,
  retryFinalizationUpdate,
  type SignerActionOrigin,
  searchAttributes,
  sendEnvelopeUpdate,
} from './contracts.ts';
import { COMPLETION_ACTION, EnvelopeModel } from './envelope-model.ts';
import {
  NOTIFICATION_ACTIVITY_OPTIONS,
  type SendNotificationRequest,
  type SendNotificationResult,
} from './notification-contracts.ts';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions } from './webhook-contracts.ts';

const PROJECTION_TIMEOUT = '30 seconds';
const DAY_MS = 24 * 60 * 60 * 1000;
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

/** Envelopes whose last signature arrives on this code render a final PDF before they are Completed. */
const FINAL_PDF_PATCH = 'final-pdf-before-completed';
/** Runs started on this code queue a webhook delivery per subscribed endpoint for every event. */
const WEBHOOK_PATCH = 'webhook-events';
/** Runs started on this code send invitations, reminders and notices (sendNotification). */
const NOTIFICATIONS_PATCH = 'notifications';

type NotificationOutcome =
  | { ok: true; result: SendNotificationResult }
  | { ok: false; failureType: string; message: string };

export async function envelopeWorkflow(input: EnvelopeWorkflowInput): Promise<EnvelopeState> {
  const emitsWebhooks = patched(WEBHOOK_PATCH);
  const sendsNotifications = patched(NOTIFICATIONS_PATCH);
  /** Messages on their way; each records its outcome (through `record`) when it settles. */
  const inflight = new Set<Promise<void>>();
  const envelope = new EnvelopeModel(input);
  const pending: EnvelopeTransition[] = [];
  // A continued run starts with everything before it projected.
  let projectedSequence = envelope.sequence;

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
      ...(emitsWebhooks ? { webhooks: true } : {}),
    });
    return envelope.sequence;
  }

  /** Waits until the given transition is in PostgreSQL, so callers read what they caused. */
  async function projected(sequence: number): Promise<EnvelopeState> {
    await condition(() => projectedSequence >= sequence);
    return envelope.snapshot();
  }

  /** Sends one message in the background; `settled` decides what its outcome changes. */
  function notify(
    request: Omit<SendNotificationRequest, 'notificationId' | 'organizationId' | 'envelopeId'>,
    settled?: (outcome: NotificationOutcome) => void,
  ): void {
    if (!sendsNotifications) return;
    const message = (async () => {
      let outcome: NotificationOutcome;
      try {
        const result = await sendNotification({
          notificationId: uuid4(),
          organizationId: input.organizationId,
          envelopeId: input.envelopeId,
          ...request,
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
      settled?.(outcome);
    })();
    inflight.add(message);
    void message.finally(() => inflight.delete(message));
  }

  /** Invitations or reminders to recipients who may act: delivered → InvitationSent, failed → DeliveryFailed. */
  function reach(recipientIds: readonly string[], kind: 'invitation' | 'reminder'): void {
    for (const recipientId of recipientIds) {
      notify({ kind, recipientId }, (outcome) => {
        // Once the envelope is finished (or finalizing) a message changes nothing about it.
        if (envelope.whyClosed()) return;
        if (outcome.ok) {
          if (outcome.result.status !== 'sent') return;
          const changed = envelope.messageDelivered(recipientId);
          if (kind === 'invitation' || changed) {
            record('recipient.invitation_sent', recipientId, { kind, channel: outcome.result.channel });
          }
          return;
        }
        envelope.messageFailed(recipientId);
        record('recipient.delivery_failed', recipientId, {
          kind,
          failure_type: outcome.failureType,
          message: outcome.message,
        });
        const unreachable = envelope.failIfUnreachable();
        if (unreachable) record('envelope.delivery_failed', null, { recipient_ids: unreachable });
      });
    }
  }

  // Send: the first round may act, later rounds wait for their turn. Decided before any handler is set:
  // Updates that arrive with the start (such as an early extend) are delivered when their handler is set,
  // and must find the envelope sent.
  if (!input.carried) {
    envelope.refreshTurns();
    record('envelope.sent', null);
    reach(envelope.awaitedRecipients(), 'invitation');
  }

  setHandler(envelopeStateQuery, () => envelope.snapshot());

  // Sending is idempotent: a repeated send answers with the state once the send is projected.
  setHandler(sendEnvelopeUpdate, () => projected(1));

  setHandler(
    completeRecipientUpdate,
    (request: CompleteRecipientRequest) => {
      const { recipientId } = request;
      const data = { action: completionAction(envelope, recipientId), ...originData(request) };
      const waiting = new Set(
        [...envelope.recipientStatus].filter(([, status]) => status === 'WaitingForTurn').map(([id]) => id),
      );
      envelope.completeRecipient(recipientId);
      // The next round's recipients are invited as their turn comes.
      reach(
        [...waiting].filter((id) => envelope.recipientStatus.get(id) === 'Pending'),
        'invitation',
      );
      if (envelope.status === 'Completed' && patched(FINAL_PDF_PATCH)) {
        // Everyone required has completed: the main loop renders the final PDF, then completes.
        envelope.finishSigning(new Date().toISOString());
        return projected(record('recipient.completed', recipientId, data));
      }
      let sequence = record('recipient.completed', recipientId, data);
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
      notify({ kind: 'cancelled', reason: reason ?? null });
      return projected(record('envelope.cancelled', null, reason ? { reason } : {}));
    },
    {
      validator: (_request: CancelEnvelopeRequest) => {
        const reason = envelope.whyCannotCancel();
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'EnvelopeNotCancellable');
      },
    },
  );

  setHandler(
    declineRecipientUpdate,
    (request: DeclineRecipientRequest) => {
      const { recipientId, reason } = request;
      envelope.decline(recipientId);
      notify({ kind: 'declined', declinedByRecipientId: recipientId, reason: reason.trim() });
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
      if (!envelope.open(request.recipientId)) return projected(envelope.sequence);
      return projected(record('recipient.opened', request.recipientId, originData(request)));
    },
    {
      validator: ({ recipientId }: RecipientOpenedRequest) => {
        const reason = envelope.whyCannotAct(recipientId, 'open');
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'RecipientCannotOpen');
      },
    },
  );

  // One-time code steps, decided by the signer API that holds the codes; every one is an audit event.
  setHandler(
    recipientAuthenticationUpdate,
    (request: RecipientAuthenticationRequest) => {
      envelope.authenticate(request);
      const type = {
        code_sent: 'recipient.authentication_requested',
        verified: 'recipient.authentication_verified',
        failed: 'recipient.authentication_failed',
      }[request.outcome];
      return projected(
        record(type, request.recipientId, {
          ...(request.outcome === 'code_sent' && request.channel ? { channel: request.channel } : {}),
          ...(request.outcome === 'failed' && request.reason ? { reason: request.reason } : {}),
          ...originData(request),
        }),
      );
    },
    {
      validator: (request: RecipientAuthenticationRequest) => {
        const reason = envelope.whyCannotAuthenticate(request);
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'RecipientCannotAuthenticate');
      },
    },
  );

  // Viewing the document and starting to fill it in: recorded once each; a repeat records nothing.
  setHandler(
    recipientProgressUpdate,
    (request: RecipientProgressRequest) => {
      if (!envelope.progress(request)) return projected(envelope.sequence);
      const type = request.step === 'viewed' ? 'recipient.viewed' : 'recipient.started';
      return projected(record(type, request.recipientId, originData(request)));
    },
    {
      validator: (request: RecipientProgressRequest) => {
        const reason = envelope.whyCannotProgress(request);
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'RecipientCannotProgress');
      },
    },
  );

  setHandler(
    retryFinalizationUpdate,
    () => {
      envelope.retryFinalization();
      return projected(record('envelope.final_pdf_retried', null));
    },
    {
      validator: () => {
        const reason = envelope.whyCannotRetryFinalization();
        if (reason) throw ApplicationFailure.nonRetryable(reason, 'EnvelopeNotRetryable');
      },
    },
  );

  setHandler(
    remindEnvelopeUpdate,
    () => {
      const recipientIds = envelope.awaitedRecipients();
      reach(recipientIds, 'reminder');
      return projected(record('envelope.reminded', null, { recipient_ids: recipientIds }));
    },
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
  let lastStatus: EnvelopeStatus | undefined = input.carried?.indexedStatus ?? undefined;
  // Automatic reminders count from the send, every `everyDays`, at most `max` times.
  const nextReminder = input.carried?.reminders ?? {
    sent: 0,
    at: input.automaticReminders
      ? new Date(Date.now() + input.automaticReminders.everyDays * DAY_MS).toISOString()
      : null,
  };
  const historyLimit = input.continueAsNewAtHistoryLength ?? CONTINUE_AS_NEW_AT_HISTORY_LENGTH;
  /** Projects every decided transition, in order, starting the webhook deliveries each one queued. */
  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const transition = pending[0] as EnvelopeTransition;
      const projection = await projectEnvelopeTransition(transition);
      // One child per (event, endpoint), abandoned on close: deliveries outlive the envelope's workflow.
      for (const deliveryId of projection?.deliveryIds ?? []) {
        await startChild(WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryChildOptions(deliveryId));
      }
      projectedSequence = transition.sequence;
      pending.shift();
      if (indexed && transition.envelopeStatus !== lastStatus) {
        lastStatus = transition.envelopeStatus;
        upsertSearchAttributes([{ key: searchAttributes.envelopeStatus, value: lastStatus }]);
      }
    }
  }

  while (true) {
    await drain();
    if (longHistory() && !closedForGood()) {
      // Let accepted Updates answer and messages settle first; anything decided meanwhile is projected
      // before the run hands over.
      await condition(() => (allHandlersFinished() && inflight.size === 0) || pending.length > 0);
      if (pending.length > 0) continue;
      await continueAsNew<typeof envelopeWorkflow>({
        ...input,
        carried: envelope.carry(nextReminder, lastStatus ?? null),
      });
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
      if (recipientIds.length > 0) {
        reach(recipientIds, 'reminder');
        record('envelope.reminded', null, { recipient_ids: recipientIds, automatic: true });
      }
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

  function longHistory(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= historyLimit;
  }

  /** Finished and past any grace window, or finalizing: the run ends (or renders) rather than hand over. */
  function closedForGood(): boolean {
    if (envelope.status === 'ProcessingFinalPdf') return true;
    if (envelope.status === 'Expired') return envelope.graceUntil === null;
    return isTerminalEnvelopeStatus(envelope.status);
  }

  /** Renders and stores the final PDF and the audit trail; then Completed, or FinalPdfFailed with the reason. */
  async function finalize(): Promise<void> {
    try {
      const artifacts = await finalizeEnvelope({
        envelopeId: input.envelopeId,
        organizationId: input.organizationId,
        completedAt: envelope.signedAt ?? new Date().toISOString(),
      });
      envelope.finalized();
      // Everyone on the envelope, Cc included, learns it is complete and where the documents are.
      for (const recipient of input.recipients) notify({ kind: 'completed', recipientId: recipient.id });
      record('envelope.completed', null, completedEventData(input));
      record('document.final_pdf_ready', null, {
        envelope_id: input.envelopeId,
        final_pdf_file_id: artifacts.finalPdfFileId,
        audit_trail_file_id: artifacts.auditTrailFileId,
        final_pdf_sha256: artifacts.finalPdfSha256,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      envelope.finalizationFailed();
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      record('envelope.final_pdf_failed', null, { reason: cause });
    }
  }

  // Messages still on their way (completion notices, …) settle, and what they decided is projected.
  await drain();
  while (inflight.size > 0) {
    await condition(() => pending.length > 0 || inflight.size === 0);
    await drain();
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

/** What completing means for this recipient's type. */
function completionAction(envelope: EnvelopeModel, recipientId: string): string {
  const type = envelope.recipient(recipientId)?.type ?? 'Signer';
  return COMPLETION_ACTION[type];
}

function completedEventData(input: EnvelopeWorkflowInput): Record<string, unknown> {
  return {
    envelope_id: input.envelopeId,
    status: 'Completed',
    external_reference: input.externalReference ?? '',
  };
}
