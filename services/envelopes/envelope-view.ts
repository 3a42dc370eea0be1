// The envelope as the public API shows it (domain/envelope.ts), read from PostgreSQL (the workflow's projection)
// in one statement: the envelope's row with its recipients and initial values aggregated beside it. The API's
// busiest read (issue 19) skips the ORM's entity hydration and identity map: it only reads. A foreign or
// unknown id is "not found", as in findEnvelope.
import type { Recipient } from '../../db/entities/index.ts';
import { prepared, runPrepared } from '../../db/prepared.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { EnvelopeView, RecipientView } from '../../domain/envelope.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';

export interface EnvelopeRow {
  id: string;
  status: EnvelopeView['status'];
  title: string;
  workflow_type: EnvelopeView['workflowType'];
  template_id: string | null;
  source_file_id: string | null;
  /** Timestamps: epoch milliseconds. */
  expires_at: number | null;
  external_reference: string | null;
  external_system: string | null;
  external_metadata_json: string | null;
  final_pdf_file_id: string | null;
  audit_trail_file_id: string | null;
  reminder_count: number;
  allow_delegation: boolean;
  deadline_settings: EnvelopeView['deadlineSettings'];
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  completed_at: number | null;
  /** JSON: recipients in signing order, `completedAt` in epoch milliseconds. */
  recipients: (Omit<RecipientView, 'completedAt'> & { completedAt: number | null })[];
  initial_values: EnvelopeView['initialValues'];
}

/** A timestamp as whole epoch milliseconds: the ORM's own truncation of PostgreSQL's microseconds. */
const ms = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`;

/**
 * The select list of the view's row (EnvelopeRow) for envelope row `e`: `recipients` and `initialValues` name
 * the rows to aggregate as `r` and `v` (a table with its condition, or a statement's own inserted rows); the
 * initial values come with their template fields as `f`, whose order they take (they share one `created_at`).
 */
export function envelopeViewColumns(recipients: string, initialValues: string): string {
  return `e.id, e.status, e.title, e.workflow_type, e.template_id, e.source_file_id,
         ${ms('e.expires_at')} as expires_at, e.external_reference, e.external_system, e.external_metadata_json,
         e.final_pdf_file_id, e.audit_trail_file_id, e.reminder_count, e.allow_delegation, e.deadline_settings, ${ms('e.created_at')} as created_at,
         ${ms('e.updated_at')} as updated_at, ${ms('e.sent_at')} as sent_at, ${ms('e.completed_at')} as completed_at,
         coalesce((
           select json_agg(json_build_object(
                    'id', r.id, 'roleName', r.role_name, 'fullName', r.full_name, 'email', r.email,
                    'phone', r.phone, 'signingOrder', r.signing_order, 'deliveryChannel', r.delivery_channel,
                    'authenticationMethod', r.authentication_method, 'type', r.type, 'language', r.language,
                    'required', r.required, 'status', r.status,
                    'completedAt', ${ms('r.completed_at')})
                  order by r.signing_order, r.position, r.id)
             from ${recipients}), '[]') as recipients,
         coalesce((
           select json_agg(json_build_object('fieldDefinitionId', v.field_id, 'value', v.value)
                  order by f.position, v.id)
             from ${initialValues}), '[]') as initial_values`;
}

const ENVELOPE_VIEW = prepared(
  'envelope_view',
  `select ${envelopeViewColumns(
    'recipient r where r.envelope_id = e.id',
    `envelope_field_value v left join template_field f on f.id = v.field_id
      where v.envelope_id = e.id and v.source = 'initial'`,
  )}
     from envelope e
    where e.id = ? and e.organization_id = ?`,
);

export async function envelopeView(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
): Promise<EnvelopeView> {
  const [row] = UUID_PATTERN.test(envelopeId)
    ? await runPrepared<EnvelopeRow>(ctx.em, ENVELOPE_VIEW, [envelopeId, organizationId])
    : [];
  if (!row) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  return envelopeViewOfRow(row);
}

/** The view of a row selected with envelopeViewColumns. */
export function envelopeViewOfRow(row: EnvelopeRow): EnvelopeView {
  return {
    id: row.id,
    status: row.status,
    title: row.title,
    workflowType: row.workflow_type,
    // An envelope from a file is made from a hidden one-off template: the API names the file instead.
    templateId: row.source_file_id ? null : row.template_id,
    sourceFileId: row.source_file_id,
    expiresAt: isoOf(row.expires_at),
    externalReference: row.external_reference,
    externalSystem: row.external_system,
    externalMetadataJson: row.external_metadata_json,
    finalPdfFileId: row.final_pdf_file_id,
    auditTrailFileId: row.audit_trail_file_id,
    reminderCount: row.reminder_count,
    allowDelegation: row.allow_delegation,
    deadlineSettings: row.deadline_settings ?? null,
    recipients: row.recipients.map((recipient) => ({
      ...recipient,
      completedAt: isoOf(recipient.completedAt),
    })),
    initialValues: row.initial_values,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    sentAt: isoOf(row.sent_at),
    completedAt: isoOf(row.completed_at),
  };
}

export function recipientView(recipient: Recipient): RecipientView {
  return {
    id: recipient.id,
    roleName: recipient.roleName,
    fullName: recipient.fullName,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    signingOrder: recipient.signingOrder,
    deliveryChannel: recipient.deliveryChannel,
    authenticationMethod: recipient.authenticationMethod,
    type: recipient.type,
    language: recipient.language ?? null,
    required: recipient.required,
    status: recipient.status,
    completedAt: iso(recipient.completedAt),
  };
}

function isoOf(epochMs: number | null): string | null {
  return epochMs === null ? null : new Date(epochMs).toISOString();
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
