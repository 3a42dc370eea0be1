// An envelope's shape, once: the recipient and envelope as the public API shows them (and as sandbox
// envelopes are stored), and the requests that create and change them. Services parse with these schemas,
// routes declare them (and so the OpenAPI document), views are typed by them.
import { z } from 'zod';
import { IsoDateTime, safeText, UUID_PATTERN } from './common.ts';
import { DeadlineSettings, DeadlineSettingsInput } from './envelope-settings.ts';
import { checkFieldOptions, FieldDefinitionInput } from './template.ts';
import { jsonTextProblem } from './text.ts';
import {
  AUTHENTICATION_METHODS,
  DELIVERY_CHANNELS,
  ENVELOPE_STATUSES,
  RECIPIENT_STATUSES,
  RECIPIENT_TYPES,
  WORKFLOW_TYPES,
} from './vocabulary.ts';

/** A phone number in E.164 form (`+972501234567`): recipients and contacts. */
export const E164 = /^\+[1-9]\d{6,14}$/;

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

/*
 * Every other shape of a recipient is derived from RecipientView: what a create writes (below), the
 * business app's rows and pages (domain/document.ts), a bulk send's rows (domain/bulk-send.ts) and the audit
 * trail's table (pdf/render-audit-trail.ts).
 */

/** A recipient as a create writes it: the view's fields but those the recipient's progress sets. */
export const NewRecipient = RecipientView.omit({ id: true, status: true, completedAt: true });
export type NewRecipient = z.output<typeof NewRecipient>;

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
    templateId: z
      .uuid()
      .nullable()
      .describe('The template the envelope was created from; null for an envelope created from a file'),
    sourceFileId: z
      .uuid()
      .nullable()
      .describe(
        'The uploaded file the envelope was created from (POST /api/v1/envelopes/from-file); null for an envelope created from a template',
      ),
    expiresAt: IsoDateTime.nullable(),
    externalReference: z.string().nullable(),
    externalSystem: z.string().nullable(),
    externalMetadataJson: z.string().nullable(),
    finalPdfFileId: z.uuid().nullable().describe('Empty until the final PDF exists'),
    auditTrailFileId: z.uuid().nullable().describe('Empty until the audit trail exists'),
    reminderCount: z.number().int(),
    allowDelegation: z
      .boolean()
      .describe(
        'Whether recipients may hand their part to another person (POST /api/signing/{token}/delegate)',
      ),
    deadlineSettings: DeadlineSettings.nullable().describe(
      "Its automatic reminders, deadline warning and grace window; null for envelopes created before they were kept (sent with the organization's settings)",
    ),
    recipients: z.array(RecipientView),
    initialValues: z.array(z.object({ fieldDefinitionId: z.uuid(), value: z.unknown() })),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Envelope' });
export type EnvelopeView = z.output<typeof EnvelopeView>;

/**
 * The names of a recipient's own rules (the `params.key` of their issues): an address or a number the chosen
 * channel or identity check needs. Clients show their own words for each (the web app: `fieldError.<key>`).
 */
export const RECIPIENT_RULE_KEYS = {
  emailForChannel: 'recipient.emailRequiredForChannel',
  phoneForChannel: 'recipient.phoneRequiredForChannel',
  phoneForAuthentication: 'recipient.phoneRequiredForAuthentication',
} as const;

/** A recipient's fields in a create request, before their rules (below) check them against each other. */
const RecipientInputFields = z.object({
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
});

/**
 * A recipient's own rules: an address or a number the chosen channel or identity check needs. Each rule names its
 * message for clients (`params.key`, docs/app-api.md "The rule a refused field broke"), with what it depends
 * on, so a page can say it in its own language.
 */
function checkRecipientContact(
  recipient: Partial<
    Pick<
      z.output<typeof RecipientInputFields>,
      'email' | 'phone' | 'deliveryChannel' | 'authenticationMethod'
    >
  >,
  ctx: z.RefinementCtx,
): void {
  const channel = recipient.deliveryChannel ?? (recipient.email ? 'Email' : 'ManualLink');
  if (channel === 'Email' && !recipient.email) {
    ctx.addIssue({
      code: 'custom',
      path: ['email'],
      message: 'email is required for the Email channel',
      params: { key: RECIPIENT_RULE_KEYS.emailForChannel, channel },
    });
  }
  if (recipient.phone) return;
  if (channel === 'Sms' || channel === 'WhatsApp') {
    ctx.addIssue({
      code: 'custom',
      path: ['phone'],
      message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
      params: { key: RECIPIENT_RULE_KEYS.phoneForChannel, channel },
    });
  } else if (
    recipient.authenticationMethod !== undefined &&
    recipient.authenticationMethod !== 'SecureLink'
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['phone'],
      message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
      params: {
        key: RECIPIENT_RULE_KEYS.phoneForAuthentication,
        authenticationMethod: recipient.authenticationMethod,
      },
    });
  }
}

