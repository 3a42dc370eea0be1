// The signer API's contract, once: what a signing link shows and what a signer sends. The API validates
// requests and serializes answers with these schemas; the web app imports their types
// (web/src/lib/signer/signing.ts), so the two cannot drift apart.
import { z } from 'zod';
import { safeText } from './common.ts';
import { DELEGATE_CHANNELS, DeclineRequest, DelegateRecipientRequest } from './envelope.ts';
import { FieldPlacement, FieldProperties } from './template.ts';
import {
  AUTHENTICATION_METHODS,
  ENVELOPE_STATUSES,
  OTP_DIGITS,
  RECIPIENT_STATUSES,
  RECIPIENT_TYPES,
  SIGNER_ACTIONS,
  SIGNING_STATES,
} from './vocabulary.ts';

export const SigningTokenParams = z.object({ token: z.string().min(1).max(200) });
export const SigningFileParams = SigningTokenParams.extend({ fileId: z.uuid() });

/**
 * The documents a recipient's link downloads (GET /api/signing/{token}/documents/{document}): once the
 * envelope is Completed, the final PDF and the audit trail (the same files /api/v1 serves); before, to a
 * recipient asked to act, the original document they are asked to act on.
 */
export const SIGNING_DOCUMENTS = ['final-pdf', 'audit-trail', 'original'] as const;
export type SigningDocument = (typeof SIGNING_DOCUMENTS)[number];
export const SigningDocumentParams = SigningTokenParams.extend({
  document: z.enum(SIGNING_DOCUMENTS, {
    message: `document must be one of ${SIGNING_DOCUMENTS.join(', ')}`,
  }),
});

/**
 * Which downloads the link offers now: the path of each (relative to the server, the link's token in it), or
 * null when that document cannot be downloaded with this link now.
 */
export const SigningDownloads = z.object({
  /** The signed document: once the envelope is Completed (archived included), until it is deleted. */
  finalPdf: z.string().nullable(),
  /** The audit trail: when `finalPdf` is. */
  auditTrail: z.string().nullable(),
  /** The document as sent, without anybody's values: while the recipient may act (state `ready`). */
  original: z.string().nullable(),
});
export type SigningDownloads = z.output<typeof SigningDownloads>;

/**
 * The audit event of a recipient's download (data: `document`, `sha256`, `size_bytes`, `ip`, `user_agent`),
 * recorded outside the workflow like the record events of domain/document-lifecycle.ts.
 */
export const DOCUMENT_DOWNLOADED_EVENT = 'document.downloaded';

/** One of the recipient's fields with its saved (or prefilled) value. */
export const SigningField = FieldPlacement.extend({
  fieldDefinitionId: z.uuid(),
  label: z.string(),
  required: z.boolean(),
  options: z.array(z.string()).nullable(),
  /** The field's type-specific properties (docs/templates.md): the page narrows its upload limits by them. */
  properties: FieldProperties,
  value: z.unknown(),
});
export type SigningField = z.output<typeof SigningField>;

/**
 * What another recipient's field shows on this recipient's page, read-only, once that recipient has completed:
 * its text (a Date's as YYYY-MM-DD, a Radio's or Dropdown's choice), whether a Checkbox is ticked, an image (a
 * signature, initials, stamp or uploaded picture) the page fetches with GET /api/signing/{token}/files/{fileId},
 * or the name of an uploaded file that is not a picture (never its contents).
 */
export const FilledValue = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('checkbox'), checked: z.boolean() }),
  z.object({ kind: z.literal('image'), fileId: z.uuid() }),
  z.object({ kind: z.literal('file'), filename: z.string() }),
]);
export type FilledValue = z.output<typeof FilledValue>;

/** A field of a recipient who has completed, where it stands, with the role's name ("filled by Client"). */
export const FilledField = SigningField.pick({
  fieldDefinitionId: true,
  type: true,
  label: true,
  page: true,
  x: true,
  y: true,
  width: true,
  height: true,
  properties: true,
}).extend({ filledBy: z.string(), value: FilledValue });
export type FilledField = z.output<typeof FilledField>;

