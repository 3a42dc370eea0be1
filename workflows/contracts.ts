// The envelope workflow's public surface: input, state, updates, queries, search attributes.
// Shared by the workflow (which handles the messages) and the API, CLI and tests (which send them).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  AuthenticationMethod,
  DeliveryChannel,
  EnvelopeStatus,
  RecipientStatus,
  RecipientType,
  WorkflowType,
} from '../domain/vocabulary.ts';

export const ENVELOPE_TASK_QUEUE = 'envelopes';
export const ENVELOPE_WORKFLOW_TYPE = 'envelopeWorkflow';
/**
 * The envelope workflow's workflow task timeout (start to close), set when it is started and carried over by
 * continue-as-new. It is how long a workflow task held by a worker that died (SIGKILL, a lost machine) blocks
 * the envelope — and a signer's Update in it — before Temporal hands the task to another worker: Temporal's
 * default, 10 s, was the 10 s a signer waited after a worker kill. Measured (the chaos run with 20 worker
 * kills on 2 cores at load average ~6, docs/development.md "The chaos run"): workflow tasks took 0.2 s at the
 * median, 2.4 s at the 99th percentile and 4.35 s at the slowest, so 5 s keeps 2× over the 99th percentile and
 * stays above the slowest seen. A live task slower than this is not lost: Temporal times it out and it runs
 * again after a replay, which costs that replay.
 */
export const ENVELOPE_WORKFLOW_TASK_TIMEOUT = '5 seconds';
/**
 * The envelope workflow's signature (workflows/envelope.ts, checked by test/unit/workflow-types.test.ts):
 * callers start it by ENVELOPE_WORKFLOW_TYPE with this type, so they never import the workflow module, which
 * imports its activities' types.
 */
export type EnvelopeWorkflow = (input: EnvelopeWorkflowInput) => Promise<EnvelopeState>;

export function envelopeWorkflowId(envelopeId: string): string {
  return `envelope/${envelopeId}`;
}

/** Custom search attributes operators filter by in the Temporal Web UI. */
export const searchAttributes = {
  organizationId: defineSearchAttributeKey('SigilOrganizationId', SearchAttributeType.KEYWORD),
  envelopeStatus: defineSearchAttributeKey('SigilEnvelopeStatus', SearchAttributeType.KEYWORD),
  externalReference: defineSearchAttributeKey('SigilExternalReference', SearchAttributeType.KEYWORD),
} as const;

export interface RecipientPlan {
  id: string;
  signingOrder: number;
  type: RecipientType;
  /** Whether the envelope waits for this recipient (from the template role's `required`). */
  required: boolean;
  /**
   * How the recipient proves who they are (absent in envelopes sent before one-time codes existed, which
   * are treated as `SecureLink`). An `OtpSms` / `OtpWhatsApp` recipient completes only after verification.
   */
  authenticationMethod?: AuthenticationMethod;
}

export interface EnvelopeWorkflowInput {
  envelopeId: string;
  organizationId: string;
  externalReference: string | null;
  workflowType: WorkflowType;
  /** Signing deadline, ISO 8601 UTC; null means no deadline. */
  expiresAt: string | null;
  recipients: RecipientPlan[];
  /** Automatic reminders to the recipients in turn (absent in envelopes sent before they existed). */
  automaticReminders?: { everyDays: number; max: number } | null;
  /** Days after expiry during which an extend revives the envelope (absent: it ends at expiry). */
  expiredExtensionGraceDays?: number;
  /**
   * Days before the deadline when every recipient who can still act is warned (`expiring_soon`); absent or 0:
   * no warning (every envelope sent before deadline warnings existed).
   */
  expiringSoonDays?: number;
  /**
   * Whether a recipient in turn may hand their part to another person (`delegateRecipient`); absent (every
   * envelope sent before delegation existed, and those that do not allow it): no.
   */
  allowDelegation?: boolean;
  /**
   * The run continues as new once its history holds this many events (default 5,000; Temporal also suggests
   * it earlier when the history grows large). Lowered only by tests.
   */
  continueAsNewAtHistoryLength?: number;
  /** Set when a run continues as new: everything the previous run had decided. */
  carried?: CarriedEnvelopeState;
}

