// The backoffice's envelopes across organizations (docs/backoffice.md, "Envelopes"): the lookup (an envelope id,
// an external reference, a recipient's email or phone; newest first, a page at a time), the envelope's page
// without the document's contents, and the contents, asked for with a reason. Every view of an envelope is
// recorded (services/backoffice/staff-access.ts) in the backoffice audit log and the organization's security log.
import { EnvelopeFieldValue } from '../../db/entities/index.ts';
import type { BackofficeEnvelopeDetail } from '../../domain/backoffice-envelopes.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import { temporalTimeoutMs, withTemporalDeadline } from '../../temporal/deadline.ts';
import { workflowWebUiUrl } from '../../temporal/web-ui.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { pendingProjection } from '../envelopes/stuck-envelopes.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { recordStaffAccess, type StaffActor } from './staff-access.ts';

/** How long an open envelope's pending projection may wait before the page calls it behind (as the CLI's default). */
const BEHIND_AFTER_SECONDS = 60;

type MatchedBy = 'id' | 'external_reference' | 'email' | 'phone';

interface SearchRow {
  id: string;
  title: string;
  status: EnvelopeStatus;
  organization_id: string;
  organization_name: string;
  external_reference: string | null;
  created_at: Date;
  sent_at: Date | null;
  matched_by: MatchedBy;
}

