// The envelope's transition table: which trigger may move an envelope from which status to which. The
// workflow's model (envelope-model.ts) consults it before any status-specific rule, the documentation's
// table in docs/envelope-lifecycle.md is generated from it (`npm run docs:transitions`), and
// test/unit/transitions.test.ts drives the model through every row. Pure data, safe in workflow code.
import { RECORD_TRANSITIONS } from '../domain/document-lifecycle.ts';
import type { EnvelopeStatus, RecipientStatus } from '../domain/vocabulary.ts';

/** Statuses in which recipients are still acting (`DeliveryFailed`: nobody in turn could be reached yet). */
export const SIGNING_STATUSES = [
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'DeliveryFailed',
] as const satisfies readonly EnvelopeStatus[];

export type EnvelopeTrigger =
  | 'send'
  | 'open'
  | 'authenticate'
  | 'view'
  | 'start'
  | 'message delivered'
  | 'message failed'
  | 'complete'
  | 'decline'
  | 'delegate'
  | 'correct'
  | 'remind'
  | 'automatic reminder'
  | 'deadline warning'
  | 'change settings'
  | 'extend'
  | 'extend after expiry'
  | 'cancel'
  | 'deadline'
  | 'final PDF stored'
  | 'final PDF failed'
  | 'retry final PDF';

/** A status, or what the target is when it depends on the envelope. */
export type TransitionTarget =
  | EnvelopeStatus
  | 'unchanged'
  | 'status before expiry'
  | 'status before the delivery failure';

export interface EnvelopeTransitionRule {
  trigger: EnvelopeTrigger;
  /** How the trigger reaches the workflow: the Update's name, a timer or the finalization activity. */
  via: string;
  from: readonly EnvelopeStatus[];
  /** Every status the envelope may have afterwards; which one is decided by `when`. */
  to: readonly TransitionTarget[];
  when: string;
  recipients: string;
  /** The audit event recorded (and, with the notifications, offered to webhooks). */
  event: string;
}

const signing = SIGNING_STATUSES;

