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

/** Field types whose definition must list the choices. */
export const FIELD_TYPES_WITH_OPTIONS: readonly FieldType[] = ['Radio', 'Dropdown'];

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
