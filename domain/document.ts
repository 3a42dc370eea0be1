// The business app's documents (docs/documents.md): the envelopes of an organization as its users list, open and
// act on them through /api/documents. The envelope's own shapes come from domain/envelope.ts (statuses, recipient
// fields, the cancel and extend requests); these are the list's query and the pages' views. No `.meta({ id })`:
// the application routes' schemas stay out of /api/v1's document (docs/app-api.md).
import { z } from 'zod';
import { IsoDateTime, safeText, uuidOf } from './common.ts';
import {
  CancelReason,
  EnvelopeView,
  ExtendEnvelopeRequest,
  namesACorrection,
  RecipientCorrectionFields,
  RecipientView,
} from './envelope.ts';
import { DeadlineSettings, DeadlineSettingsInput } from './envelope-settings.ts';
import { ENVELOPE_STATUSES } from './vocabulary.ts';

/**
 * The list's tabs: `all` (every envelope but archived and deleted ones), `action_needed` (waiting on the
 * signed-in user: as a recipient in turn, by their email address, or as the sender of a failed envelope),
 * `in_progress` (sent and not finished), one per final status, `drafts` and `archived`.
 */
export const DOCUMENT_TABS = [
  'all',
  'action_needed',
  'in_progress',
  'completed',
  'declined',
  'cancelled',
  'expired',
  'drafts',
  'archived',
] as const;
export type DocumentTab = (typeof DOCUMENT_TABS)[number];

export const DOCUMENT_LIMITS = {
  /** Characters of a search. */
  search: 200,
  /** Envelopes of one page of the list. */
  page: 100,
  defaultPage: 25,
  /** Recipients named in a row of the list (recipientCount counts them all). */
  recipientsPerRow: 5,
} as const;

/** Why an envelope is in the signed-in user's "action needed". */
export const ACTION_NEEDED_REASONS = ['recipient', 'sender'] as const;

/** The position after which a page starts: the last row's creation time (to the microsecond) and id. */
export interface DocumentCursor {
  createdAt: string;
  id: string;
}

const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;
const CURSOR_MESSAGE = 'cursor must be the nextCursor of a previous page';
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeDocumentCursor(cursor: DocumentCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');
}

/** The cursor a page answered, or undefined for any other text. */
export function decodeDocumentCursor(text: string): DocumentCursor | undefined {
  if (!CURSOR_PATTERN.test(text)) return undefined;
  const [createdAt, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !createdAt || !id) return undefined;
  if (!TIMESTAMP_PATTERN.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || !ID_PATTERN.test(id)) {
    return undefined;
  }
  return { createdAt, id };
}

const DateTime = (field: string) =>
  z.iso.datetime({ offset: true, message: `${field} must be an ISO 8601 date-time` });

