// The product's vocabulary as the specification names it: statuses, recipient types, channels, field types and
// plans, shared by every layer (the workflow bundle, the services, the database, the PDF library). Pure data,
// no imports, safe in workflow code.

export const ENVELOPE_STATUSES = [
  'Draft',
  'ReadyToSend',
  'Sending',
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'ProcessingFinalPdf',
  'Completed',
  'DeliveryFailed',
  'FinalPdfFailed',
  'Declined',
  'Cancelled',
  'Expired',
  'Archived',
  'Deleted',
] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export const RECIPIENT_STATUSES = [
  'Pending',
  'WaitingForTurn',
  'InvitationSent',
  'DeliveryFailed',
  'LinkOpened',
  'AuthenticationPending',
  'AuthenticationVerified',
  'AuthenticationFailed',
  'Viewed',
  'InProgress',
  'Completed',
  'Declined',
  'Cancelled',
  'Expired',
] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

export const WORKFLOW_TYPES = ['Sequential', 'Parallel', 'GroupedRounds'] as const;
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

export const RECIPIENT_TYPES = ['Signer', 'FormFiller', 'Approver', 'Viewer', 'Cc'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export const DELIVERY_CHANNELS = ['Email', 'Sms', 'WhatsApp', 'ManualLink', 'Api'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const AUTHENTICATION_METHODS = ['SecureLink', 'OtpSms', 'OtpWhatsApp'] as const;
export type AuthenticationMethod = (typeof AUTHENTICATION_METHODS)[number];

/** Field types exactly as the specification names them. */
export const FIELD_TYPES = [
  'Signature',
  'Initials',
  'Full name',
  'Text',
  'Long text',
  'Date',
  'Email',
  'Phone',
  'ID number',
  'Checkbox',
  'Radio',
  'Dropdown',
  'Read-only text',
  'File upload',
  'Image upload',
  'Company stamp',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Field types whose value is an image or file the signer supplies (they cannot be prefilled). */
export const SIGNER_SUPPLIED_FIELD_TYPES = [
  'Signature',
  'Initials',
  'Company stamp',
  'File upload',
  'Image upload',
] as const satisfies readonly FieldType[];

/** Field types a signer fills with a plain input (text, a choice, a checkbox). */
export const PLAIN_FIELD_TYPES = FIELD_TYPES.filter(
  (type): type is Exclude<FieldType, (typeof SIGNER_SUPPLIED_FIELD_TYPES)[number]> =>
    !(SIGNER_SUPPLIED_FIELD_TYPES as readonly FieldType[]).includes(type),
);

/** Field types whose definition must list the choices. */
export const FIELD_TYPES_WITH_OPTIONS: readonly FieldType[] = ['Radio', 'Dropdown'];

/** Field types a signer's signature fills (the act of signing): only a Signer may be given them. */
export const SIGNATURE_FIELD_TYPES = [
  'Signature',
  'Initials',
  'Company stamp',
] as const satisfies readonly FieldType[];

/** How a Date field's value (always stored as YYYY-MM-DD) is written in the final PDF (docs/templates.md). */
export const DATE_FORMATS = ['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** What an ID number field accepts: any 4-20 letters, digits or dashes, or an Israeli identity number. */
export const ID_NUMBER_FORMATS = ['Any', 'IsraeliId'] as const;
export type IdNumberFormat = (typeof ID_NUMBER_FORMATS)[number];

/** The file types an upload field may accept. */
export const UPLOAD_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

/** What each upload type accepts at most (the signer API's limits); a template field may narrow them. */
export const UPLOAD_FIELD_LIMITS = {
  'File upload': { contentTypes: ['application/pdf', 'image/png', 'image/jpeg'], maxSizeMb: 4 },
  'Image upload': { contentTypes: ['image/png', 'image/jpeg'], maxSizeMb: 2 },
} as const satisfies Partial<
  Record<FieldType, { contentTypes: readonly UploadContentType[]; maxSizeMb: number }>
>;

/** The languages of the interface, the documents and the messages. */
export const SUPPORTED_LANGUAGES = ['en', 'he'] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

export const PLAN_NAMES = ['Starter', 'Professional', 'Business', 'Premium', 'Enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** Statuses after which an envelope's workflow has ended and nothing more happens to it. */
export const TERMINAL_ENVELOPE_STATUSES: readonly EnvelopeStatus[] = [
  'Completed',
  'Declined',
  'Cancelled',
  'Expired',
  'Archived',
  'Deleted',
];

export function isTerminalEnvelopeStatus(status: EnvelopeStatus): boolean {
  return TERMINAL_ENVELOPE_STATUSES.includes(status);
}

/** What the signer app shows for a signing link. */
export const SIGNING_STATES = [
  'ready',
  'not_in_turn',
  'completed',
  'declined',
  'cancelled',
  'expired',
  'finalizing',
] as const;
export type SigningState = (typeof SIGNING_STATES)[number];

/** What completing means for each recipient type, as the signer app names it. */
export const SIGNER_ACTIONS = ['sign', 'fill', 'approve', 'view'] as const;
export type SignerAction = (typeof SIGNER_ACTIONS)[number];

/** The header that carries a signer session (from a verified one-time code). */
export const SIGNING_SESSION_HEADER = 'x-signing-session';

/** Digits of a one-time code. */
export const OTP_DIGITS = 6;

/** Every event name of the specification (Events, Event names). */
export const WEBHOOK_EVENT_TYPES = [
  'envelope.created',
  'envelope.sent',
  'recipient.opened',
  'recipient.authentication_verified',
  'recipient.authentication_failed',
  'recipient.completed',
  'recipient.declined',
  'envelope.completed',
  'envelope.cancelled',
  'envelope.expired',
  'envelope.delivery_failed',
  'document.final_pdf_ready',
  // Beyond the specification's list (issue 33): the sender corrected a recipient (docs/webhooks.md).
  'recipient.corrected',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** Where a webhook delivery stands. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Every kind of message Sigil sends. `otp` is sent by the signer API itself, never through the activity. */
export const NOTIFICATION_KINDS = [
  'invitation',
  'reminder',
  'otp',
  'completed',
  'declined',
  'cancelled',
  // Deadline notices to recipients who can still act (docs/envelope-lifecycle.md, "Reminders and deadline warnings").
  'expiring_soon',
  'expired',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * What the user who sent an envelope (and, by the organization's setting, its administrators) is told of
 * (docs/notifications.md, "Sender notifications"): stored in the app, emailed by preference.
 */
export const SENDER_NOTIFICATION_KINDS = [
  'completed',
  'declined',
  'cancelled',
  'expired',
  'expiring_soon',
  'delivery_failed',
] as const;
export type SenderNotificationKind = (typeof SENDER_NOTIFICATION_KINDS)[number];

/** Which administrators are told too: none, the envelope's team's, or the organization's. */
export const NOTIFY_ADMINISTRATORS = ['none', 'team', 'organization'] as const;
export type NotifyAdministrators = (typeof NOTIFY_ADMINISTRATORS)[number];

/** The emails about a user's own account (docs/accounts.md, "Emailed links"). */
export const ACCOUNT_EMAIL_KINDS = [
  'verify_email',
  'reset_password',
  'invite',
  'registration_attempt',
  'invitation_attempt',
  // The user's own account on the profile (docs/accounts.md, "Your account"): a changed password, the link
  // to a new address, and the notices to the old one when a change is asked and when it is done.
  'password_changed',
  'email_change',
  'email_change_requested',
  'email_changed',
  // An administrator (or platform staff) reset the user's two-step verification (docs/administration.md).
  'mfa_reset',
  // Platform support unlocked a sign-in locked after wrong passwords (docs/backoffice.md).
  'account_unlocked',
] as const;
export type AccountEmailKind = (typeof ACCOUNT_EMAIL_KINDS)[number];

/**
 * Every kind of message the development capture keeps (notifications/dev-capture.ts): an envelope's
 * notifications, the account emails, the backoffice's sign-in code and a provider's test message.
 */
export const CAPTURED_NOTIFICATION_KINDS = [
  ...NOTIFICATION_KINDS,
  ...ACCOUNT_EMAIL_KINDS,
  'platform_admin_code',
  'provider_test',
  // A sender notification's email, one or a daily digest (docs/notifications.md, "Sender notifications").
  'sender_notification',
] as const;
export type CapturedNotificationKind = (typeof CAPTURED_NOTIFICATION_KINDS)[number];

/** The channels that carry a message (`ManualLink` and `Api` recipients get none). */
export const MESSAGE_CHANNELS = ['Email', 'Sms', 'WhatsApp'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/** A bulk send's run (docs/bulk-send.md): sending rows, every row done, or stopped by a user. */
export const BULK_SEND_STATUSES = ['Running', 'Completed', 'Cancelled'] as const;
export type BulkSendStatus = (typeof BULK_SEND_STATUSES)[number];

/** A bulk send's row: waiting, envelope made, envelope sent, refused, or not sent because the run was cancelled. */
export const BULK_SEND_ROW_STATUSES = ['Pending', 'Created', 'Sent', 'Failed', 'Skipped'] as const;
export type BulkSendRowStatus = (typeof BULK_SEND_ROW_STATUSES)[number];

/** The columns of a bulk send's CSV file that are not a role's or a field's (docs/bulk-send.md). */
export const BULK_SEND_ROW_COLUMNS = ['externalReference', 'title'] as const;
/** A role's columns: `<role name>.<part>` (`Client.email`). */
export const BULK_SEND_RECIPIENT_PARTS = ['name', 'email', 'phone', 'language'] as const;