/** A recipient in a create request: the view's contact and routing fields, checked against each other. */
export const RecipientInput = RecipientInputFields.superRefine(checkRecipientContact);

/** The channels a delegate can be invited by: a message must reach them (docs/signing.md). */
export const DELEGATE_CHANNELS = ['Email', 'Sms', 'WhatsApp'] as const;

/**
 * The person a recipient hands their part to (POST /api/signing/{token}/delegate): a create request's recipient
 * contact, checked by the same rules, reached by a message (Email without a channel when an address is given).
 */
export const DelegateRecipientRequest = RecipientInputFields.pick({
  fullName: true,
  email: true,
  phone: true,
  language: true,
})
  .extend({
    deliveryChannel: RecipientView.shape.deliveryChannel
      .extract(DELEGATE_CHANNELS, { message: 'deliveryChannel must be Email, Sms or WhatsApp' })
      .optional(),
  })
  .superRefine((delegate, ctx) => {
    if (!delegate.deliveryChannel && !delegate.email) {
      ctx.addIssue({
        code: 'custom',
        path: ['deliveryChannel'],
        message: 'deliveryChannel is required without an email address (Email, Sms or WhatsApp)',
      });
      return;
    }
    checkRecipientContact(delegate, ctx);
  });
export type DelegateRecipientRequest = z.input<typeof DelegateRecipientRequest>;

/**
 * The sender's correction of a sent envelope's recipient (PATCH /api/v1/envelopes/{id}/recipients/{recipientId}):
 * any of the recipient's name, contact, channel and language, each checked as a create request's; a field given
 * replaces the recipient's (`null` clears an email, phone or language), one absent keeps it. The result is checked
 * by the recipient's rules (`CorrectedRecipientContact`).
 */
export const RecipientCorrectionFields = RecipientInputFields.pick({ fullName: true, language: true })
  .extend({
    email: RecipientInputFields.shape.email.unwrap().nullable(),
    phone: RecipientInputFields.shape.phone.unwrap().nullable(),
    deliveryChannel: RecipientView.shape.deliveryChannel,
  })
  .partial();

/** A correction names something to change. */
export function namesACorrection(correction: Record<string, unknown>): boolean {
  return ['fullName', 'email', 'phone', 'deliveryChannel', 'language'].some((key) => key in correction);
}

export const CorrectRecipientRequest = RecipientCorrectionFields.strict()
  .refine(namesACorrection, {
    message: 'give at least one of fullName, email, phone, deliveryChannel and language',
  })
  // At least one change, stated in the OpenAPI document too (the strict body has only the five fields).
  .meta({ id: 'CorrectRecipientRequest', minProperties: 1 });
export type CorrectRecipientRequest = z.input<typeof CorrectRecipientRequest>;

/** A corrected recipient's contact as a whole, checked by a create request's recipient rules. */
export const CorrectedRecipientContact = RecipientInputFields.pick({
  email: true,
  phone: true,
  deliveryChannel: true,
  authenticationMethod: true,
}).superRefine(checkRecipientContact);

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
    allowDelegation: z
      .boolean()
      .optional()
      .describe(
        "Whether recipients may hand their part to another person; absent: the template's setting (off for an envelope created from a file)",
      ),
    // Reminder and deadline settings (domain/envelope-settings.ts); each absent: the organization's default.
    ...DeadlineSettingsInput.shape,
  })
  .meta({ id: 'CreateEnvelopeRequest' });
export type CreateEnvelopeRequest = z.input<typeof CreateEnvelopeRequest>;

/** The most fields one envelope created from a file may place. */
export const MAX_FILE_FIELDS = 500;

/**
 * A field placed on an uploaded file: what a template's field definition holds (domain/template.ts), plus an
 * optional prefilled value, checked as an initialValues item of a template envelope is.
 */