export const ENVELOPE_TRANSITIONS: readonly EnvelopeTransitionRule[] = [
  {
    trigger: 'send',
    via: 'workflow start + `sendEnvelope`',
    from: ['Draft'],
    to: ['Sent'],
    when: 'the deadline has not passed',
    recipients: 'the first round `Pending`, later rounds `WaitingForTurn`, `Cc` `Pending`',
    event: '`envelope.sent`',
  },
  {
    trigger: 'open',
    via: '`recipientOpened`',
    from: signing,
    to: ['Opened', 'unchanged', 'status before the delivery failure'],
    when: 'a recipient in turn loads their link; `Sent` becomes `Opened`, a `DeliveryFailed` envelope resumes (as `Opened` when it was `Sent`)',
    recipients: '`Pending`, `InvitationSent` or `DeliveryFailed` → `LinkOpened` (first open only)',
    event: '`recipient.opened` (`ip`, `user_agent`), first open only',
  },
  {
    trigger: 'authenticate',
    via: '`recipientAuthentication`',
    from: signing,
    to: ['Opened', 'unchanged', 'status before the delivery failure'],
    when: 'an OTP recipient in turn is sent a code, verifies one, or fails to; `Sent` becomes `Opened`',
    recipients:
      '→ `AuthenticationPending` (code sent), `AuthenticationFailed` (wrong, expired or exhausted code), `AuthenticationVerified`; after the first verification the status no longer changes',
    event:
      '`recipient.authentication_requested` (`channel`), `recipient.authentication_failed` (`reason`), `recipient.authentication_verified`',
  },
  {
    trigger: 'view',
    via: '`recipientProgress` (`viewed`)',
    from: signing,
    to: ['Opened', 'unchanged', 'status before the delivery failure'],
    when: 'a recipient in turn (verified, when OTP) loads the document; `Sent` becomes `Opened`',
    recipients: '→ `Viewed` unless already `Viewed` or `InProgress`',
    event: '`recipient.viewed`, first time only',
  },
  {
    trigger: 'start',
    via: '`recipientProgress` (`started`)',
    from: signing,
    to: ['InProgress'],
    when: 'a recipient in turn saves a field value for the first time',
    recipients: '→ `InProgress`',
    event: '`recipient.started`, first time only',
  },
  {
    trigger: 'message delivered',
    via: '`sendNotification` activity',
    from: signing,
    to: ['unchanged', 'status before the delivery failure'],
    when: "an invitation (on send, or when the recipient's round comes into turn) or a reminder reached a recipient; a `DeliveryFailed` envelope resumes",
    recipients: '`Pending` or `DeliveryFailed` → `InvitationSent`',
    event:
      '`recipient.invitation_sent` (`kind`, `channel`) for invitations and for reminders that reach a `DeliveryFailed` recipient',
  },
  {
    trigger: 'message failed',
    via: "`sendNotification` activity, or `reportDeliveryFailure` (a bounce or a carrier's status)",
    from: signing,
    to: ['unchanged', 'DeliveryFailed'],
    when: "an invitation or reminder failed for good (8 attempts, or at once when it can never succeed, or later: a DSN to its VERP address, Twilio's `undelivered` or `failed`; once per message); `DeliveryFailed` when nobody of the round in turn who has not completed can be reached",
    recipients: '`Pending` or `InvitationSent` → `DeliveryFailed`',
    event:
      '`recipient.delivery_failed` (`kind`, `failure_type`, `message`; `notification_id` when reported later), then `envelope.delivery_failed` (`recipient_ids`)',
  },
  {
    trigger: 'complete',
    via: '`completeRecipient`',
    from: signing,
    to: ['WaitingForNextSigner', 'InProgress', 'ProcessingFinalPdf'],
    when: '`ProcessingFinalPdf` when it was the last required recipient; `WaitingForNextSigner` when their round is done and the next one is in turn; otherwise `InProgress`',
    recipients: 'that recipient `Completed`; a round that comes into turn `Pending`',
    event: '`recipient.completed` (`action`: signed, filled, approved, viewed; `ip`, `user_agent`)',
  },
  {
    trigger: 'decline',
    via: '`declineRecipient`',
    from: signing,
    to: ['Declined'],
    when: 'a recipient in turn (verified, when OTP) declines with a reason',
    recipients: 'that recipient `Declined`, everyone else not `Completed` → `Cancelled`',
    event: '`recipient.declined` (`reason`, `ip`, `user_agent`)',
  },
  {
    trigger: 'delegate',
    via: '`delegateRecipient` (patch `delegation`)',
    from: signing,
    to: ['unchanged'],
    when: 'the envelope allows delegation and a recipient in turn who has not acted (verified, when OTP) hands their part to another person, reached by Email, Sms or WhatsApp',
    recipients:
      'that recipient (same id, role, fields and place in the order) becomes the delegate, `Pending`; the delegate is invited once the change is recorded',
    event:
      '`recipient.delegated` (`delegated_by_name`, `_email`, `_phone`, `_channel`; the same of `delegated_to`; `ip`, `user_agent`)',
  },
  {
    trigger: 'correct',
    via: '`correctRecipient`',
    from: signing,
    to: ['unchanged'],
    when: 'the sender corrects the name, email, phone, channel or language of a recipient who has not completed (opened, viewed or begun filling in is not completed); also a `Cc`',
    recipients:
      'that recipient (same id, role, fields and place in the order), unverified: `Pending` and invited again once the change is recorded when in turn, otherwise unchanged',
    event: '`recipient.corrected` (`changes`: each changed field with `old` and `new`)',
  },
  {
    trigger: 'remind',
    via: '`remindEnvelope`',
    from: signing,
    to: ['unchanged'],
    when: 'some recipient may act now (with `recipientId`: that recipient may act now)',
    recipients: 'unchanged',
    event: '`envelope.reminded` (`recipient_ids`)',
  },
  {
    trigger: 'automatic reminder',
    via: 'timer',
    from: signing,
    to: ['unchanged'],
    when: 'every `reminder_interval_days` after the send, at most `max_automatic_reminders` times, before the deadline',
    recipients: 'unchanged',
    event: '`envelope.reminded` (`recipient_ids`, `automatic: true`), when someone may act',
  },
  {
    trigger: 'deadline warning',
    via: 'timer',
    from: signing,
    to: ['unchanged'],
    when: '`expiring_soon_days` before the deadline (0: never; once per deadline, none when that moment had passed when the deadline or the setting was set)',
    recipients: 'unchanged; those who may act are sent `expiring_soon`',
    event: '`envelope.expiring_soon` (`recipient_ids`, `expires_at`, `days_left`), when someone may act',
  },
  {
    trigger: 'extend',
    via: '`extendEnvelope`',
    from: signing,
    to: ['unchanged'],
    when: 'the new deadline is in the future and later than the current one',
    recipients: 'unchanged',
    event: '`envelope.extended` (`previous_expires_at`, `expires_at`)',
  },
  {
    trigger: 'extend after expiry',
    via: '`extendEnvelope`',
    from: ['Expired'],
    to: ['status before expiry'],
    when: 'within `expired_extension_grace_days` of the expiry (0: never)',
    recipients: 'their statuses before expiry',
    event: '`envelope.extended` (`revived_from: "Expired"`)',
  },
  {
    trigger: 'change settings',
    via: '`updateEnvelopeSettings`',
    from: signing,
    to: ['unchanged'],
    when: 'each setting a whole number within its bounds; a new reminder schedule counts from the change',
    recipients: 'unchanged',
    event:
      '`envelope.settings_updated` (`changed`, `reminder_interval_days`, `max_automatic_reminders`, `expiring_soon_days`, `expired_extension_grace_days`, `next_reminder_at`, `expiry_warning_at`)',
  },
  {
    trigger: 'cancel',
    via: '`cancelEnvelope`',
    from: signing,
    to: ['Cancelled'],
    when: 'always (reason optional); the signing links stop working',
    recipients: 'everyone not `Completed` → `Cancelled`',
    event: '`envelope.cancelled` (`reason`)',
  },
  {
    trigger: 'deadline',
    via: 'timer',
    from: signing,
    to: ['Expired'],
    when: '`expiresAt` passes',
    recipients: 'everyone not `Completed` → `Expired`; those who could act are sent `expired`',
    event: '`envelope.expired`',
  },
  {
    trigger: 'final PDF stored',
    via: '`finalizeEnvelope` activity',
    from: ['ProcessingFinalPdf'],
    to: ['Completed'],
    when: 'the final PDF and the audit trail are rendered and stored',
    recipients: 'unchanged',
    event: '`envelope.completed`, then `document.final_pdf_ready`',
  },
  {
    trigger: 'final PDF failed',
    via: '`finalizeEnvelope` activity',
    from: ['ProcessingFinalPdf'],
    to: ['FinalPdfFailed'],
    when: 'a render error at once; other errors after 5 attempts',
    recipients: 'unchanged',
    event: '`envelope.final_pdf_failed` (`reason`)',
  },
  {
    trigger: 'retry final PDF',
    via: '`retryFinalization` (`sigil envelope retry-final-pdf`, `POST /api/documents/{id}/retry-final-pdf`)',
    from: ['FinalPdfFailed'],
    to: ['ProcessingFinalPdf'],
    when: 'an operator or a sender retries',
    recipients: 'unchanged',
    event: '`envelope.final_pdf_retried` (`requested_by: "sender"` when a sender asked)',
  },
];