/** The workflow's memory, handed from one run to the next by continue-as-new. */
export interface CarriedEnvelopeState {
  status: EnvelopeStatus;
  expiresAt: string | null;
  signedAt: string | null;
  sequence: number;
  recipients: RecipientState[];
  /** Recipients who verified a one-time code at least once. */
  verified: string[];
  beforeExpiry: { status: EnvelopeStatus; recipients: RecipientState[] } | null;
  graceUntil: string | null;
  /** The status to resume when a DeliveryFailed envelope reaches someone (absent before notifications). */
  beforeDeliveryFailure?: EnvelopeStatus | null;
  reminders: { sent: number; at: string | null };
  /** The reminder and deadline settings as last changed (absent: the input's, never changed). */
  settings?: EnvelopeSettings;
  /** When the deadline warning is due (absent: none). */
  expiryWarningAt?: string | null;
  /** The status last written to the search attribute. */
  indexedStatus: EnvelopeStatus | null;
}

export interface RecipientState {
  id: string;
  status: RecipientStatus;
}

export interface EnvelopeState {
  envelopeId: string;
  status: EnvelopeStatus;
  expiresAt: string | null;
  recipients: RecipientState[];
  /** Number of transitions decided so far; each is projected to PostgreSQL under this sequence. */
  sequence: number;
}

/** Where a signer's action came from, recorded in the audit event's data as `ip` and `user_agent`. */
export interface SignerActionOrigin {
  ip?: string;
  userAgent?: string;
}

export interface CompleteRecipientRequest extends SignerActionOrigin {
  recipientId: string;
}

/** A recipient opened their signing link (the first time: later opens record nothing). */
export interface RecipientOpenedRequest extends SignerActionOrigin {
  recipientId: string;
}

/**
 * A signer's progress that the audit trail records: `viewed` when they load the document, `started` when
 * they first save a field value. Each is recorded once per recipient.
 */
export interface RecipientProgressRequest extends SignerActionOrigin {
  recipientId: string;
  step: 'viewed' | 'started';
}

/**
 * A one-time code step of an `OtpSms` / `OtpWhatsApp` recipient, decided by the signer API (which holds the
 * codes): a code was sent, a code was verified, or a verification failed (`reason`: `wrong_code`,
 * `expired`, `too_many_attempts`).
 */
export interface RecipientAuthenticationRequest extends SignerActionOrigin {
  recipientId: string;
  outcome: 'code_sent' | 'verified' | 'failed';
  channel?: 'Sms' | 'WhatsApp';
  reason?: 'wrong_code' | 'expired' | 'too_many_attempts';
}

export interface CancelEnvelopeRequest {
  reason?: string;
  /** The business app's user who cancels (absent: the public API, the CLI); the sender is told when it is not them. */
  cancelledByUserId?: string;
}

export interface DeclineRecipientRequest extends SignerActionOrigin {
  recipientId: string;
  /** Why the recipient declines; required (the specification's signer rule 5). */
  reason: string;
}

/** A person as a delegation names them: who handed their part over, and to whom. */
export interface DelegationParty {
  fullName: string;
  email: string | null;
  phone: string | null;
  deliveryChannel: DeliveryChannel;
  language?: string | null;
}

/**
 * A recipient in turn hands their part to another person (POST /api/signing/{token}/delegate): the recipient
 * keeps their id, role, fields and place in the signing order, and `to` becomes who they are; the projection
 * writes `to` to the recipient's row and ends the links and signer sessions of `from`, and the invitation
 * goes to `to` once that is written.
 */
export interface DelegateRecipientRequest extends SignerActionOrigin {
  recipientId: string;
  from: DelegationParty;
  to: DelegationParty;
}

/**
 * The sender corrects a recipient who has not completed (PATCH /api/v1/envelopes/{id}/recipients/{recipientId},
 * docs/envelope-lifecycle.md "Correcting a recipient"): `from` is who the recipient was, `to` who they are now
 * (the same recipient: id, role, fields and place in the order). The projection writes `to` to the row and ends
 * the recipient's links, signer sessions, codes and saved values; a recipient in turn is invited again at the
 * new address once that is written.
 */
export interface CorrectRecipientRequest {
  recipientId: string;
  from: DelegationParty;
  to: DelegationParty;
}

/** A reminder: to one recipient who may act now, or (no recipient id, as every caller before sent) to all. */
export interface RemindEnvelopeRequest {
  recipientId?: string;
}

/** An envelope's reminder and deadline settings as its workflow holds them. */
export interface EnvelopeSettings {
  automaticReminders: { everyDays: number; max: number } | null;
  /** Days before the deadline for the `expiring_soon` warning; 0: none. */
  expiringSoonDays: number;
  expiredExtensionGraceDays: number;
}

/**
 * A change of the settings while the envelope is open (`updateEnvelopeSettings`): each absent part stays as it
 * is; `automaticReminders: null` stops them. A new reminder schedule counts from the change, a new lead time
 * from the deadline.
 */
