// An envelope's shape, once: the recipient and envelope as the public API shows them (and as sandbox
// envelopes are stored), and the requests that create and change them. Services parse with these schemas,
// routes declare them (and so the OpenAPI document), views are typed by them.
import { z } from 'zod';
import { IsoDateTime, safeText, UUID_PATTERN } from './common.ts';
import { jsonTextProblem } from './text.ts';
import {
  AUTHENTICATION_METHODS,
  DELIVERY_CHANNELS,
  ENVELOPE_STATUSES,
  RECIPIENT_STATUSES,
  RECIPIENT_TYPES,
  WORKFLOW_TYPES,
} from './vocabulary.ts';

const E164 = /^\+[1-9]\d{6,14}$/;

/** A recipient as the API shows it. */
export const RecipientView = z
  .object({
    id: z.uuid(),
    roleName: z.string(),
    fullName: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    signingOrder: z.number().int(),
    deliveryChannel: z.enum(DELIVERY_CHANNELS),
    authenticationMethod: z.enum(AUTHENTICATION_METHODS),
    type: z.enum(RECIPIENT_TYPES),
    language: z.string().nullable(),
    required: z.boolean().describe('Whether the envelope waits for this recipient to complete'),
    status: z.enum(RECIPIENT_STATUSES),
    completedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Recipient' });
export type RecipientView = z.output<typeof RecipientView>;

export const InitialValue = z.object({
  fieldDefinitionId: z.string().regex(UUID_PATTERN, 'fieldDefinitionId must be a uuid'),
  value: z.unknown(),
});

/** An envelope as the API shows it (dates as ISO 8601 strings). */
export const EnvelopeView = z
  .object({
    id: z.uuid(),
    status: z.enum(ENVELOPE_STATUSES),
    title: z.string(),
    workflowType: z.enum(WORKFLOW_TYPES),
    templateId: z.uuid().nullable(),
    expiresAt: IsoDateTime.nullable(),
    externalReference: z.string().nullable(),
    externalSystem: z.string().nullable(),
    externalMetadataJson: z.string().nullable(),
    finalPdfFileId: z.uuid().nullable().describe('Empty until the final PDF exists'),
    auditTrailFileId: z.uuid().nullable().describe('Empty until the audit trail exists'),
    reminderCount: z.number().int(),
    recipients: z.array(RecipientView),
    initialValues: z.array(z.object({ fieldDefinitionId: z.uuid(), value: z.unknown() })),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Envelope' });
export type EnvelopeView = z.output<typeof EnvelopeView>;

/** A recipient in a create request: the view's contact and routing fields, checked against each other. */
export const RecipientInput = z
  .object({
    roleName: safeText().trim().min(1, 'roleName is required').max(100),
    fullName: safeText().trim().min(1, 'fullName is required').max(200),
    email: z.email('email must be a valid address').optional(),
    phone: z.string().trim().regex(E164, 'phone must be in E.164 form, for example +972501234567').optional(),
    signingOrder: z.number().int().min(1).optional(),
    deliveryChannel: RecipientView.shape.deliveryChannel.optional(),
    // No schema default: absent, the organization's defaultAuthenticationMethod applies (create-envelope.ts).
    authenticationMethod: RecipientView.shape.authenticationMethod.optional().meta({
      description:
        "Absent: the organization's default authentication (SecureLink unless its settings say OtpSms or " +
        'OtpWhatsApp, which apply only to a recipient with a phone).',
    }),
    type: RecipientView.shape.type.default('Signer'),
    language: z
      .union([
        z
          .string()
          .trim()
          .regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'language must be a language code such as en or he'),
        z.literal(''),
      ])
      .nullable()
      .optional()
      .transform((language) => (language ? language : null)),
  })
  .superRefine((recipient, ctx) => {
    const channel = recipient.deliveryChannel ?? (recipient.email ? 'Email' : 'ManualLink');
    if (channel === 'Email' && !recipient.email) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email is required for the Email channel' });
    }
    const needsPhone =
      channel === 'Sms' ||
      channel === 'WhatsApp' ||
      (recipient.authenticationMethod !== undefined && recipient.authenticationMethod !== 'SecureLink');
    if (needsPhone && !recipient.phone) {
      ctx.addIssue({
        code: 'custom',
        path: ['phone'],
        message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
      });
    }
  });

/** The body of envelope creation (the specification's create-from-template request). */
export const CreateEnvelopeRequest = z
  .object({
    title: safeText().trim().min(1, 'title is required').max(200),
    workflowType: EnvelopeView.shape.workflowType.default('Sequential'),
    templateId: z.string().regex(UUID_PATTERN, 'templateId must be a uuid'),
    expiresAt: z.iso
      .datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time' })
      .optional()
      .refine(
        (value) => value === undefined || Date.parse(value) > Date.now(),
        'expiresAt must be in the future',
      ),
    externalReference: safeText().trim().min(1).max(200).optional(),
    externalSystem: safeText().trim().min(1).max(100).optional(),
    externalMetadataJson: safeText('multiline')
      .max(64 * 1024)
      .superRefine(checkJsonDocument)
      .optional(),
    recipients: z.array(RecipientInput).min(1, 'at least one recipient is required').max(100),
    documents: z.array(z.unknown()).max(1, 'an envelope holds at most one document').optional(),
    initialValues: z.array(InitialValue).max(500).default([]),
  })
  .meta({ id: 'CreateEnvelopeRequest' });
export type CreateEnvelopeRequest = z.input<typeof CreateEnvelopeRequest>;

export const ExtendEnvelopeRequest = z
  .object({
    expiresAt: z.iso
      .datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time' })
      .refine((value) => Date.parse(value) > Date.now(), 'expiresAt must be in the future'),
  })
  .meta({ id: 'ExtendEnvelopeRequest' });
export type ExtendEnvelopeRequest = z.input<typeof ExtendEnvelopeRequest>;

export const CancelEnvelopeRequest = z
  .object({
    // Blank (or only spaces) is no reason: the document cannot say "not only whitespace", so it is not refused.
    reason: safeText('multiline')
      .trim()
      .max(500)
      .optional()
      .transform((reason) => reason || undefined),
  })
  .nullish()
  .meta({ id: 'CancelEnvelopeRequest' });

export const DeclineRequest = z.object({
  reason: safeText('multiline').trim().min(1, 'a reason is required to decline').max(1000),
});

/** The path parameter of the by-external-reference lookup: the same text rule as the stored reference. */
export const ExternalReferenceParams = z.object({ externalReference: safeText().min(1).max(200) });

/**
 * externalMetadataJson must be a JSON document whose strings, once parsed, are text Sigil can store: the
 * document itself may spell a NUL or a lone surrogate as an escape (`\u0000`, `\ud800`).
 */
function checkJsonDocument(value: string, ctx: z.RefinementCtx): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'externalMetadataJson must hold a JSON document' });
    return;
  }
  const found = jsonTextProblem(parsed);
  if (found) {
    const where = found.path === '' ? 'its text' : `its value at ${found.path}`;
    ctx.addIssue({ code: 'custom', message: `externalMetadataJson: ${where} ${found.problem}` });
  }
}