/** Whether the table lets `trigger` happen to an envelope in `status`. */
export function allows(trigger: EnvelopeTrigger, status: EnvelopeStatus): boolean {
  return ENVELOPE_TRANSITIONS.some((rule) => rule.trigger === trigger && rule.from.includes(status));
}

/**
 * A recipient's progress through their link, in order. Statuses only move forward along it while the
 * recipient is in turn; the authentication statuses appear only for OTP recipients, before their first
 * verification.
 */
export const RECIPIENT_PROGRESS: readonly RecipientStatus[] = [
  'Pending',
  'InvitationSent',
  'DeliveryFailed',
  'LinkOpened',
  'AuthenticationPending',
  'AuthenticationFailed',
  'AuthenticationVerified',
  'Viewed',
  'InProgress',
  'Completed',
];

/** Statuses of a recipient in turn who has not finished: they may act, and reminders are for them. */
export const ACTING_RECIPIENT_STATUSES: readonly RecipientStatus[] = RECIPIENT_PROGRESS.filter(
  (status) => status !== 'Completed',
);

/**
 * The table as Markdown, for docs/envelope-lifecycle.md: the workflow's transitions, then the changes of the
 * envelope's record after its workflow (archive, unarchive, delete, the retention run; domain/document-lifecycle.ts),
 * which leave the recipients as they are.
 */
export function transitionTableMarkdown(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    '| trigger | via | from | when | to | recipients | audit event |',
    '|---|---|---|---|---|---|---|',
  ];
  const rows = [
    ...ENVELOPE_TRANSITIONS,
    ...RECORD_TRANSITIONS.map((rule) => ({ ...rule, recipients: 'unchanged' })),
  ];
  for (const rule of rows) {
    lines.push(
      `| ${[
        rule.trigger,
        rule.via,
        rule.from.map((s) => `\`${s}\``).join(', '),
        rule.when,
        rule.to.map((s) => (s.includes(' ') || s === 'unchanged' ? s : `\`${s}\``)).join(' / '),
        rule.recipients,
        rule.event,
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
