// The envelope as the workflow sees it: statuses, turns and the rules for every action. A plain class
// with no Temporal APIs, so the workflow, the transition-table test and the documentation share it.
//
// Every message, timer and activity outcome the workflow receives has a method here that validates it
// (`whyCannot…`: the reason it is refused, or undefined) and one that decides it: the method changes the
// envelope and returns a `Decision`: the transitions to record and the messages to send. The workflow
// (envelope.ts, with envelope-run.ts) carries decisions out; it decides nothing about the envelope itself.

import { sanitizeText, textProblem } from '../domain/text.ts';
import {
  DELIVERY_CHANNELS,
  type EnvelopeStatus,
  isTerminalEnvelopeStatus,
  type RecipientStatus,
} from '../domain/vocabulary.ts';
import type {
  CancelEnvelopeRequest,
  CarriedEnvelopeState,
  CompleteRecipientRequest,
  CorrectRecipientRequest,
  DeclineRecipientRequest,
  DelegateRecipientRequest,
  DelegationParty,
  EnvelopeLiveView,
  EnvelopeSettings,
  EnvelopeState,
  EnvelopeTransition,
  EnvelopeWaitingFor,
  EnvelopeWorkflowInput,
  ExtendEnvelopeRequest,
  ProjectionStatus,
  RecipientAuthenticationRequest,
  RecipientOpenedRequest,
  RecipientPlan,
  RecipientProgressRequest,
  RemindEnvelopeRequest,
  ReportDeliveryFailureRequest,
  RetryFinalizationRequest,
  SignerActionOrigin,
  UpdateEnvelopeSettingsRequest,
} from './contracts.ts';
import type { SendNotificationRequest, SendNotificationResult } from './notification-contracts.ts';
import { actsInRounds, currentRoundIndex, planRounds } from './rounds.ts';
import { ACTING_RECIPIENT_STATUSES, allows, type EnvelopeTrigger, SIGNING_STATUSES } from './transitions.ts';

const SIGNING_STATUSES_SET: ReadonlySet<EnvelopeStatus> = new Set(SIGNING_STATUSES);

const DAY_MS = 24 * 60 * 60 * 1000;

/** Statuses in which the signing is over but the envelope is not finished: no signer or sender action. */
export const FINALIZING: readonly EnvelopeStatus[] = ['ProcessingFinalPdf', 'FinalPdfFailed'];

const AUTHENTICATION_STATUS = {
  code_sent: 'AuthenticationPending',
  failed: 'AuthenticationFailed',
  verified: 'AuthenticationVerified',
} as const satisfies Record<RecipientAuthenticationRequest['outcome'], RecipientStatus>;

const AUTHENTICATION_EVENT = {
  code_sent: 'recipient.authentication_requested',
  verified: 'recipient.authentication_verified',
  failed: 'recipient.authentication_failed',
} as const satisfies Record<RecipientAuthenticationRequest['outcome'], string>;

const PROGRESS_STATUS = {
  viewed: 'Viewed',
  started: 'InProgress',
} as const satisfies Record<RecipientProgressRequest['step'], RecipientStatus>;

const OTP_CHANNELS: readonly string[] = ['Sms', 'WhatsApp'] satisfies NonNullable<
  RecipientAuthenticationRequest['channel']
>[];
const AUTHENTICATION_FAILURES: readonly string[] = [
  'wrong_code',
  'expired',
  'too_many_attempts',
] satisfies NonNullable<RecipientAuthenticationRequest['reason']>[];

/** Statuses of a recipient in turn who has not opened their link yet: their first open is recorded. */
export const NOT_YET_OPENED: readonly RecipientStatus[] = ['Pending', 'InvitationSent', 'DeliveryFailed'];

/** What a completion means for each recipient type, recorded as the event's `action`. */
export const COMPLETION_ACTION = {
  Signer: 'signed',
  FormFiller: 'filled',
  Approver: 'approved',
  Viewer: 'viewed',
  Cc: 'none',
} as const;

/** What the model asks of the workflow that runs it. */
export interface EnvelopeHost {
  /** The current time in milliseconds (in the workflow: its deterministic clock). */
  now(): number;
  /**
   * Whether the last required completion renders the final PDF before the envelope is Completed. Asked only
   * at that moment, so the workflow can answer with `patched()` exactly there (older runs complete at once).
   */
  rendersFinalPdf(): boolean;
  /**
   * Whether this run warns recipients before the deadline and tells them when it passed (the workflow answers
   * with `patched()`: runs started before deadline warnings existed send neither). Absent: no.
   */
  sendsDeadlineNotices?(): boolean;
  /**
   * Whether this run takes delegations (the workflow answers with `patched()`: runs started before delegation
   * existed refuse it). Absent: yes.
   */
  acceptsDelegation?(): boolean;
}

/** The channels a delegate is invited by: a message must reach them. */
const DELEGATE_CHANNELS: readonly string[] = ['Email', 'Sms', 'WhatsApp'];

/** A message the workflow sends with the `sendNotification` activity; the workflow adds the ids. */
export type MessageRequest = Omit<
  SendNotificationRequest,
  'notificationId' | 'organizationId' | 'envelopeId'
>;

/** How a message ended: sent (or skipped), or failed for good with the activity's failure type. */
export type MessageOutcome =
  | { ok: true; result: SendNotificationResult }
  | { ok: false; failureType: string; message: string };

/** A decided transition: its sequence, the envelope right after it and its audit event. */
export type DecidedTransition = Pick<
  EnvelopeTransition,
  'sequence' | 'envelopeStatus' | 'expiresAt' | 'recipients' | 'event'
>;

/** What the model decided: the messages to send and the transitions to record, each in order. */
export interface Decision {
  messages: MessageRequest[];
  transitions: DecidedTransition[];
}

/** What the finalization activity stored. */
export interface FinalPdfArtifacts {
  finalPdfFileId: string;
  auditTrailFileId: string;
  finalPdfSha256: string;
}

/**
 * When the workflow wakes if nothing happens first, and whether it then reminds, warns of the deadline or
 * expires the envelope.
 */
export interface Wake {
  at: string | null;
  remind: boolean;
  /** The "expiring soon" warning is due (absent: no). */
  warn?: boolean;
}