export type UpdateEnvelopeSettingsRequest = Partial<EnvelopeSettings>;

export interface ExtendEnvelopeRequest {
  /** The new deadline, ISO 8601; must be in the future and later than the current one. */
  expiresAt: string;
}

/** Sent together with the workflow start (update-with-start); returns the state after sending. */
export const sendEnvelopeUpdate = defineUpdate<EnvelopeState>('sendEnvelope');
export const completeRecipientUpdate = defineUpdate<EnvelopeState, [CompleteRecipientRequest]>(
  'completeRecipient',
);
export const cancelEnvelopeUpdate = defineUpdate<EnvelopeState, [CancelEnvelopeRequest]>('cancelEnvelope');
export const declineRecipientUpdate = defineUpdate<EnvelopeState, [DeclineRecipientRequest]>(
  'declineRecipient',
);
export const recipientOpenedUpdate = defineUpdate<EnvelopeState, [RecipientOpenedRequest]>('recipientOpened');
export const recipientProgressUpdate = defineUpdate<EnvelopeState, [RecipientProgressRequest]>(
  'recipientProgress',
);
export const recipientAuthenticationUpdate = defineUpdate<EnvelopeState, [RecipientAuthenticationRequest]>(
  'recipientAuthentication',
);
/**
 * Who asks for the final PDF again: a sender in the business app, recorded as `requested_by: "sender"` so the
 * audit trail names them; without it (the operator command, and every retry before the business app) the
 * audit trail names an operator.
 */
export interface RetryFinalizationRequest {
  requestedBy?: 'sender';
}

/**
 * Operators and senders: render the final PDF again after FinalPdfFailed. Sent without an argument by code
 * before the business app: the handler takes it as absent.
 */
export const retryFinalizationUpdate = defineUpdate<EnvelopeState, [RetryFinalizationRequest]>(
  'retryFinalization',
);
/** Sent without an argument by callers before the one-recipient reminder: the handler takes it as absent. */
export const remindEnvelopeUpdate = defineUpdate<EnvelopeState, [RemindEnvelopeRequest]>('remindEnvelope');
export const delegateRecipientUpdate = defineUpdate<EnvelopeState, [DelegateRecipientRequest]>(
  'delegateRecipient',
);
export const extendEnvelopeUpdate = defineUpdate<EnvelopeState, [ExtendEnvelopeRequest]>('extendEnvelope');
export const updateEnvelopeSettingsUpdate = defineUpdate<EnvelopeState, [UpdateEnvelopeSettingsRequest]>(
  'updateEnvelopeSettings',
);
export const correctRecipientUpdate = defineUpdate<EnvelopeState, [CorrectRecipientRequest]>(
  'correctRecipient',
);

/**
 * A message the provider accepted failed later (docs/notifications.md, "Bounces and carrier failures"): an email's
 * delivery status notification, or Twilio's `undelivered`/`failed` status. It is the message's failure for good.
 */
export interface ReportDeliveryFailureRequest {
  /** The notification row of the message (its VERP address or status callback names it). */
  notificationId: string;
  recipientId: string;
  kind: 'invitation' | 'reminder';
  /** `Bounced` (an email's DSN) or `CarrierFailed` (Twilio's status). */
  failureType: 'Bounced' | 'CarrierFailed';
  /** The DSN's status code and diagnostic, or Twilio's status and error code. */
  message: string;
}
export const reportDeliveryFailureUpdate = defineUpdate<EnvelopeState, [ReportDeliveryFailureRequest]>(
  'reportDeliveryFailure',
);
export const envelopeStateQuery = defineQuery<EnvelopeState>('envelopeState');

/** What the workflow waits for now (EnvelopeLiveView.waitingFor). */
export type EnvelopeWaitingFor =
  /** Recipients in turn to act (until the deadline, or the next automatic reminder). */
  | 'recipients'
  /** The final PDF and the audit trail being rendered. */
  | 'final_pdf'
  /** A retry of the final PDF after it failed (a sender or an operator). */
  | 'final_pdf_retry'
  /** An extension of an Expired envelope within its grace window (until `graceUntil`). */
  | 'extension'
  /** An operator's repair of a parked projection (docs/envelope-lifecycle.md). */
  | 'projection_repair'
  /** Nothing more: the envelope is finished. */
  | 'nothing';

/**
 * The workflow's own view of a running envelope, for the business app's envelope page: what PostgreSQL does
 * not hold (the round in turn as the workflow plans it, the automatic reminders' schedule, the grace window,
 * the projection's progress) next to what it does.
 */
