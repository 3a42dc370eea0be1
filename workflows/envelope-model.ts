// The envelope as the workflow sees it: statuses, turns and the rules for every action. A plain class
// with no Temporal APIs, so the workflow, the transition-table test and the documentation share it.

import { type EnvelopeStatus, isTerminalEnvelopeStatus, type RecipientStatus } from '../domain/vocabulary.ts';
import type {
  CarriedEnvelopeState,
  EnvelopeState,
  EnvelopeWorkflowInput,
  RecipientAuthenticationRequest,
  RecipientPlan,
  RecipientProgressRequest,
} from './contracts.ts';
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

const PROGRESS_STATUS = {
  viewed: 'Viewed',
  started: 'InProgress',
} as const satisfies Record<RecipientProgressRequest['step'], RecipientStatus>;

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
  sequence = 0;

  constructor(input: EnvelopeWorkflowInput) {
    this.input = input;
    this.expiresAt = input.expiresAt;
    this.rounds = planRounds(input.workflowType, input.recipients);
    this.required = new Set(input.recipients.filter((r) => r.required && actsInRounds(r)).map((r) => r.id));
    const carried = input.carried;
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
    }
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

  usesOtp(id: string): boolean {
    const method = this.recipient(id)?.authenticationMethod;
    return method === 'OtpSms' || method === 'OtpWhatsApp';
  }

  /** Recipients whose round has come may act; later ones wait for their turn. */
  refreshTurns(): void {
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

  /** Why the envelope takes no more actions, or undefined while it is in progress. */
  whyClosed(): string | undefined {
    if (isTerminalEnvelopeStatus(this.status)) return `The envelope is ${this.status}.`;
    if (FINALIZING.includes(this.status)) {
      return `The envelope is ${this.status}: every required recipient has completed.`;
    }
    return undefined;
  }

  /** Why this recipient cannot act (open, authenticate, view, complete) now, or undefined when they can. */
  whyCannotAct(recipientId: string, trigger: EnvelopeTrigger): string | undefined {
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

  /** Why this recipient cannot complete now, or undefined when they can. */
  whyCannotComplete(recipientId: string): string | undefined {
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

  whyCannotAuthenticate(request: RecipientAuthenticationRequest): string | undefined {
    const why = this.whyCannotAct(request.recipientId, 'authenticate');
    if (why) return why;
    if (!this.usesOtp(request.recipientId)) {
      return `Recipient ${request.recipientId} does not use one-time codes.`;
    }
    if (!(request.outcome in AUTHENTICATION_STATUS)) return `Unknown outcome ${String(request.outcome)}.`;
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

  /** The first open of a recipient's link: LinkOpened; a Sent envelope becomes Opened. */
  open(recipientId: string): boolean {
    const status = this.recipientStatus.get(recipientId);
    if (status === undefined || !NOT_YET_OPENED.includes(status)) return false;
    this.resume();
    this.recipientStatus.set(recipientId, 'LinkOpened');
    if (this.status === 'Sent') this.status = 'Opened';
    return true;
  }

  /** A recipient acted (so they were reached after all): a DeliveryFailed envelope resumes. */
  resume(): void {
    if (this.status !== 'DeliveryFailed') return;
    this.status = this.beforeDeliveryFailure ?? 'Sent';
    this.beforeDeliveryFailure = null;
  }

  /** An invitation or reminder reached the recipient; false when nothing changed. */
  messageDelivered(recipientId: string): boolean {
    const status = this.recipientStatus.get(recipientId);
    if (status !== 'Pending' && status !== 'DeliveryFailed') return false;
    this.recipientStatus.set(recipientId, 'InvitationSent');
    this.resume();
    return true;
  }

  /** An invitation or reminder failed for good: the recipient is DeliveryFailed unless they have begun. */
  messageFailed(recipientId: string): void {
    const status = this.recipientStatus.get(recipientId);
    if (status === 'Pending' || status === 'InvitationSent') {
      this.recipientStatus.set(recipientId, 'DeliveryFailed');
    }
  }

  /**
   * When nobody of the round in turn who has not completed can be reached, the envelope becomes
   * DeliveryFailed; returns those recipients then, otherwise null.
   */
  failIfUnreachable(): string[] | null {
    if (this.status === 'DeliveryFailed' || !SIGNING_STATUSES_SET.has(this.status)) return null;
    const inTurn = this.awaitedRecipients();
    if (inTurn.length === 0 || inTurn.some((id) => this.recipientStatus.get(id) !== 'DeliveryFailed')) {
      return null;
    }
    this.beforeDeliveryFailure = this.status;
    this.status = 'DeliveryFailed';
    return inTurn;
  }

  /** A one-time code step; the status follows it until the recipient's first verification. */
  authenticate({ recipientId, outcome }: RecipientAuthenticationRequest): void {
    this.resume();
    if (!this.verified.has(recipientId))
      this.recipientStatus.set(recipientId, AUTHENTICATION_STATUS[outcome]);
    if (outcome === 'verified') this.verified.add(recipientId);
    if (this.status === 'Sent') this.status = 'Opened';
  }

  /** Viewed or started, once each and never backwards; false when nothing changed. */
  progress({ recipientId, step }: RecipientProgressRequest): boolean {
    const current = this.recipientStatus.get(recipientId);
    if (current === 'InProgress' || (step === 'viewed' && current === 'Viewed')) return false;
    this.resume();
    this.recipientStatus.set(recipientId, PROGRESS_STATUS[step]);
    if (step === 'started') this.status = 'InProgress';
    else if (this.status === 'Sent') this.status = 'Opened';
    return true;
  }

  completeRecipient(recipientId: string): void {
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

  /** Every required recipient completed: the final PDF is rendered next; the time of this moment is kept. */
  finishSigning(at: string): void {
    this.status = 'ProcessingFinalPdf';
    this.signedAt = at;
  }

  finalized(): void {
    this.status = 'Completed';
  }

  finalizationFailed(): void {
    this.status = 'FinalPdfFailed';
  }

  retryFinalization(): void {
    this.status = 'ProcessingFinalPdf';
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

  whyCannotCancel(): string | undefined {
    if (allows('cancel', this.status)) return undefined;
    if (FINALIZING.includes(this.status)) {
      return `The envelope is ${this.status}: every required recipient has completed, so it cannot be cancelled.`;
    }
    return `The envelope is already ${this.status} and cannot be cancelled.`;
  }

  whyCannotRemind(): string | undefined {
    if (!allows('remind', this.status)) return `${this.whyClosed()} There is no one to remind.`;
    if (this.awaitedRecipients().length === 0) return 'No recipient is waiting to act.';
    return undefined;
  }

  /** Whether an Expired envelope is still within the window in which an extension revives it. */
  revivable(now: number): boolean {
    return this.status === 'Expired' && this.graceUntil !== null && now < Date.parse(this.graceUntil);
  }

  whyCannotExtend(expiresAt: string, now: number): string | undefined {
    const allowed = this.revivable(now)
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

  whyCannotRetryFinalization(): string | undefined {
    if (allows('retry final PDF', this.status)) return undefined;
    return `The envelope is ${this.status}; only a FinalPdfFailed envelope is finalized again.`;
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
    const why = this.whyCannotAct(recipientId, 'decline');
    if (why) return why.replace('complete first', 'complete before anyone later may act');
    if (this.usesOtp(recipientId) && !this.verified.has(recipientId)) {
      return `Recipient ${recipientId} must verify a one-time code first.`;
    }
    return undefined;
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

  /** Everything the next run needs, for continue-as-new. */
  carry(
    reminders: CarriedEnvelopeState['reminders'],
    indexedStatus: EnvelopeStatus | null,
  ): CarriedEnvelopeState {
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
      reminders,
      indexedStatus,
    };
  }
}