export class EnvelopeModel {
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
  /** OTP recipients who verified a code at least once. */
  readonly verified = new Set<string>();
  /** The status the envelope had when nobody in turn could be reached; it resumes with it. */
  beforeDeliveryFailure: EnvelopeStatus | null = null;
  /** Automatic reminders: how many were sent, and when the next one is due (null: none). */
  readonly reminders: CarriedEnvelopeState['reminders'];
  /** The reminder and deadline settings, as sent or as last changed (`updateEnvelopeSettings`). */
  readonly settings: EnvelopeSettings;
  /** When the "expiring soon" warning is due (ISO); null: none is planned (off, sent, or too late). */
  expiryWarningAt: string | null = null;
  /** Number of transitions decided so far. */
  sequence = 0;
  private readonly host: EnvelopeHost;

  constructor(input: EnvelopeWorkflowInput, host: EnvelopeHost) {
    this.input = input;
    this.host = host;
    this.expiresAt = input.expiresAt;
    this.rounds = planRounds(input.workflowType, input.recipients);
    this.required = new Set(input.recipients.filter((r) => r.required && actsInRounds(r)).map((r) => r.id));
    const carried = input.carried;
    this.settings = carried?.settings
      ? { ...carried.settings }
      : {
          automaticReminders: input.automaticReminders ?? null,
          expiringSoonDays: input.expiringSoonDays ?? 0,
          expiredExtensionGraceDays: input.expiredExtensionGraceDays ?? 0,
        };
    // Automatic reminders count from the send, every `everyDays`, at most `max` times.
    this.reminders = carried
      ? { ...carried.reminders }
      : {
          sent: 0,
          at: input.automaticReminders
            ? new Date(host.now() + input.automaticReminders.everyDays * DAY_MS).toISOString()
            : null,
        };
    if (carried) {
      this.status = carried.status;
      this.expiresAt = carried.expiresAt;
      this.signedAt = carried.signedAt;
      this.sequence = carried.sequence;
      for (const r of carried.recipients) this.recipientStatus.set(r.id, r.status);
      for (const id of carried.verified) this.verified.add(id);
      this.beforeExpiry = carried.beforeExpiry && {
        status: carried.beforeExpiry.status,
        recipients: new Map(carried.beforeExpiry.recipients.map((r) => [r.id, r.status])),
      };
      this.graceUntil = carried.graceUntil;
      this.beforeDeliveryFailure = carried.beforeDeliveryFailure ?? null;
      this.expiryWarningAt = carried.expiryWarningAt ?? null;
    } else {
      this.planExpiryWarning();
    }
  }

  // The envelope as it stands.

  recipient(id: string): RecipientPlan | undefined {
    return this.input.recipients.find((r) => r.id === id);
  }

  usesOtp(id: string): boolean {
    const method = this.recipient(id)?.authenticationMethod;
    return method === 'OtpSms' || method === 'OtpWhatsApp';
  }

  /** Recipients who may act now and have not yet: the ones a reminder is for. */
  awaitedRecipients(): string[] {
    return [...this.recipientStatus]
      .filter(
        ([id, status]) =>
          ACTING_RECIPIENT_STATUSES.includes(status) && actsInRounds(this.recipient(id) as RecipientPlan),
      )
      .map(([id]) => id);
  }

  /** Whether the envelope has a final status (an Expired one may still be revived within its grace window). */
  isFinished(): boolean {
    return isTerminalEnvelopeStatus(this.status);
  }

  /** Why the envelope takes no more actions, or undefined while it is in progress. */
  whyClosed(): string | undefined {
    if (isTerminalEnvelopeStatus(this.status)) return `The envelope is ${this.status}.`;
    if (FINALIZING.includes(this.status)) {
      return `The envelope is ${this.status}: every required recipient has completed.`;
    }
    return undefined;
  }

  /** Finished and past any grace window, or finalizing: the run ends (or renders) rather than hand over. */
  closedForGood(): boolean {
    if (this.status === 'ProcessingFinalPdf') return true;
    if (this.status === 'Expired') return this.graceUntil === null;
    return isTerminalEnvelopeStatus(this.status);
  }

  /** Whether an Expired envelope is still within the window in which an extension revives it. */
  revivable(): boolean {
    return (
      this.status === 'Expired' && this.graceUntil !== null && this.host.now() < Date.parse(this.graceUntil)
    );
  }

  /** Milliseconds left of an Expired envelope's grace window; 0 or less when it has none left. */
  graceLeft(): number {
    return this.graceUntil === null ? 0 : Date.parse(this.graceUntil) - this.host.now();
  }