const encodeCursor = (row: SearchRow) =>
  Buffer.from(`${new Date(row.created_at).toISOString()}|${row.id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at);
  if (Number.isNaN(date.getTime()) || !UUID_PATTERN.test(id)) {
    throw new InvalidRequest('cursor is not the nextCursor of a previous page.', [
      { field: 'querystring.cursor', message: 'not the nextCursor of a previous page' },
    ]);
  }
  return { at: date, id };
}

/**
 * Envelopes of every organization matching `q`: an envelope id (exact), an external reference (any case), a
 * recipient's email address (any case) or phone number (exact). Newest first; `nextCursor` reads the next page.
 */
export async function searchEnvelopes(
  ctx: Pick<ServiceContext, 'em'>,
  input: { q: string; limit: number; cursor?: string | undefined },
) {
  const q = input.q.trim();
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const byId = UUID_PATTERN.test(q);
  const rows = await ctx.em.execute<SearchRow[]>(
    `with matches as (
       ${byId ? `select id, 'id' as matched_by from envelope where id = ?::uuid union all` : ''}
       select id, 'external_reference' as matched_by from envelope where lower(external_reference) = lower(?)
       union all
       select distinct envelope_id, 'email' from recipient where email is not null and lower(email) = lower(?)
       union all
       select distinct envelope_id, 'phone' from recipient where phone is not null and lower(phone) = lower(?)
     )
     select e.id, e.title, e.status, e.organization_id, o.name as organization_name, e.external_reference,
            e.created_at, e.sent_at, min(m.matched_by) as matched_by
       from matches m join envelope e on e.id = m.id join organization o on o.id = e.organization_id
      ${after ? 'where (e.created_at, e.id) < (?, ?)' : ''}
      group by e.id, o.name
      order by e.created_at desc, e.id desc
      limit ?`,
    [...(byId ? [q] : []), q, q, q, ...(after ? [after.at, after.id] : []), input.limit + 1],
  );
  const page = rows.slice(0, input.limit);
  return {
    envelopes: page.map((row) => ({
      id: row.id,
      title: row.title,
      status: row.status,
      organization: { id: row.organization_id, name: row.organization_name },
      externalReference: row.external_reference,
      createdAt: new Date(row.created_at).toISOString(),
      sentAt: row.sent_at ? new Date(row.sent_at).toISOString() : null,
      matchedBy: row.matched_by,
    })),
    nextCursor: rows.length > input.limit && page.length > 0 ? encodeCursor(page.at(-1) as SearchRow) : null,
  };
}

/** The envelope's id and organization, whichever organization it belongs to; 404 when none has it. */
export async function locateEnvelope(
  ctx: Pick<ServiceContext, 'em'>,
  envelopeId: string,
): Promise<{ id: string; organizationId: string; title: string }> {
  const [row] = await ctx.em.execute<{ id: string; organization_id: string; title: string }[]>(
    'select id, organization_id, title from envelope where id = ?',
    [envelopeId],
  );
  if (!row) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  return { id: row.id, organizationId: row.organization_id, title: row.title };
}

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

type Row = Record<string, unknown>;

/** The envelope's page for the staff (no contents, no field values); the view is recorded. */
export async function backofficeEnvelope(
  ctx: ServiceContext,
  actor: StaffActor,
  envelopeId: string,
): Promise<BackofficeEnvelopeDetail> {
  const { em } = ctx;
  const [envelope] = await em.execute<Row[]>(
    `select e.*, o.name as organization_name, o.plan_name as organization_plan
       from envelope e join organization o on o.id = e.organization_id where e.id = ?`,
    [envelopeId],
  );
  if (!envelope) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  const organizationId = envelope.organization_id as string;
  const recipients = await em.execute<Row[]>(
    `select r.id, r.full_name, r.email, r.phone, r.type, r.delivery_channel, r.signing_order, r.status,
            r.completed_at,
            coalesce((select json_agg(json_build_object('id', n.id, 'kind', n.kind, 'channel', n.channel,
                        'status', n.status, 'attempts', n.attempts, 'lastAttemptAt', n.last_attempt_at,
                        'sentAt', n.sent_at, 'deliveryStatus', n.delivery_status, 'lastError', n.last_error)
                        order by n.last_attempt_at desc)
                        from notification n where n.recipient_id = r.id), '[]') as deliveries
       from recipient r where r.envelope_id = ? order by r.signing_order, r.position, r.id`,
    [envelopeId],
  );
  const events = await em.execute<Row[]>(
    `select sequence, type, recipient_id, occurred_at from audit_event where envelope_id = ?
      order by sequence`,
    [envelopeId],
  );
  const webhooks = await em.execute<Row[]>(
    `select id, event_type, endpoint_url, status, attempt_count, last_status_code, last_error, last_attempt_at,
            delivered_at
       from webhook_delivery
      where organization_id = ? and kind = 'event' and payload::jsonb -> 'data' ->> 'envelope_id' = ?
      order by event_created_at desc, id desc limit 100`,
    [organizationId, envelopeId],
  );
  const workflowId = (envelope.workflow_id as string | null) ?? envelopeWorkflowId(envelopeId);
  const namespace = ctx.config.temporal?.namespace ?? 'default';
  recordStaffAccess(ctx, actor, {
    organizationId,
    action: 'envelope.viewed',
    targetId: envelopeId,
    reason: null,
    details: { title: envelope.title },
  });
  await em.flush();
  return {
    id: envelopeId,
    title: envelope.title as string,
    status: envelope.status as EnvelopeStatus,
    workflowType: envelope.workflow_type as string,
    organization: {
      id: organizationId,
      name: envelope.organization_name as string,
      plan: envelope.organization_plan as string,
    },
    externalReference: (envelope.external_reference as string | null) ?? null,
    createdAt: iso(envelope.created_at as Date) as string,
    sentAt: iso(envelope.sent_at as Date | null),
    completedAt: iso(envelope.completed_at as Date | null),
    expiresAt: iso(envelope.expires_at as Date | null),
    recipients: recipients.map((r) => ({
      id: r.id as string,
      fullName: r.full_name as string,
      email: (r.email as string | null) ?? null,
      phone: (r.phone as string | null) ?? null,
      type: r.type as string,
      deliveryChannel:
        r.delivery_channel as BackofficeEnvelopeDetail['recipients'][number]['deliveryChannel'],
      signingOrder: Number(r.signing_order),
      status: r.status as BackofficeEnvelopeDetail['recipients'][number]['status'],
      completedAt: iso(r.completed_at as Date | null),
      deliveries: (r.deliveries as Row[]).map((n) => ({
        id: n.id as string,
        kind: n.kind as string,
        channel: n.channel as string,
        status: n.status as string,
        attempts: Number(n.attempts),
        lastAttemptAt: iso(n.lastAttemptAt as string) as string,
        sentAt: iso(n.sentAt as string | null),
        deliveryStatus: (n.deliveryStatus as string | null) ?? null,
        lastError: (n.lastError as string | null) ?? null,
      })),
    })),
    auditEvents: events.map((event) => ({
      sequence: Number(event.sequence),
      type: event.type as string,
      recipientId: (event.recipient_id as string | null) ?? null,
      occurredAt: iso(event.occurred_at as Date) as string,
    })),
    projection: await projectionState(ctx, envelope),
    webhookDeliveries: webhooks.map((w) => ({
      id: w.id as string,
      eventType: w.event_type as string,
      endpointUrl: w.endpoint_url as string,
      status: w.status as string,
      attemptCount: Number(w.attempt_count),
      lastStatusCode: w.last_status_code === null ? null : Number(w.last_status_code),
      lastError: (w.last_error as string | null) ?? null,
      lastAttemptAt: iso(w.last_attempt_at as Date | null),
      deliveredAt: iso(w.delivered_at as Date | null),
    })),
    workflow: {
      id: workflowId,
      namespace,
      webUiUrl: workflowWebUiUrl(ctx.config.temporal, namespace, workflowId),
    },
  };
}

/** Parked (the row says why), behind (the workflow's projection waits or retries), current, or unknown. */
async function projectionState(
  ctx: ServiceContext,
  envelope: Row,
): Promise<BackofficeEnvelopeDetail['projection']> {
  const projectedSequence = Number(envelope.projected_sequence ?? 0);
  if (envelope.projection_error) {
    return {
      state: 'parked',
      reason: envelope.projection_error as string,
      since: iso(envelope.projection_failed_at as Date | null),
      projectedSequence,
    };
  }
  if (envelope.status === 'Draft') return { state: 'current', reason: null, since: null, projectedSequence };
  try {
    const pending = await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      'describing the envelope’s workflow',
      () => pendingProjection(ctx, envelope.id as string, BEHIND_AFTER_SECONDS),
    );
    return pending
      ? { state: 'behind', reason: pending.reason, since: pending.since, projectedSequence }
      : { state: 'current', reason: null, since: null, projectedSequence };
  } catch {
    return {
      state: 'unknown',
      reason: 'Temporal could not be asked about the workflow',
      since: null,
      projectedSequence,
    };
  }
}

/** The field values and the audit events' data, for a member of staff who gave a reason; recorded. */
export async function backofficeEnvelopeContents(
  ctx: ServiceContext,
  actor: StaffActor,
  envelopeId: string,
  reason: string,
) {
  const { organizationId, title } = await locateEnvelope(ctx, envelopeId);
  const values = await ctx.em.find(
    EnvelopeFieldValue,
    { envelopeId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const events = await ctx.em.execute<{ sequence: number; type: string; data: Record<string, unknown> }[]>(
    'select sequence, type, data from audit_event where envelope_id = ? order by sequence',
    [envelopeId],
  );
  recordStaffAccess(ctx, actor, {
    organizationId,
    action: 'envelope.contents_viewed',
    targetId: envelopeId,
    reason,
    details: { title },
  });
  await ctx.em.flush();
  return {
    envelopeId,
    fieldValues: values.map((value) => ({
      fieldId: value.fieldId,
      recipientId: value.recipientId ?? null,
      source: value.source,
      value: value.value,
    })),
    auditEvents: events.map((event) => ({
      sequence: Number(event.sequence),
      type: event.type,
      data: event.data,
    })),
  };
}
