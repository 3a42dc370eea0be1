// The backoffice's envelopes across organizations (docs/backoffice.md, "Envelopes"): the lookup by id, external
// reference, recipient email or phone; the envelope's page (status, organization, recipients and their
// deliveries, audit events, projection state, webhook deliveries, the workflow's link in the Temporal Web UI)
// without the document's contents or field values; the contents, which need a reason; and the repairs, each with
// a required reason. Every view and repair is recorded in the backoffice audit log and the organization's
// security log.
import { z } from 'zod';
import { BACKOFFICE_PAGING } from './backoffice.ts';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText, uuidOf } from './common.ts';
import { DELIVERY_CHANNELS, ENVELOPE_STATUSES, RECIPIENT_STATUSES } from './vocabulary.ts';

/** The repairs, each `POST /api/backoffice/envelopes/{id}/<repair>`. */
export const ENVELOPE_REPAIRS = [
  'resume-projection',
  'retry-final-pdf',
  'reissue-links',
  'verify-audit',
] as const;
export type EnvelopeRepair = (typeof ENVELOPE_REPAIRS)[number];

export const BackofficeEnvelopeIdParameter = z.strictObject({ id: uuidOf('id') });

export const BackofficeEnvelopeSearchQuery = z.strictObject({
  q: safeText()
    .trim()
    .min(1, 'q is required')
    .max(320, 'q must be at most 320 characters')
    .describe('An envelope id, an external reference, or a recipient’s exact email address or phone number'),
  ...BACKOFFICE_PAGING,
});

/** Why a member of staff looks or acts: recorded with what they did, and shown to the organization's owner. */
export const StaffReason = safeText()
  .trim()
  .min(3, 'reason is required (at least 3 characters)')
  .max(500, 'reason must be at most 500 characters')
  .describe('Why: recorded in the backoffice audit log and the organization’s security log');

export const BackofficeReasonRequest = z
  .strictObject({ reason: StaffReason })
  .meta({ id: 'BackofficeReasonRequest', ...APPLICATION_DOCUMENT_ONLY });

export const BackofficeResumeProjectionRequest = z
  .strictObject({
    reason: StaffReason,
    sanitize: z
      .boolean()
      .default(false)
      .describe(
        'Replace what PostgreSQL cannot store in the queued transitions’ text (as the CLI’s --sanitize)',
      ),
  })
  .meta({ id: 'BackofficeResumeProjectionRequest', ...APPLICATION_DOCUMENT_ONLY });

const OrganizationRef = z.object({ id: z.uuid(), name: z.string() });

export const BackofficeEnvelopeSummary = z.object({
  id: z.uuid(),
  title: z.string(),
  status: z.enum(ENVELOPE_STATUSES),
  organization: OrganizationRef,
  externalReference: z.string().nullable(),
  createdAt: IsoDateTime,
  sentAt: IsoDateTime.nullable(),
  /** What matched: `id`, `external_reference`, `email` or `phone`. */
  matchedBy: z.enum(['id', 'external_reference', 'email', 'phone']),
});

export const BackofficeEnvelopeList = z.object({
  envelopes: z.array(BackofficeEnvelopeSummary),
  nextCursor: z.string().nullable(),
});

export const BackofficeEnvelopeDetail = z
  .object({
    id: z.uuid(),
    title: z.string(),
    status: z.enum(ENVELOPE_STATUSES),
    workflowType: z.string(),
    organization: OrganizationRef.extend({ plan: z.string() }),
    externalReference: z.string().nullable(),
    createdAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    expiresAt: IsoDateTime.nullable(),
    recipients: z.array(
      z.object({
        id: z.uuid(),
        fullName: z.string(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        type: z.string(),
        deliveryChannel: z.enum(DELIVERY_CHANNELS),
        signingOrder: z.number().int(),
        status: z.enum(RECIPIENT_STATUSES),
        completedAt: IsoDateTime.nullable(),
        /** The messages sent to the recipient, newest first, with what the provider reported. */
        deliveries: z.array(
          z.object({
            id: z.uuid(),
            kind: z.string(),
            channel: z.string(),
            status: z.string(),
            attempts: z.number().int(),
            lastAttemptAt: IsoDateTime,
            sentAt: IsoDateTime.nullable(),
            deliveryStatus: z.string().nullable(),
            lastError: z.string().nullable(),
          }),
        ),
      }),
    ),
    /** The envelope's audit events, oldest first: what happened and when (their data is the contents'). */
    auditEvents: z.array(
      z.object({
        sequence: z.number().int(),
        type: z.string(),
        recipientId: z.uuid().nullable(),
        occurredAt: IsoDateTime,
      }),
    ),
    /** The projection of the workflow's decisions to PostgreSQL. */
    projection: z.object({
      state: z.enum(['current', 'behind', 'parked', 'unknown']),
      /** Why it is parked or behind (or why it could not be told). */
      reason: z.string().nullable(),
      since: IsoDateTime.nullable(),
      projectedSequence: z.number().int(),
    }),
    webhookDeliveries: z.array(
      z.object({
        id: z.uuid(),
        eventType: z.string(),
        endpointUrl: z.string(),
        status: z.string(),
        attemptCount: z.number().int(),
        lastStatusCode: z.number().int().nullable(),
        lastError: z.string().nullable(),
        lastAttemptAt: IsoDateTime.nullable(),
        deliveredAt: IsoDateTime.nullable(),
      }),
    ),
    workflow: z.object({ id: z.string(), namespace: z.string(), webUiUrl: z.string().nullable() }),
  })
  .meta({ id: 'BackofficeEnvelope', ...APPLICATION_DOCUMENT_ONLY });
export type BackofficeEnvelopeDetail = z.output<typeof BackofficeEnvelopeDetail>;

/** The document's contents a member of staff asked for with a reason: the field values as recorded. */
export const BackofficeEnvelopeContents = z.object({
  envelopeId: z.uuid(),
  fieldValues: z.array(
    z.object({ fieldId: z.uuid(), recipientId: z.uuid().nullable(), source: z.string(), value: z.unknown() }),
  ),
  /** The audit events with their data. */
  auditEvents: z.array(
    z.object({ sequence: z.number().int(), type: z.string(), data: z.record(z.string(), z.unknown()) }),
  ),
});

export const BackofficeRepairAnswer = z.object({
  envelopeId: z.uuid(),
  repair: z.enum(ENVELOPE_REPAIRS),
  /** The envelope's status after the repair (as the workflow or PostgreSQL says). */
  status: z.enum(ENVELOPE_STATUSES),
  /** What the repair did, in words. */
  outcome: z.string(),
});