export interface EnvelopeLiveView {
  envelopeId: string;
  status: EnvelopeStatus;
  waitingFor: EnvelopeWaitingFor;
  /** The round in turn (1-based) of how many, and its recipients; null when no round is in turn. */
  openRound: { number: number; of: number; recipientIds: string[] } | null;
  /** Recipients who may act now and have not yet (those a reminder goes to). */
  awaitedRecipientIds: string[];
  /** The signing deadline (ISO 8601); null: none. */
  deadline: string | null;
  /** When the next automatic reminder goes out (before the deadline); null: none is planned. */
  nextReminderAt: string | null;
  /** The organization's automatic reminders when sent: how many went out of how many, every how many days. */
  automaticReminders: { sent: number; max: number; everyDays: number } | null;
  /** When the "expiring soon" warning goes to the recipients who can still act; null: none is planned. */
  expiryWarningAt?: string | null;
  /** Until when an Expired envelope may be revived by an extension; null otherwise. */
  graceUntil: string | null;
  projection: ProjectionStatus;
}

/**
 * The failure type of a projection that PostgreSQL refused for a reason retrying cannot fix (SQLSTATE class 22,
 * data exceptions, or 23, integrity violations). The workflow parks instead of retrying.
 */
export const PROJECTION_DATA_ERROR = 'ProjectionDataError';

/**
 * Finalization's failure type when the organization's policy requires a timestamp and no authority answered
 * (docs/sealing.md): the workflow waits and tries again on the schedule in the failure's details, then
 * records FinalPdfFailed.
 */
export const TIMESTAMP_UNAVAILABLE = 'TimestampUnavailable';

/** The details of a TimestampUnavailable failure. */
export interface TimestampRetrySchedule {
  retryInitialMs: number;
  giveUpAfterMs: number;
}
/** The failure type of an Update refused, or left unanswered, while the envelope's projection is parked. */
export const ENVELOPE_RECORD_BEING_REPAIRED = 'EnvelopeRecordBeingRepaired';

/** Why and since when an envelope's projection is parked. */
export interface ParkedProjection {
  /** The transition PostgreSQL refused (it and every later one stay queued). */
  sequence: number;
  eventType: string;
  /** PostgreSQL's refusal, without what it could not store. */
  reason: string;
  sqlState: string | null;
  /** ISO 8601. */
  since: string;
}

/** Where an envelope's projection stands (answered by the workflow, whatever PostgreSQL holds). */
export interface ProjectionStatus {
  /** The last transition written to PostgreSQL. */
  projectedSequence: number;
  /** The last transition decided. */
  decidedSequence: number;
  parked: ParkedProjection | null;
}

export const projectionStatusQuery = defineQuery<ProjectionStatus>('projectionStatus');

/** The live view of the envelope (a query: it changes nothing and adds nothing to the history). */
export const envelopeLiveViewQuery = defineQuery<EnvelopeLiveView>('envelopeLiveView');

export interface ResumeProjectionRequest {
  /**
   * Before retrying, replace what PostgreSQL cannot store (NUL, unpaired surrogates, control characters) in
   * the queued transitions' event data with U+FFFD: the repair for text an older workflow accepted.
   */
  sanitize?: boolean;
}

/**
 * Operators: after the cause of a parked projection is repaired, project the queued transitions again. Answers
 * once they are all written; fails (`ProjectionFailedAgain`) when PostgreSQL refuses again.
 */
export const resumeProjectionUpdate = defineUpdate<EnvelopeState, [ResumeProjectionRequest]>(
  'resumeProjection',
);

/** What the workflow asks the `recordProjectionFailure` activity to write on the envelope row. */
export interface ProjectionFailureRecord extends ParkedProjection {
  envelopeId: string;
  organizationId: string;
}

/** One decided transition, written to PostgreSQL by the projection activity. */
export interface EnvelopeTransition {
  envelopeId: string;
  organizationId: string;
  sequence: number;
  envelopeStatus: EnvelopeStatus;
  /** The deadline after this transition (absent in transitions recorded before extend existed). */
  expiresAt?: string | null;
  recipients: RecipientState[];
  event: {
    type: string;
    recipientId: string | null;
    data: Record<string, unknown>;
  };
  occurredAt: string;
  /**
   * Whether the projection queues webhook deliveries for this event (set by runs that started on code with
   * webhooks; absent in older histories, whose projections queued none).
   */
  webhooks?: boolean;
}