export const FileFieldInput = FieldDefinitionInput.extend({
  role: FieldDefinitionInput.shape.role.meta({
    description:
      "The role that fills in the field: a recipient's roleName. Every role with fields needs an acting (non-Cc) recipient.",
  }),
  required: z.boolean().optional().meta({
    description:
      'Whether the field must be filled to complete. Absent: true for Signature and Initials fields.',
  }),
  options: FieldDefinitionInput.shape.options.meta({
    description:
      'The choices of a Radio or Dropdown field (required for them, each once); no other type takes options.',
  }),
  value: z.unknown().optional().meta({
    description:
      'A prefilled value, as an initialValues item of a template envelope: text, a date, a choice, true/false for a Checkbox; not for Signature, Initials, Company stamp, File upload and Image upload fields, which the signer supplies.',
  }),
})
  .superRefine((field, ctx) => checkFieldOptions(field, ctx, []))
  .meta({
    id: 'FileField',
    description:
      'A field placed on the file. page is 1-based; x, y, width and height are PDF points (1/72 inch) measured from the top-left corner of the page as it is displayed (its crop box, after the page rotation), x to the right and y downwards — the same coordinates as a template field. The box must lie within its page.',
  });

/**
 * The body of envelope creation from an uploaded file: the create-from-template request without the template
 * (templateId, documents, initialValues), with the file and the fields placed on it.
 */
export const CreateEnvelopeFromFileRequest = CreateEnvelopeRequest.omit({
  templateId: true,
  documents: true,
  initialValues: true,
})
  .extend({
    fileId: z
      .string()
      .regex(UUID_PATTERN, 'fileId must be a uuid')
      .meta({ description: 'The id of a PDF uploaded with POST /api/v1/files/upload.' }),
    fields: z
      .array(FileFieldInput)
      .max(MAX_FILE_FIELDS, `an envelope holds at most ${MAX_FILE_FIELDS} fields`)
      .meta({
        description:
          'The fields placed on the file, in order; recipients are mapped to the fields by roleName = role. May be empty when every recipient is an Approver, Viewer or Cc.',
      }),
  })
  .meta({ id: 'CreateEnvelopeFromFileRequest' });
export type CreateEnvelopeFromFileRequest = z.input<typeof CreateEnvelopeFromFileRequest>;

export const ExtendEnvelopeRequest = z
  .object({
    expiresAt: z.iso
      .datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time' })
      .refine((value) => Date.parse(value) > Date.now(), 'expiresAt must be in the future'),
  })
  .meta({ id: 'ExtendEnvelopeRequest' });
export type ExtendEnvelopeRequest = z.input<typeof ExtendEnvelopeRequest>;

/**
 * The body of a Draft's edit (PATCH /api/v1/envelopes/{id}): the create request's fields, each optional and
 * checked by the same rules. A field given replaces the Draft's — recipients and initialValues as whole lists —
 * and one absent keeps it; the result is checked as a create is (services/envelopes/update-draft.ts). No
 * defaults: an absent workflowType or initialValues keeps the Draft's.
 */
export const UpdateDraftRequest = CreateEnvelopeRequest.omit({ documents: true })
  .partial()
  .extend({
    workflowType: CreateEnvelopeRequest.shape.workflowType.unwrap().optional(),
    initialValues: CreateEnvelopeRequest.shape.initialValues.unwrap().optional(),
  })
  .meta({
    id: 'UpdateDraftRequest',
    example: {
      title: 'Lease agreement — 12 Herzl St. (corrected)',
      expiresAt: '2027-01-31T21:59:00.000Z',
      recipients: [
        { roleName: 'Tenant', fullName: 'Noa Levi', email: 'noa@example.com', signingOrder: 1 },
        {
          roleName: 'Landlord',
          fullName: 'Dan Cohen',
          phone: '+972501234567',
          deliveryChannel: 'Sms',
          signingOrder: 2,
        },
      ],
    },
  });
export type UpdateDraftRequest = z.input<typeof UpdateDraftRequest>;

/** Why an envelope is cancelled (optional), as every route that cancels takes it. */
export const CancelReason = safeText('multiline')
  .trim()
  .max(500)
  .optional()
  // Blank (or only spaces) is no reason: the document cannot say "not only whitespace", so it is not refused.
  .transform((reason) => reason || undefined);

export const CancelEnvelopeRequest = z
  .object({ reason: CancelReason })
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