/** The query of GET /api/documents. Query values arrive as strings (docs/app-api.md). */
export const DocumentListQuery = z
  .object({
    tab: z.enum(DOCUMENT_TABS).default('all').describe('Which envelopes (see DOCUMENT_TABS); default `all`'),
    search: safeText()
      .trim()
      .max(DOCUMENT_LIMITS.search, `search must be at most ${DOCUMENT_LIMITS.search} characters`)
      .optional()
      .describe(
        'Text that occurs, without regard to case, in the title, the external reference, or a recipient’s name ' +
          'or email address',
      ),
    from: DateTime('from').optional().describe('Created at or after this time'),
    to: DateTime('to').optional().describe('Created before this time'),
    sender: z
      .union([uuidOf('sender'), z.literal('api')])
      .optional()
      .describe('The id of the user who created it, or `api`: created through the public API'),
    teamId: uuidOf('teamId').optional().describe('Created by a member of this team'),
    templateId: uuidOf('templateId').optional().describe('Created from this template'),
    limit: z.coerce
      .number({ message: 'limit must be a whole number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(DOCUMENT_LIMITS.page, `limit must be at most ${DOCUMENT_LIMITS.page}`)
      .default(DOCUMENT_LIMITS.defaultPage),
    cursor: z
      .string()
      .max(200, CURSOR_MESSAGE)
      .regex(CURSOR_PATTERN, CURSOR_MESSAGE)
      .refine((text) => decodeDocumentCursor(text) !== undefined, CURSOR_MESSAGE)
      .optional()
      .describe('The `nextCursor` of the previous page, with the same tab, search and filters'),
  })
  .superRefine((query, ctx) => {
    if (query.from && query.to && Date.parse(query.to) <= Date.parse(query.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
    }
  });
export type DocumentListQuery = z.output<typeof DocumentListQuery>;

const Person = z.object({ id: z.uuid(), fullName: z.string() });
const Named = z.object({ id: z.uuid(), name: z.string() });

const Envelope = EnvelopeView.shape;

/** A recipient in a row of the list. */
export const DocumentListRecipient = RecipientView.pick({
  id: true,
  fullName: true,
  email: true,
  type: true,
  status: true,
});
export type DocumentListRecipient = z.output<typeof DocumentListRecipient>;

/** What the list and the envelope page both show of an envelope. */
const DocumentFields = {
  id: z.uuid(),
  title: z.string(),
  status: z.enum(ENVELOPE_STATUSES),
  workflowType: Envelope.workflowType,
  createdAt: IsoDateTime,
  sentAt: IsoDateTime.nullable(),
  completedAt: IsoDateTime.nullable(),
  expiresAt: IsoDateTime.nullable(),
  externalReference: z.string().nullable(),
  sender: Person.nullable().describe(
    'The user who created it; null for an envelope of the public API (an integration) or the operator CLI',
  ),
  team: Named.nullable().describe('The sender’s team when they created it'),
  template: Named.nullable().describe('The template it was created from; null when created from a file'),
};

export const DocumentListItem = z.object({
  ...DocumentFields,
  recipients: z
    .array(DocumentListRecipient)
    .describe(`The first ${DOCUMENT_LIMITS.recipientsPerRow} recipients in signing order`),
  recipientCount: z.number().int(),
  completedCount: z.number().int().describe('Recipients who completed'),
  actionNeeded: z
    .enum(ACTION_NEEDED_REASONS)
    .nullable()
    .describe(
      '`recipient`: waiting on the signed-in user as a recipient; `sender`: failed (DeliveryFailed, ' +
        'FinalPdfFailed) and the signed-in user is the one to act; null: neither',
    ),
});
export type DocumentListItem = z.output<typeof DocumentListItem>;

export const DocumentList = z.object({
  /** Newest first (created, then id). */
  documents: z.array(DocumentListItem),
  nextCursor: z.string().nullable().describe('The `cursor` of the next page; null: this is the last'),
});
export type DocumentList = z.output<typeof DocumentList>;

export const DocumentFilters = z.object({
  counts: z
    .object(
      Object.fromEntries(DOCUMENT_TABS.map((tab) => [tab, z.number().int()])) as Record<
        DocumentTab,
        z.ZodNumber
      >,
    )
    .describe('How many envelopes each tab holds for the signed-in user, without search or filters'),
  senders: z.array(Person).describe('Users who created envelopes the signed-in user sees, by name'),
  integrations: z.boolean().describe('Whether the signed-in user sees envelopes of the public API'),
  teams: z.array(Named).describe('Teams of envelopes the signed-in user sees, by name'),
  templates: z.array(Named).describe('Templates of envelopes the signed-in user sees, by name'),
});
export type DocumentFilters = z.output<typeof DocumentFilters>;

/** A recipient on the envelope's page: the API's view of it, with its round, link and what may be done to them. */
export const DocumentRecipient = RecipientView.extend({
  round: z
    .number()
    .int()
    .nullable()
    .describe('The signing round (1-based) the recipient acts in; null for Cc'),
  signingLink: z
    .boolean()
    .describe(
      'The sender hands this recipient their link (ManualLink or Api) and may get a fresh one now (POST …/signing-link)',
    ),
  remind: z
    .boolean()
    .describe(
      'The recipient may act now and the user may remind them alone (POST …/recipients/{recipientId}/remind)',
    ),
  correct: z
    .boolean()
    .describe(
      'The recipient has not completed, the envelope is signing, and the user may correct them (POST …/recipients/{recipientId}/correct)',
    ),
});
export type DocumentRecipient = z.output<typeof DocumentRecipient>;

export const DocumentEvent = z.object({
  sequence: z.number().int(),
  type: z
    .string()
    .describe('The audit event (envelope.sent, recipient.completed, …; docs/envelope-lifecycle.md)'),
  occurredAt: IsoDateTime,
  recipient: Person.nullable().describe('The recipient it concerns'),
  data: z.record(z.string(), z.unknown()).describe('The audit event’s data (reason, expires_at, channel, …)'),
});
export type DocumentEvent = z.output<typeof DocumentEvent>;

/** What the envelope's status allows and the signed-in user may do (the server checks again). */
export const DocumentActions = z.object({
  send: z.boolean(),
  remind: z.boolean(),
  cancel: z.boolean(),
  extend: z.boolean(),
  retryFinalPdf: z.boolean(),
  /** Its reminder and deadline settings can change (a draft, or an envelope still signing). */
  changeSettings: z.boolean().optional(),
});
export type DocumentActions = z.output<typeof DocumentActions>;

export const DocumentDetail = z.object({
  ...DocumentFields,
  externalSystem: z.string().nullable(),
  updatedAt: IsoDateTime,
  source: z.enum(['template', 'file']).describe('Created from a template or from an uploaded file'),
  reminderCount: z.number().int(),
  lastRemindedAt: IsoDateTime.nullable(),
  recordBeingRepaired: z
    .boolean()
    .describe('A transition could not be recorded and waits for an operator (docs/envelope-lifecycle.md)'),
  files: z
    .object({ source: z.boolean(), finalPdf: z.boolean(), auditTrail: z.boolean() })
    .describe('Which of GET …/files/source, …/final-pdf and …/audit-trail can be downloaded'),
  rounds: z.number().int().describe('How many signing rounds the envelope has'),
  currentRound: z.number().int().nullable().describe('The round in turn (1-based); null when none is'),
  recipients: z.array(DocumentRecipient).describe('In signing order'),
  timeline: z.array(DocumentEvent).describe('The audit events, oldest first'),
  actions: DocumentActions,
  deadlineSettings: DeadlineSettings.nullable().describe(
    "Automatic reminders, the deadline warning and the grace window; null for envelopes created before they were kept (the organization's applied)",
  ),
  workflow: z
    .object({
      id: z.string(),
      namespace: z.string(),
      webUiUrl: z
        .string()
        .nullable()
        .describe('The workflow in the Temporal Web UI; null when none is configured'),
    })
    .nullable()
    .describe('The envelope’s Temporal workflow, for users with settings:read, once it is sent'),
});
export type DocumentDetail = z.output<typeof DocumentDetail>;

const WAITING_FOR = [
  'recipients',
  'final_pdf',
  'final_pdf_retry',
  'extension',
  'projection_repair',
  'nothing',
] as const;

export const DocumentLive = z.object({
  status: z.enum(ENVELOPE_STATUSES).describe('The status as the workflow has decided it'),
  waitingFor: z.enum(WAITING_FOR),
  openRound: z
    .object({ number: z.number().int(), of: z.number().int(), recipientIds: z.array(z.uuid()) })
    .nullable(),
  awaitedRecipientIds: z.array(z.uuid()),
  deadline: IsoDateTime.nullable(),
  nextReminderAt: IsoDateTime.nullable(),
  automaticReminders: z
    .object({ sent: z.number().int(), max: z.number().int(), everyDays: z.number().int() })
    .nullable(),
  graceUntil: IsoDateTime.nullable(),
  expiryWarningAt: IsoDateTime.nullable()
    .optional()
    .describe('When the "expiring soon" warning goes to the recipients who can act; null: none is planned'),
  projection: z.object({
    projectedSequence: z.number().int(),
    decidedSequence: z.number().int(),
    parked: z
      .object({
        sequence: z.number().int(),
        eventType: z.string(),
        reason: z.string(),
        sqlState: z.string().nullable(),
        since: IsoDateTime,
      })
      .nullable(),
  }),
});
export type DocumentLive = z.output<typeof DocumentLive>;

export const DocumentLiveView = z.object({
  live: DocumentLive.nullable().describe('null: no workflow is running (a draft, or a finished envelope)'),
});
export type DocumentLiveView = z.output<typeof DocumentLiveView>;

/** The `{id}` of a path: an envelope. */
export const DocumentParams = z.strictObject({ id: uuidOf('id') });

export const CancelDocumentRequest = z.strictObject({ id: uuidOf('id'), reason: CancelReason });

export const ExtendDocumentRequest = z.strictObject({
  id: uuidOf('id'),
  expiresAt: ExtendEnvelopeRequest.shape.expiresAt.describe(
    'The new deadline: in the future, later than now',
  ),
});

/** A change of an envelope's reminder and deadline settings from its page (POST /api/documents/{id}/settings). */
export const UpdateDocumentSettingsRequest = z
  .strictObject({ id: uuidOf('id'), ...DeadlineSettingsInput.shape })
  .refine(({ id: _id, ...settings }) => Object.values(settings).some((value) => value !== undefined), {
    message: 'give at least one setting to change',
  });

export const SigningLinkParams = z.strictObject({ id: uuidOf('id'), recipientId: uuidOf('recipientId') });

/** A recipient of the envelope: the one-recipient reminder's input. */
export const DocumentRecipientParams = SigningLinkParams;

/** The correction of a recipient from the envelope's page: the public API's correction, with the ids. */
export const CorrectDocumentRecipientRequest = SigningLinkParams.extend(
  RecipientCorrectionFields.shape,
).refine(namesACorrection, {
  message: 'give at least one of fullName, email, phone, deliveryChannel and language',
});

export const SigningLinkView = z.object({
  recipientId: z.uuid(),
  fullName: z.string(),
  url: z.string().describe('The new signing link; earlier links of the recipient no longer work'),
});
export type SigningLinkView = z.output<typeof SigningLinkView>;
