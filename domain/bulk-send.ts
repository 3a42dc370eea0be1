// Bulk send (docs/bulk-send.md): a published template sent to many recipients from a CSV file, one envelope per
// row, by a Temporal workflow. The requests and views of the application routes (/api/bulk-sends…); each row
// becomes the body of POST /api/v1/envelopes/from-template and is checked as that body is. No `.meta({ id })`:
// the application routes' schemas stay out of /api/v1's document (docs/app-api.md).
import { z } from 'zod';
import { IsoDateTime, offsetPage, safeText, uuidOf } from './common.ts';
import { CreateEnvelopeRequest, EnvelopeView, RecipientView } from './envelope.ts';
import {
  AUTHENTICATION_METHODS,
  BULK_SEND_RECIPIENT_PARTS,
  BULK_SEND_ROW_COLUMNS,
  BULK_SEND_ROW_STATUSES,
  BULK_SEND_STATUSES,
  DELIVERY_CHANNELS,
  RECIPIENT_TYPES,
} from './vocabulary.ts';

export const BULK_SEND_LIMITS = {
  /** Rows of one file (one envelope each). */
  rows: 5000,
  /** Characters of one file. */
  csvCharacters: 5_000_000,
  /** Runs or rows of one page of a list. */
  page: 200,
} as const;

/** How a role's recipients are sent to, the same for every row (absent: as /api/v1 decides for one envelope). */
export const BulkSendRoleSettings = z.strictObject({
  roleName: safeText().trim().min(1, 'roleName is required').max(100),
  type: z.enum(RECIPIENT_TYPES).optional().describe("Absent: the role's default recipient type"),
  deliveryChannel: z
    .enum(DELIVERY_CHANNELS)
    .optional()
    .describe('Absent: Email for a row with the role’s email, else ManualLink'),
  authenticationMethod: z
    .enum(AUTHENTICATION_METHODS)
    .optional()
    .describe('Absent: the organization’s default authentication'),
  signingOrder: z.number().int().min(1).max(100).optional().describe('Absent: the role’s signing order'),
});
export type BulkSendRoleSettings = z.output<typeof BulkSendRoleSettings>;

const columnsText =
  `a header row, then one envelope per row. Columns (any order, any case): ${BULK_SEND_ROW_COLUMNS.join(', ')}; ` +
  `<role>.${BULK_SEND_RECIPIENT_PARTS.join(', <role>.')} for each role of the template; and the label of any ` +
  'field the sender may prefill, whose cell fills every such field with that label';

export const BulkSendRequest = z.strictObject({
  templateId: CreateEnvelopeRequest.shape.templateId,
  title: CreateEnvelopeRequest.shape.title
    .optional()
    .describe('Every envelope’s title unless its row has a title column; absent: the template’s name'),
  workflowType: CreateEnvelopeRequest.shape.workflowType,
  expiresAt: CreateEnvelopeRequest.shape.expiresAt,
  roles: z.array(BulkSendRoleSettings).max(100).default([]),
  filename: safeText().trim().max(255).optional().describe('The CSV file’s name, shown in the list'),
  csv: safeText('multiline')
    .min(1, 'csv is required')
    .max(BULK_SEND_LIMITS.csvCharacters, `csv must be at most ${BULK_SEND_LIMITS.csvCharacters} characters`)
    .describe(`The CSV file’s text (UTF-8, comma-separated, a byte-order mark is ignored): ${columnsText}`),
});
export type BulkSendRequest = z.input<typeof BulkSendRequest>;

/** What a column of the file is read as. */
export const BulkSendColumn = z.object({
  column: z.string().describe('The header’s cell'),
  kind: z.enum(['externalReference', 'title', 'recipient', 'field']),
  roleName: z.string().nullable().describe('The role of a recipient column'),
  part: z.enum(BULK_SEND_RECIPIENT_PARTS).nullable().describe('What a recipient column holds'),
  fields: z.number().int().describe('How many fields a field column fills (0 for other columns)'),
});

/** The file checked against the template and the plan, nothing started (POST /api/bulk-sends/check). */
export const BulkSendCheck = z.object({
  rows: z.number().int().describe('Data rows: one envelope each'),
  columns: z.array(BulkSendColumn),
  textMessagesNeeded: z
    .number()
    .int()
    .describe('SMS/WhatsApp messages the invitations and codes need at least'),
  remainingEnvelopeQuota: z
    .number()
    .int()
    .nullable()
    .describe('Envelopes the plan allows this month; null: no limit'),
  remainingSmsCredits: z.number().int(),
});
export type BulkSendCheck = z.output<typeof BulkSendCheck>;

export const BulkSendView = z.object({
  id: z.uuid(),
  templateId: z.uuid(),
  templateName: z.string(),
  title: z.string().describe('The envelopes’ title (rows with a title column have their own)'),
  filename: z.string().nullable(),
  status: z.enum(BULK_SEND_STATUSES),
  total: z.number().int(),
  pending: z.number().int().describe('Rows not yet sent (Pending or Created)'),
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int().describe('Rows not sent because the run was cancelled'),
  createdAt: IsoDateTime,
  finishedAt: IsoDateTime.nullable(),
  createdBy: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  workflowId: z.string(),
  workflowUrl: z
    .string()
    .nullable()
    .describe('The run’s workflow in the Temporal Web UI, for users who may see workflows; else null'),
});
export type BulkSendView = z.output<typeof BulkSendView>;

export const BulkSendListQuery = z.object(offsetPage(BULK_SEND_LIMITS.page, 'runs'));
export const BulkSendList = z.object({
  items: z.array(BulkSendView).describe('Newest first'),
  total: z.number().int(),
  nextOffset: z.number().int().nullable(),
});
export type BulkSendList = z.output<typeof BulkSendList>;

export const BulkSendIdParams = z.strictObject({ id: uuidOf('id') });
export const BulkSendRowsQuery = z.object({
  id: uuidOf('id'),
  status: z.enum(BULK_SEND_ROW_STATUSES).optional().describe('Only rows in this status'),
  ...offsetPage(BULK_SEND_LIMITS.page, 'rows'),
});

/**
 * What a row's page reads of the create request stored with the row (services/bulk-sends/read-bulk-file.ts
 * checked it as CreateEnvelopeRequest; the send parses it whole): its reference and its recipients' names and
 * contact data, as the envelope's view types them.
 */
export const StoredBulkSendRequest = z.object({
  externalReference: EnvelopeView.shape.externalReference.optional(),
  recipients: z
    .array(
      RecipientView.pick({ roleName: true, fullName: true, email: true, phone: true }).partial({
        email: true,
        phone: true,
      }),
    )
    .optional(),
});

export const BulkSendRowView = z.object({
  row: z.number().int().describe('The row as a spreadsheet numbers it (the header is row 1)'),
  status: z.enum(BULK_SEND_ROW_STATUSES),
  recipients: z.array(
    RecipientView.pick({ roleName: true, fullName: true }).extend({
      contact: z.string().describe('The email address, else the phone number, the row gave'),
    }),
  ),
  externalReference: z.string().nullable(),
  envelopeId: z.uuid().nullable(),
  error: z.string().nullable(),
});
export const BulkSendRows = z.object({
  items: z.array(BulkSendRowView).describe('In file order'),
  total: z.number().int(),
  nextOffset: z.number().int().nullable(),
});
export type BulkSendRows = z.output<typeof BulkSendRows>;

export const BulkSendCsvTemplateQuery = z.object({
  templateId: uuidOf('templateId'),
});