export const RequiredField = z.object({
  fieldDefinitionId: z.uuid(),
  label: z.string(),
  filled: z.boolean(),
});
export type RequiredField = z.output<typeof RequiredField>;

/** What the signer app shows for a link (GET /api/signing/{token}, and the answer of a save). */
export const SigningView = z.object({
  state: z.enum(SIGNING_STATES),
  title: z.string(),
  organizationName: z.string(),
  recipient: z.object({
    name: z.string(),
    status: z.enum(RECIPIENT_STATUSES),
    type: z.enum(RECIPIENT_TYPES),
    language: z.string(),
  }),
  action: z.enum(SIGNER_ACTIONS),
  consentRequired: z.boolean(),
  /** A Signer's consent: the organization's consent text (settings), else the default in their language. */
  consentText: z.string().nullable(),
  /** The organization's privacy notice (settings), shown to every recipient; null: none. */
  privacyNotice: z.string().nullable(),
  authenticationRequired: z.boolean(),
  authenticated: z.boolean(),
  authenticationMethod: z.enum(AUTHENTICATION_METHODS),
  maskedPhone: z.string().nullable(),
  /** Empty until the recipient may act (state `ready`, and authenticated when a code is required). */
  fields: z.array(SigningField),
  /**
   * The fields of the other recipients who have completed, with their values, shown read-only: empty when
   * `fields` is, and never a value of a recipient who has not completed.
   */
  filledByOthers: z.array(FilledField),
  awaitingCount: z.number().int(),
  requiredFields: z.array(RequiredField),
  /**
   * The sender lets recipients hand their part to another person (POST /api/signing/{token}/delegate), which
   * works while the state is `ready` (and authenticated when a code is required).
   */
  allowDelegation: z.boolean(),
  /** What the page offers to download ("Download the signed document", "Download the audit trail"). */
  downloads: SigningDownloads,
});
export type SigningView = z.output<typeof SigningView>;

/** The answer of complete and decline: where the link and the envelope stand now. */
export const SigningOutcome = z.object({
  state: z.enum(SIGNING_STATES),
  envelopeStatus: z.enum(ENVELOPE_STATUSES),
});
export type SigningOutcome = z.output<typeof SigningOutcome>;

export const SaveFieldsRequest = z.object({
  values: z
    .array(z.object({ fieldDefinitionId: safeText().min(1).max(100), value: z.unknown() }))
    .min(1)
    .max(200),
});
export type SaveFieldsRequest = z.input<typeof SaveFieldsRequest>;

export const CompleteSigningRequest = z.object({ consent: z.boolean().optional() }).nullish();

export const DeclineSigningRequest = DeclineRequest;

/** The person a recipient hands their part to: a recipient's contact, by the create request's rules. */
export const DelegateSigningRequest = DelegateRecipientRequest;

/** The answer of a delegation: this link has ended; the delegate is invited by their channel. */
export const DelegationOutcome = z.object({
  state: z.literal('delegated'),
  envelopeStatus: z.enum(ENVELOPE_STATUSES),
  delegate: z.object({ fullName: z.string(), deliveryChannel: z.enum(DELEGATE_CHANNELS) }),
});
export type DelegationOutcome = z.output<typeof DelegationOutcome>;

export const VerifyCodeRequest = z.object({
  code: z.string().regex(new RegExp(`^\\d{${OTP_DIGITS}}$`), `the code is exactly ${OTP_DIGITS} digits`),
});

export const CodeSent = z.object({
  channel: z.enum(['Sms', 'WhatsApp']),
  sentTo: z.string(),
  expiresAt: z.iso.datetime({ offset: true }),
  resendAvailableAt: z.iso.datetime({ offset: true }),
});
export type CodeSent = z.output<typeof CodeSent>;

export const CodeVerified = z.object({
  sessionToken: z.string(),
  expiresAt: z.iso.datetime({ offset: true }),
});
export type CodeVerified = z.output<typeof CodeVerified>;