  /**
   * The next time something is due while the envelope is signing: the deadline, read again on every pass so
   * an extension takes effect at once, or an automatic reminder due before it.
   */
  nextWake(): Wake {
    const deadline = deadlineMs(this.expiresAt);
    const reminderDue = this.reminders.at !== null && Date.parse(this.reminders.at) < deadline;
    // The warning before a reminder due at the same time or later (runs without warnings never plan one).
    const warning = this.expiryWarningAt;
    if (
      warning !== null &&
      Date.parse(warning) < deadline &&
      (!reminderDue || Date.parse(warning) <= Date.parse(this.reminders.at as string))
    ) {
      return { at: warning, remind: false, warn: true };
    }
    return {
      at: reminderDue ? this.reminders.at : this.expiresAt,
      remind: reminderDue && Boolean(this.settings.automaticReminders),
    };
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

  /**
   * What the workflow waits for and plans, for the business app's envelope page (the envelopeLiveView query);
   * `projection` is the run's. Reads only: a query changes nothing.
   */
  liveView(projection: ProjectionStatus): EnvelopeLiveView {
    const signing = SIGNING_STATUSES_SET.has(this.status);
    const round = this.roundIndex();
    const schedule = this.settings.automaticReminders;
    const reminderDue =
      schedule !== null &&
      this.reminders.at !== null &&
      Date.parse(this.reminders.at) < deadlineMs(this.expiresAt);
    return {
      envelopeId: this.input.envelopeId,
      status: this.status,
      waitingFor: projection.parked ? 'projection_repair' : this.waitingFor(),
      openRound:
        signing && round < this.rounds.length
          ? { number: round + 1, of: this.rounds.length, recipientIds: [...(this.rounds[round] ?? [])] }
          : null,
      awaitedRecipientIds: signing ? this.awaitedRecipients() : [],
      deadline: this.expiresAt,
      nextReminderAt: signing && reminderDue ? this.reminders.at : null,
      automaticReminders: schedule
        ? { sent: this.reminders.sent, max: schedule.max, everyDays: schedule.everyDays }
        : null,
      expiryWarningAt: signing ? this.expiryWarningAt : null,
      graceUntil: this.revivable() ? this.graceUntil : null,
      projection,
    };
  }

  private waitingFor(): EnvelopeWaitingFor {
    if (SIGNING_STATUSES_SET.has(this.status)) return 'recipients';
    if (this.status === 'ProcessingFinalPdf') return 'final_pdf';
    if (this.status === 'FinalPdfFailed') return 'final_pdf_retry';
    if (this.revivable()) return 'extension';
    return 'nothing';
  }

  /** Everything the next run needs, for continue-as-new; `indexedStatus` is the workflow's own. */
  carry(indexedStatus: EnvelopeStatus | null): CarriedEnvelopeState {
    return {
      status: this.status,
      expiresAt: this.expiresAt,
      signedAt: this.signedAt,
      sequence: this.sequence,
      recipients: this.snapshot().recipients,
      verified: [...this.verified],
      beforeExpiry: this.beforeExpiry && {
        status: this.beforeExpiry.status,
        recipients: [...this.beforeExpiry.recipients].map(([id, status]) => ({ id, status })),
      },
      graceUntil: this.graceUntil,
      beforeDeliveryFailure: this.beforeDeliveryFailure,
      reminders: { ...this.reminders },
      settings: { ...this.settings },
      expiryWarningAt: this.expiryWarningAt,
      indexedStatus,
    };
  }

  // Validators: why an Update is refused, or undefined when it is accepted. They change nothing.

  whyCannotOpen({ recipientId }: RecipientOpenedRequest): string | undefined {
    return this.whyCannotAct(recipientId, 'open');
  }

  whyCannotAuthenticate(request: RecipientAuthenticationRequest): string | undefined {
    const why = this.whyCannotAct(request.recipientId, 'authenticate');
    if (why) return why;
    if (!this.usesOtp(request.recipientId)) {
      return `Recipient ${request.recipientId} does not use one-time codes.`;
    }
    if (!(request.outcome in AUTHENTICATION_STATUS)) return `Unknown outcome ${String(request.outcome)}.`;
    if (request.channel !== undefined && !OTP_CHANNELS.includes(request.channel)) {
      return `Unknown channel ${String(request.channel)}.`;
    }
    if (request.reason !== undefined && !AUTHENTICATION_FAILURES.includes(request.reason)) {
      return `Unknown reason ${String(request.reason)}.`;
    }
    return undefined;
  }

  whyCannotProgress(request: RecipientProgressRequest): string | undefined {
    if (!(request.step in PROGRESS_STATUS)) return `Unknown step ${String(request.step)}.`;
    const why = this.whyCannotAct(request.recipientId, request.step === 'viewed' ? 'view' : 'start');
    if (why) return why;
    if (this.usesOtp(request.recipientId) && !this.verified.has(request.recipientId)) {
      return `Recipient ${request.recipientId} must verify a one-time code first.`;
    }
    return undefined;
  }

  whyCannotComplete({ recipientId }: CompleteRecipientRequest): string | undefined {
    const why = this.whyCannotAct(recipientId, 'complete');
    if (why) return why;
    if (this.usesOtp(recipientId) && !this.verified.has(recipientId)) {
      return `Recipient ${recipientId} must verify a one-time code first.`;
    }
    const recipient = this.recipient(recipientId) as RecipientPlan;
    const status = this.recipientStatus.get(recipientId);
    if (recipient.type === 'Viewer' && status !== 'Viewed' && status !== 'InProgress') {
      return `Recipient ${recipientId} is a Viewer: a Viewer completes after opening the document.`;
    }
    return undefined;
  }

  /**
   * A recipient hands their part to another person: only when the envelope allows it (and this run knows
   * delegation), while they are in turn and have not acted (the same turn rules as completing: not completed,
   * not waiting for their turn, the envelope in progress), verified when they use one-time codes, and with a
   * delegate whose name and contact the projection can write and a message can reach.
   */
  whyCannotDelegate(request: DelegateRecipientRequest): string | undefined {
    if (this.input.allowDelegation !== true || this.host.acceptsDelegation?.() === false) {
      return 'This envelope does not allow recipients to hand their part to someone else.';
    }
    const { recipientId } = request;
    const why = this.whyCannotAct(recipientId, 'delegate');
    if (why) return why;
    if (this.usesOtp(recipientId) && !this.verified.has(recipientId)) {
      return `Recipient ${recipientId} must verify a one-time code first.`;
    }
    return partyProblem(request.from, 'The recipient') ?? partyProblem(request.to, 'The delegate');
  }

  /**
   * The same turn rules as completing, and a reason is required: text the projection can write (no NUL, no
   * unpaired surrogate, no control characters; domain/text.ts), as the API's schema already demands.
   */
  whyCannotDecline({ recipientId, reason }: DeclineRecipientRequest): string | undefined {
    if (typeof reason !== 'string' || reason.trim() === '') return 'A reason is required to decline.';
    const problem = textProblem(reason, 'multiline');
    if (problem) return `The reason ${problem}.`;
    const why = this.whyCannotAct(recipientId, 'decline');
    if (why) return why.replace('complete first', 'complete before anyone later may act');
    if (this.usesOtp(recipientId) && !this.verified.has(recipientId)) {
      return `Recipient ${recipientId} must verify a one-time code first.`;
    }
    return undefined;
  }

  /** Cancelling is allowed while the envelope is signing; a reason, when given, must be text the projection can write. */
  whyCannotCancel(request?: Partial<CancelEnvelopeRequest> | null): string | undefined {
    const reason: unknown = request?.reason;
    if (reason !== undefined && reason !== null) {
      if (typeof reason !== 'string') return 'The reason must be text.';
      const problem = textProblem(reason, 'multiline');
      if (problem) return `The reason ${problem}.`;
    }
    if (allows('cancel', this.status)) return undefined;
    if (FINALIZING.includes(this.status)) {
      return `The envelope is ${this.status}: every required recipient has completed, so it cannot be cancelled.`;
    }
    return `The envelope is already ${this.status} and cannot be cancelled.`;
  }

  /**
   * A reminder needs someone who may act now; one to a single recipient (`recipientId`) needs that recipient to be
   * one of them. Callers before the one-recipient reminder send no request.
   */
  whyCannotRemind(request?: RemindEnvelopeRequest | null): string | undefined {
    if (!allows('remind', this.status)) return `${this.whyClosed()} There is no one to remind.`;
    const recipientId: unknown = request?.recipientId;
    if (recipientId !== undefined && recipientId !== null) {
      if (typeof recipientId !== 'string' || !this.recipient(recipientId)) {
        return `Recipient ${String(recipientId)} does not belong to this envelope.`;
      }
      if (!this.awaitedRecipients().includes(recipientId)) {
        const kind = actsInRounds(this.recipient(recipientId) as RecipientPlan) ? '' : ', a Cc recipient';
        return `Recipient ${recipientId} cannot act now (${this.recipientStatus.get(recipientId) ?? 'Pending'}${kind}): there is nothing to remind them of.`;
      }
      return undefined;
    }
    if (this.awaitedRecipients().length === 0) return 'No recipient is waiting to act.';
    return undefined;
  }

  /**
   * The sender corrects a recipient's name, contact, channel or language: while the envelope is signing and the
   * recipient has not completed (a recipient who has only opened, viewed or begun filling in has not acted:
   * what they did was done through a link that may have reached the wrong person, and it ends with the
   * correction). A Cc recipient may be corrected too (they act on nothing, but receive the completed document).
   * The new contact must reach the recipient by its channel and be text the projection can write.
   */
  whyCannotCorrect(request: CorrectRecipientRequest): string | undefined {
    if (!allows('correct', this.status)) return `${this.whyClosed()} Its recipients cannot be corrected.`;
    const { recipientId } = request;
    if (typeof recipientId !== 'string' || !this.recipient(recipientId)) {
      return `Recipient ${String(recipientId)} does not belong to this envelope.`;
    }
    if (this.recipientStatus.get(recipientId) === 'Completed') {
      return `Recipient ${recipientId} has already completed and can no longer be corrected.`;
    }
    const problem = partyProblem(request.from, 'The recipient') ?? correctionProblem(request.to);
    if (problem) return problem;
    if (Object.keys(correctionChanges(request.from, request.to)).length === 0)
      return 'The correction changes nothing.';
    return undefined;
  }

  whyCannotExtend({ expiresAt }: ExtendEnvelopeRequest): string | undefined {
    const now = this.host.now();
    const allowed = this.revivable()
      ? allows('extend after expiry', this.status)
      : allows('extend', this.status);
    if (!allowed) return `${this.whyClosed()} Its deadline cannot change.`;
    const next = Date.parse(expiresAt);
    if (Number.isNaN(next)) return `expiresAt ${expiresAt} is not a date-time.`;
    if (next <= now) return 'The new expiresAt must be in the future.';
    if (this.expiresAt !== null && next <= Date.parse(this.expiresAt)) {
      return `The new expiresAt must be later than the current deadline ${this.expiresAt}.`;
    }
    return undefined;
  }

  /**
   * The reminder and deadline settings change while the envelope is signing (refused once it is final or
   * finalizing), each a whole number within its bounds (domain/envelope-settings.ts, which the API checks
   * first); a warning lead time only on runs that send deadline warnings.
   */
  whyCannotUpdateSettings(request: UpdateEnvelopeSettingsRequest | null | undefined): string | undefined {
    if (!allows('change settings', this.status)) {
      return `${this.whyClosed() ?? `The envelope is ${this.status}.`} Its settings cannot change.`;
    }
    if (typeof request !== 'object' || request === null) return 'The settings to change are missing.';
    const { automaticReminders, expiringSoonDays, expiredExtensionGraceDays } = request;
    if (automaticReminders !== undefined && automaticReminders !== null) {
      const problem =
        wholeNumberProblem(automaticReminders.everyDays, 'reminderIntervalDays', 1, 365) ??
        wholeNumberProblem(automaticReminders.max, 'maxAutomaticReminders', 0, 50);
      if (problem) return problem;
    }
    if (expiringSoonDays !== undefined) {
      const problem = wholeNumberProblem(expiringSoonDays, 'expiringSoonDays', 0, 365);
      if (problem) return problem;
      if (expiringSoonDays > 0 && !this.host.sendsDeadlineNotices?.()) {
        return 'This envelope was sent before deadline warnings existed: it cannot warn its recipients.';
      }
    }
    if (expiredExtensionGraceDays !== undefined) {
      const problem = wholeNumberProblem(expiredExtensionGraceDays, 'expiredExtensionGraceDays', 0, 365);
      if (problem) return problem;
    }
    return undefined;
  }

  whyCannotRetryFinalization(): string | undefined {
    if (allows('retry final PDF', this.status)) return undefined;
    return `The envelope is ${this.status}; only a FinalPdfFailed envelope is finalized again.`;
  }

  // Decisions: each changes the envelope and returns what the workflow records and sends.

  /** Send: the first round may act and is invited, later rounds wait for their turn. */
  send(): Decision {
    this.refreshTurns();
    return {
      messages: messagesTo(this.awaitedRecipients(), 'invitation'),
      transitions: [this.transition('envelope.sent', null)],
    };
  }

  /** Opening a link records once; a later open (or an open by a recipient who cannot act) records nothing. */
  open(request: RecipientOpenedRequest): Decision {
    const { recipientId } = request;
    const status = this.recipientStatus.get(recipientId);
    if (status === undefined || !NOT_YET_OPENED.includes(status)) return nothing();
    this.resume();
    this.recipientStatus.set(recipientId, 'LinkOpened');
    if (this.status === 'Sent') this.status = 'Opened';
    return recorded(this.transition('recipient.opened', recipientId, originData(request)));
  }

  /**
   * A one-time code step, decided by the signer API that holds the codes; every one is an audit event. The
   * recipient's status follows the steps until their first verification.
   */
  authenticate(request: RecipientAuthenticationRequest): Decision {
    const { recipientId, outcome } = request;
    this.resume();
    if (!this.verified.has(recipientId))
      this.recipientStatus.set(recipientId, AUTHENTICATION_STATUS[outcome]);
    if (outcome === 'verified') this.verified.add(recipientId);
    if (this.status === 'Sent') this.status = 'Opened';
    return recorded(
      this.transition(AUTHENTICATION_EVENT[outcome], recipientId, {
        ...(outcome === 'code_sent' && request.channel ? { channel: request.channel } : {}),
        ...(outcome === 'failed' && request.reason ? { reason: request.reason } : {}),
        ...originData(request),
      }),
    );
  }

  /** Viewing the document and starting to fill it in: once each and never backwards; a repeat records nothing. */
  progress(request: RecipientProgressRequest): Decision {
    const { recipientId, step } = request;
    const current = this.recipientStatus.get(recipientId);
    if (current === 'InProgress' || (step === 'viewed' && current === 'Viewed')) return nothing();
    this.resume();
    this.recipientStatus.set(recipientId, PROGRESS_STATUS[step]);
    if (step === 'started') this.status = 'InProgress';
    else if (this.status === 'Sent') this.status = 'Opened';
    const type = step === 'viewed' ? 'recipient.viewed' : 'recipient.started';
    return recorded(this.transition(type, recipientId, originData(request)));
  }

  /**
   * A recipient completes. The next round's recipients are invited as their turn comes. When everyone required
   * has completed, the final PDF is rendered next (the time of this moment is kept), or, on runs older than
   * that, the envelope is Completed at once.
   */
  complete(request: CompleteRecipientRequest): Decision {
    const { recipientId } = request;
    const data = {
      action: COMPLETION_ACTION[this.recipient(recipientId)?.type ?? 'Signer'],
      ...originData(request),
    };
    const waiting = [...this.recipientStatus]
      .filter(([, status]) => status === 'WaitingForTurn')
      .map(([id]) => id);
    this.completeRecipient(recipientId);
    // Nobody new comes into turn once everyone required has completed, so there is no invitation whenever the
    // host is asked below: the workflow's patched() marker keeps its place among its commands.
    const messages = messagesTo(
      waiting.filter((id) => this.recipientStatus.get(id) === 'Pending'),
      'invitation',
    );
    if (this.status === 'Completed' && this.host.rendersFinalPdf()) {
      this.status = 'ProcessingFinalPdf';
      this.signedAt = new Date(this.host.now()).toISOString();
      return { messages, transitions: [this.transition('recipient.completed', recipientId, data)] };
    }
    const transitions = [this.transition('recipient.completed', recipientId, data)];
    if (this.status === 'Completed')
      transitions.push(this.transition('envelope.completed', null, this.completedData()));
    return { messages, transitions };
  }

  /**
   * A recipient handed their part to another person: the recipient (same id, role, fields and place in the
   * order) is the delegate from now on, back to Pending and unverified, and the delegate is invited. The event
   * names both: the projection writes the delegate to the recipient's row and ends the old links, and the
   * audit trail names who delegated to whom.
   */
  delegate(request: DelegateRecipientRequest): Decision {
    const { recipientId, from, to } = request;
    this.recipientStatus.set(recipientId, 'Pending');
    this.verified.delete(recipientId);
    return {
      messages: messagesTo([recipientId], 'invitation'),
      transitions: [
        this.transition('recipient.delegated', recipientId, {
          ...partyData('delegated_by', from),
          ...partyData('delegated_to', to),
          ...originData(request),
        }),
      ],
    };
  }

  /**
   * The sender corrected a recipient: the same recipient (id, role, fields, place in the order) under the new
   * name and contact, unverified; one in turn is back to Pending and invited at the new address (so a
   * DeliveryFailed recipient, and envelope, resume once it arrives), one waiting for their turn is invited when
   * it comes, a Cc is not invited. The event holds each changed field's old and new value: the projection writes
   * the new ones and ends the recipient's links, and the audit trail shows the change.
   */
  correct(request: CorrectRecipientRequest): Decision {
    const { recipientId, from, to } = request;
    const recipient = this.recipient(recipientId) as RecipientPlan;
    const inTurn = actsInRounds(recipient) && this.recipientStatus.get(recipientId) !== 'WaitingForTurn';
    if (inTurn) this.recipientStatus.set(recipientId, 'Pending');
    this.verified.delete(recipientId);
    return {
      messages: inTurn ? messagesTo([recipientId], 'invitation') : [],
      transitions: [
        this.transition('recipient.corrected', recipientId, { changes: correctionChanges(from, to) }),
      ],
    };
  }

  /** A recipient declined: the envelope stops; everyone else who had not completed is Cancelled; the sender learns why. */
  decline(request: DeclineRecipientRequest): Decision {
    const { recipientId } = request;
    const reason = request.reason.trim();
    this.finish('Cancelled');
    this.status = 'Declined';
    this.recipientStatus.set(recipientId, 'Declined');
    return {
      messages: [{ kind: 'declined', declinedByRecipientId: recipientId, reason }],
      transitions: [this.transition('recipient.declined', recipientId, { reason, ...originData(request) })],
    };
  }

  /** The sender cancels: everyone who had not completed is Cancelled; the sender is told. */
  cancel({ reason, cancelledByUserId }: CancelEnvelopeRequest): Decision {
    this.finish('Cancelled');
    return {
      messages: [{ kind: 'cancelled', reason: reason ?? null }],
      transitions: [
        this.transition('envelope.cancelled', null, {
          ...(reason ? { reason } : {}),
          ...(cancelledByUserId ? { cancelled_by_user_id: cancelledByUserId } : {}),
        }),
      ],
    };
  }

  /** The sender reminds everyone who may act now, or one of them. */
  remind(request?: RemindEnvelopeRequest | null): Decision {
    const recipientIds = request?.recipientId ? [request.recipientId] : this.awaitedRecipients();
    return {
      messages: messagesTo(recipientIds, 'reminder'),
      transitions: [this.transition('envelope.reminded', null, { recipient_ids: recipientIds })],
    };
  }

  /** An automatic reminder is due: everyone who may act is reminded (if anyone), and the next one is planned. */
  remindAutomatically(): Decision {
    const schedule = this.settings.automaticReminders;
    this.reminders.sent += 1;
    const recipientIds = this.awaitedRecipients();
    const decision =
      recipientIds.length > 0
        ? {
            messages: messagesTo(recipientIds, 'reminder'),
            transitions: [
              this.transition('envelope.reminded', null, { recipient_ids: recipientIds, automatic: true }),
            ],
          }
        : nothing();
    this.reminders.at =
      schedule && this.reminders.at !== null && this.reminders.sent < schedule.max
        ? new Date(Date.parse(this.reminders.at) + schedule.everyDays * DAY_MS).toISOString()
        : null;
    return decision;
  }

  /**
   * New reminder and deadline settings: a new reminder schedule counts from now (the reminders already sent
   * count against its maximum), a new lead time plans the warning from the deadline, a new grace window applies
   * when the deadline passes. Recorded with every setting after the change and the names of those changed.
   */
  updateSettings(request: UpdateEnvelopeSettingsRequest): Decision {
    const changed: string[] = [];
    if (request.automaticReminders !== undefined) {
      const schedule = request.automaticReminders;
      this.settings.automaticReminders = schedule && schedule.max > 0 ? { ...schedule } : null;
      const next = this.settings.automaticReminders;
      this.reminders.at =
        next && this.reminders.sent < next.max
          ? new Date(this.host.now() + next.everyDays * DAY_MS).toISOString()
          : null;
      changed.push('reminderIntervalDays', 'maxAutomaticReminders');
    }
    if (request.expiringSoonDays !== undefined) {
      this.settings.expiringSoonDays = request.expiringSoonDays;
      this.planExpiryWarning();
      changed.push('expiringSoonDays');
    }
    if (request.expiredExtensionGraceDays !== undefined) {
      this.settings.expiredExtensionGraceDays = request.expiredExtensionGraceDays;
      changed.push('expiredExtensionGraceDays');
    }
    const schedule = this.settings.automaticReminders;
    return recorded(
      this.transition('envelope.settings_updated', null, {
        changed,
        reminder_interval_days: schedule?.everyDays ?? null,
        max_automatic_reminders: schedule?.max ?? 0,
        expiring_soon_days: this.settings.expiringSoonDays,
        expired_extension_grace_days: this.settings.expiredExtensionGraceDays,
        next_reminder_at: this.reminders.at,
        expiry_warning_at: this.expiryWarningAt,
      }),
    );
  }

  /**
   * The "expiring soon" warning is due: every recipient who may act now is told how many days are left, and
   * `envelope.expiring_soon` is recorded (nothing when nobody may act). One warning per deadline: an extension
   * plans the next.
   */
  warnOfDeadline(): Decision {
    this.expiryWarningAt = null;
    const recipientIds = this.awaitedRecipients();
    if (recipientIds.length === 0 || this.expiresAt === null) return nothing();
    const daysLeft = Math.max(1, Math.round((Date.parse(this.expiresAt) - this.host.now()) / DAY_MS));
    return {
      messages: recipientIds.map((recipientId) => ({ kind: 'expiring_soon', recipientId, daysLeft })),
      transitions: [
        this.transition('envelope.expiring_soon', null, {
          recipient_ids: recipientIds,
          expires_at: this.expiresAt,
          days_left: daysLeft,
        }),
      ],
    };
  }

  /** A new deadline; within the grace window after expiry the envelope continues where it stood. */
  extend({ expiresAt }: ExtendEnvelopeRequest): Decision {
    const previous = this.expiresAt;
    const revived = this.status === 'Expired';
    this.revive();
    this.expiresAt = new Date(Date.parse(expiresAt)).toISOString();
    this.planExpiryWarning();
    return recorded(
      this.transition('envelope.extended', null, {
        previous_expires_at: previous,
        expires_at: this.expiresAt,
        ...(revived ? { revived_from: 'Expired' } : {}),
      }),
    );
  }

  /** The deadline passed; with a grace window the state is kept so an extension can revive it. */
  deadlinePassed(): Decision {
    const graceDays = this.settings.expiredExtensionGraceDays;
    // Those who could still act are told it expired (runs that send deadline notices).
    const told = this.host.sendsDeadlineNotices?.() ? this.awaitedRecipients() : [];
    this.beforeExpiry = { status: this.status, recipients: new Map(this.recipientStatus) };
    this.graceUntil = graceDays > 0 ? new Date(this.host.now() + graceDays * DAY_MS).toISOString() : null;
    this.expiryWarningAt = null;
    this.finish('Expired');
    return {
      messages: told.map((recipientId) => ({ kind: 'expired', recipientId })),
      transitions: [this.transition('envelope.expired', null, { expires_at: this.expiresAt })],
    };
  }

  /**
   * The final PDF and the audit trail are stored: Completed. Everyone on the envelope, Cc included, learns it
   * is complete and where the documents are.
   */
  finalPdfStored(artifacts: FinalPdfArtifacts): Decision {
    this.status = 'Completed';
    return {
      messages: this.input.recipients.map((recipient) => ({ kind: 'completed', recipientId: recipient.id })),
      transitions: [
        this.transition('envelope.completed', null, this.completedData()),
        this.transition('document.final_pdf_ready', null, {
          envelope_id: this.input.envelopeId,
          final_pdf_file_id: artifacts.finalPdfFileId,
          audit_trail_file_id: artifacts.auditTrailFileId,
          final_pdf_sha256: artifacts.finalPdfSha256,
        }),
      ],
    };
  }

  /** Finalization failed for good: FinalPdfFailed with the reason, until an operator retries. */
  finalPdfFailed(reason: string): Decision {
    this.status = 'FinalPdfFailed';
    // An error message from a render or a driver: kept, with what PostgreSQL cannot store replaced.
    return recorded(
      this.transition('envelope.final_pdf_failed', null, { reason: sanitizeText(reason, 'multiline') }),
    );
  }

  /** A retry of the final PDF; a sender's is recorded as theirs (an operator's, and older ones, with no data). */
  retryFinalization(request?: RetryFinalizationRequest): Decision {
    this.status = 'ProcessingFinalPdf';
    const data = request?.requestedBy === 'sender' ? { requested_by: 'sender' } : {};
    return recorded(this.transition('envelope.final_pdf_retried', null, data));
  }

  /**
   * A message settled. An invitation or reminder that reached its recipient makes them InvitationSent; one that
   * failed for good makes them DeliveryFailed, and the envelope too when nobody in turn can be reached. Notices
   * change nothing, and neither does any message once the envelope is finished (or finalizing).
   */
  messageSettled(message: MessageRequest, outcome: MessageOutcome): Decision {
    const { kind, recipientId } = message;
    if ((kind !== 'invitation' && kind !== 'reminder') || recipientId === undefined) return nothing();
    if (this.whyClosed()) return nothing();
    if (outcome.ok) {
      if (outcome.result.status !== 'sent') return nothing();
      const changed = this.messageDelivered(recipientId);
      if (kind !== 'invitation' && !changed) return nothing();
      return recorded(
        this.transition('recipient.invitation_sent', recipientId, { kind, channel: outcome.result.channel }),
      );
    }
    this.messageFailed(recipientId);
    const transitions = [
      this.transition('recipient.delivery_failed', recipientId, {
        kind,
        failure_type: sanitizeText(outcome.failureType),
        message: sanitizeText(outcome.message, 'multiline'),
      }),
    ];
    const unreachable = this.failIfUnreachable();
    if (unreachable)
      transitions.push(this.transition('envelope.delivery_failed', null, { recipient_ids: unreachable }));
    return { messages: [], transitions };
  }

  /**
   * Why a later failure of an accepted message (a bounce, a carrier's status) is refused: once the envelope is
   * final or finalizing nothing it says matters, and only an invitation or reminder of a recipient counts.
   */
  whyCannotReportDeliveryFailure(request: ReportDeliveryFailureRequest): string | undefined {
    if (!allows('message failed', this.status)) {
      return `${this.whyClosed() ?? `The envelope is ${this.status}.`} A failed message no longer changes it.`;
    }
    if (!this.recipient(request.recipientId)) {
      return `Recipient ${request.recipientId} does not belong to this envelope.`;
    }
    if (request.kind !== 'invitation' && request.kind !== 'reminder') {
      return 'Only a failed invitation or reminder changes a recipient.';
    }
    return undefined;
  }

  /**
   * A message the provider accepted failed later: decided exactly as a message that failed for good
   * (messageSettled), its event naming the notification.
   */
  deliveryFailureReported(request: ReportDeliveryFailureRequest): Decision {
    const decision = this.messageSettled(
      { kind: request.kind, recipientId: request.recipientId },
      { ok: false, failureType: request.failureType, message: request.message },
    );
    const [failed] = decision.transitions;
    if (failed) failed.event.data = { ...failed.event.data, notification_id: request.notificationId };
    return decision;
  }

  // How the decisions change the envelope.

  /** Numbers the next transition and keeps the envelope as it stands now with its audit event. */
  private transition(
    type: string,
    recipientId: string | null,
    data: Record<string, unknown> = {},
  ): DecidedTransition {
    this.sequence += 1;
    const { status, expiresAt, recipients } = this.snapshot();
    return {
      sequence: this.sequence,
      envelopeStatus: status,
      expiresAt,
      recipients,
      event: { type, recipientId, data },
    };
  }

  private completed(): Set<string> {
    return new Set([...this.recipientStatus].filter(([, s]) => s === 'Completed').map(([id]) => id));
  }

  private roundIndex(): number {
    return currentRoundIndex(this.rounds, this.required, this.completed());
  }

  private roundOf(id: string): number {
    return this.rounds.findIndex((round) => round.includes(id));
  }

  /** Recipients whose round has come may act; later ones wait for their turn. */
  private refreshTurns(): void {
    const current = this.roundIndex();
    for (const recipient of this.input.recipients) {
      const status = this.recipientStatus.get(recipient.id);
      if (status === 'Completed') continue;
      // A recipient who has begun (opened their link, verified, viewed…) keeps that status while in turn.
      if (
        status !== undefined &&
        status !== 'Pending' &&
        ACTING_RECIPIENT_STATUSES.includes(status) &&
        this.roundOf(recipient.id) <= current
      ) {
        continue;
      }
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

  /** Why this recipient cannot act (open, authenticate, view, complete) now, or undefined when they can. */
  private whyCannotAct(recipientId: string, trigger: EnvelopeTrigger): string | undefined {
    if (!allows(trigger, this.status)) {
      if (FINALIZING.includes(this.status)) return `The envelope is ${this.status}; signing is over.`;
      return `The envelope is ${this.status}; nothing can be signed.`;
    }
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

  /** A recipient acted (so they were reached after all): a DeliveryFailed envelope resumes. */
  private resume(): void {
    if (this.status !== 'DeliveryFailed') return;
    this.status = this.beforeDeliveryFailure ?? 'Sent';
    this.beforeDeliveryFailure = null;
  }

  /** An invitation or reminder reached the recipient; false when nothing changed. */
  private messageDelivered(recipientId: string): boolean {
    const status = this.recipientStatus.get(recipientId);
    if (status !== 'Pending' && status !== 'DeliveryFailed') return false;
    this.recipientStatus.set(recipientId, 'InvitationSent');
    this.resume();
    return true;
  }

  /** An invitation or reminder failed for good: the recipient is DeliveryFailed unless they have begun. */
  private messageFailed(recipientId: string): void {
    const status = this.recipientStatus.get(recipientId);
    if (status === 'Pending' || status === 'InvitationSent') {
      this.recipientStatus.set(recipientId, 'DeliveryFailed');
    }
  }

  /**
   * When nobody of the round in turn who has not completed can be reached, the envelope becomes
   * DeliveryFailed; returns those recipients then, otherwise null.
   */
  private failIfUnreachable(): string[] | null {
    if (this.status === 'DeliveryFailed' || !SIGNING_STATUSES_SET.has(this.status)) return null;
    const inTurn = this.awaitedRecipients();
    if (inTurn.length === 0 || inTurn.some((id) => this.recipientStatus.get(id) !== 'DeliveryFailed')) {
      return null;
    }
    this.beforeDeliveryFailure = this.status;
    this.status = 'DeliveryFailed';
    return inTurn;
  }

  private completeRecipient(recipientId: string): void {
    this.resume();
    this.recipientStatus.set(recipientId, 'Completed');
    if (this.roundIndex() >= this.rounds.length) {
      this.status = 'Completed';
      return;
    }
    this.refreshTurns();
    const roundChanged = this.roundOf(recipientId) < this.roundIndex();
    this.status = roundChanged ? 'WaitingForNextSigner' : 'InProgress';
  }

  /**
   * Plans the "expiring soon" warning `expiringSoonDays` before the deadline, on runs that send it; none when
   * that moment has already passed (the invitation and any extension's message name the deadline themselves).
   */
  private planExpiryWarning(): void {
    const days = this.host.sendsDeadlineNotices?.() ? this.settings.expiringSoonDays : 0;
    const at = this.expiresAt === null || days <= 0 ? null : Date.parse(this.expiresAt) - days * DAY_MS;
    this.expiryWarningAt = at !== null && at > this.host.now() ? new Date(at).toISOString() : null;
  }

  /** An extension within the grace window: the envelope continues where it stood at expiry. */
  private revive(): void {
    if (this.status !== 'Expired' || !this.beforeExpiry) return;
    this.status = this.beforeExpiry.status;
    for (const [id, status] of this.beforeExpiry.recipients) this.recipientStatus.set(id, status);
    this.beforeExpiry = null;
    this.graceUntil = null;
  }

  /** Ends the envelope; every recipient who had not completed takes the same final status. */
  private finish(status: 'Cancelled' | 'Expired'): void {
    this.status = status;
    for (const [id, recipientStatus] of this.recipientStatus) {
      if (recipientStatus !== 'Completed') this.recipientStatus.set(id, status);
    }
  }

  private completedData(): Record<string, unknown> {
    return {
      envelope_id: this.input.envelopeId,
      status: 'Completed',
      external_reference: this.input.externalReference ?? '',
    };
  }
}

function nothing(): Decision {
  return { messages: [], transitions: [] };
}

function recorded(transition: DecidedTransition): Decision {
  return { messages: [], transitions: [transition] };
}

function messagesTo(recipientIds: readonly string[], kind: 'invitation' | 'reminder'): MessageRequest[] {
  return recipientIds.map((recipientId) => ({ kind, recipientId }));
}

/** What is wrong with a delegation's party, or undefined: a name, a channel a message reaches, storable text. */
function partyProblem(party: DelegationParty | undefined, who: string): string | undefined {
  if (!party || typeof party.fullName !== 'string' || party.fullName.trim() === '')
    return `${who} needs a name.`;
  for (const text of [party.fullName, party.email, party.phone, party.language]) {
    if (text != null && (typeof text !== 'string' || textProblem(text))) {
      return `${who}'s name or contact cannot be recorded.`;
    }
  }
  if (who === 'The delegate') {
    if (!DELEGATE_CHANNELS.includes(party.deliveryChannel)) {
      return `The delegate must be invited by Email, Sms or WhatsApp, not ${String(party.deliveryChannel)}.`;
    }
    const address = party.deliveryChannel === 'Email' ? party.email : party.phone;
    if (!address) return `The delegate has no address for ${party.deliveryChannel}.`;
  }
  return undefined;
}

/** The fields a correction may change, by their names in the API (and in `recipient.corrected`'s `changes`). */
export const CORRECTABLE_FIELDS = ['fullName', 'email', 'phone', 'deliveryChannel', 'language'] as const;

/** What is wrong with a recipient's corrected contact, or undefined: a name, a known channel and its address. */
function correctionProblem(party: DelegationParty | undefined): string | undefined {
  const problem = partyProblem(party, 'The corrected recipient');
  if (problem || !party) return problem;
  if (!(DELIVERY_CHANNELS as readonly string[]).includes(party.deliveryChannel)) {
    return `Unknown delivery channel ${String(party.deliveryChannel)}.`;
  }
  if (party.deliveryChannel === 'Email' && !party.email) return 'The Email channel needs an email address.';
  if ((party.deliveryChannel === 'Sms' || party.deliveryChannel === 'WhatsApp') && !party.phone) {
    return `The ${party.deliveryChannel} channel needs a phone number.`;
  }
  return undefined;
}

/** Each field that differs between who the recipient was and who they are now: `{ old, new }`. */
function correctionChanges(
  from: DelegationParty,
  to: DelegationParty,
): Record<string, { old: string | null; new: string | null }> {
  const changes: Record<string, { old: string | null; new: string | null }> = {};
  for (const field of CORRECTABLE_FIELDS) {
    const before = from[field] ?? null;
    const after = to[field] ?? null;
    if (before !== after) changes[field] = { old: before, new: after };
  }
  return changes;
}

/** A delegation's party as audit-event data under `prefix` (`delegated_by_name`, …), leaving out what is empty. */
function partyData(prefix: string, party: DelegationParty): Record<string, string> {
  const fields: Record<string, string | null | undefined> = {
    name: party.fullName.trim(),
    email: party.email,
    phone: party.phone,
    channel: party.deliveryChannel,
    language: party.language,
  };
  return Object.fromEntries(
    Object.entries(fields)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '')
      .map(([key, value]) => [`${prefix}_${key}`, value]),
  );
}

/** Why a setting is not a whole number within its bounds, naming it; undefined when it is. */
function wholeNumberProblem(value: unknown, name: string, min: number, max: number): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return `${name} must be a whole number from ${min} to ${max}.`;
  }
  return undefined;
}

function deadlineMs(expiresAt: string | null): number {
  return expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(expiresAt);
}

/**
 * A signer action's origin as audit-event data; nothing when the action came from the operator side. Headers
 * are kept, not refused (a browser's odd User-Agent must never stop a signature): what PostgreSQL cannot store
 * is replaced with U+FFFD.
 */
function originData(origin: SignerActionOrigin): Record<string, unknown> {
  return {
    ...(typeof origin.ip === 'string' && origin.ip ? { ip: sanitizeText(origin.ip) } : {}),
    ...(typeof origin.userAgent === 'string' && origin.userAgent
      ? { user_agent: sanitizeText(origin.userAgent) }
      : {}),
  };
}
