// The signed-in user's dashboard (docs/billing.md, "The dashboard"): what waits on them — envelopes they are to
// sign next, their drafts, failed deliveries and final PDFs, deadlines in the next days — each as a count and its
// first few envelopes; this month's usage against the plan (billing:read); and the latest audit events of the
// envelopes they see. Every figure is one SQL statement over the envelopes the user sees (document-reader.ts
// `visibleTo`), read through the documents list's indexes (docs/documents.md, "Performance"): nothing loads the
// organization's envelopes into memory.
import {
  DASHBOARD_ACTIVITY,
  DASHBOARD_EXPIRING_DAYS,
  DASHBOARD_ITEMS,
  type Dashboard,
  type DashboardActivity,
  type DashboardSection,
} from '../../domain/billing.ts';
import type { Permission } from '../../domain/permissions.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import { SIGNING_STATUSES } from '../../workflows/transitions.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import {
  type Condition,
  type DocumentReader,
  documentReaderOf,
  visibleTo,
} from '../documents/document-reader.ts';
import { allOf, inList, waitsOnRecipient, waitsOnSender } from '../documents/document-tabs.ts';
import { usageSummary } from '../usage/usage-summary.ts';

/** Recent activity reads the events of this many of the user's most recently created envelopes. */
const ACTIVITY_ENVELOPES = 100;

interface SectionRow {
  id: string;
  title: string;
  status: EnvelopeStatus;
  date: Date | string;
  total: string;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

/**
 * One section: the envelopes (alias `e`) the user sees that meet the condition, the first few in `order` and
 * how many there are in all (a window count, in the same statement).
 */
async function section(
  ctx: DataContext,
  reader: DocumentReader,
  condition: Condition,
  date: string,
  order: string,
): Promise<DashboardSection> {
  const where = allOf([visibleTo(reader), condition]);
  const rows = await ctx.em.execute<SectionRow[]>(
    `select e.id, e.title, e.status, ${date} as date, count(*) over () as total
       from envelope e
      where ${where.sql}
      order by ${order}
      limit ?`,
    [...where.params, DASHBOARD_ITEMS],
  );
  return {
    count: Number(rows[0]?.total ?? 0),
    items: rows.map((row) => ({ id: row.id, title: row.title, status: row.status, date: iso(row.date) })),
  };
}

/** A failure status among the envelopes that wait on the reader as their sender ("action needed"'s rule). */
function failedAs(reader: DocumentReader, status: EnvelopeStatus): Condition {
  const sender = waitsOnSender(reader);
  return { sql: `e.status = ? and ${sender.sql}`, params: [status, ...sender.params] };
}

interface ActivityRow {
  envelope_id: string;
  title: string;
  sequence: number;
  type: string;
  occurred_at: Date | string;
  recipient_id: string | null;
  recipient_name: string | null;
  data: Record<string, unknown> | null;
}

/**
 * The latest audit events of the envelopes the user sees: the most recently created of them through the list's
 * index, then each one's latest events through the (envelope_id, sequence) key, newest first.
 */
async function recentActivity(ctx: DataContext, reader: DocumentReader): Promise<DashboardActivity[]> {
  const visible = visibleTo(reader);
  const rows = await ctx.em.execute<ActivityRow[]>(
    `select a.envelope_id, e.title, a.sequence, a.type, a.occurred_at, a.data,
            r.id as recipient_id, r.full_name as recipient_name
       from (select e.id, e.title from envelope e
              where ${visible.sql}
              order by e.created_at desc, e.id desc
              limit ?) e
       cross join lateral (select a.envelope_id, a.sequence, a.type, a.occurred_at, a.data, a.recipient_id
                             from audit_event a
                            where a.envelope_id = e.id
                            order by a.sequence desc
                            limit ?) a
       left join recipient r on r.id = a.recipient_id
      order by a.occurred_at desc, a.sequence desc, a.envelope_id
      limit ?`,
    [...visible.params, ACTIVITY_ENVELOPES, DASHBOARD_ACTIVITY, DASHBOARD_ACTIVITY],
  );
  return rows.map((row) => ({
    envelopeId: row.envelope_id,
    title: row.title,
    sequence: row.sequence,
    type: row.type,
    occurredAt: iso(row.occurred_at),
    recipient:
      row.recipient_id !== null ? { id: row.recipient_id, fullName: row.recipient_name ?? '' } : null,
    data: row.data ?? {},
  }));
}

export async function dashboard(
  ctx: DataContext,
  principal: SessionPrincipal,
  now = new Date(),
): Promise<Dashboard> {
  const reader = documentReaderOf(principal);
  const can = (permission: Permission) => principal.permissions.includes(permission);
  const reads = can('documents:read');
  const manages = reads && reader.manages;
  const newest = 'e.created_at desc, e.id desc';

  const signing = inList(SIGNING_STATUSES);
  const deadline = new Date(now.getTime() + DASHBOARD_EXPIRING_DAYS * 24 * 60 * 60 * 1000);
  return {
    generatedAt: now.toISOString(),
    awaitingSignature: reads
      ? await section(ctx, reader, waitsOnRecipient(reader), 'coalesce(e.sent_at, e.created_at)', newest)
      : null,
    drafts: manages
      ? await section(
          ctx,
          reader,
          { sql: `e.status = 'Draft' and e.created_by_user_id = ?`, params: [reader.userId] },
          'e.created_at',
          newest,
        )
      : null,
    deliveryFailed: manages
      ? await section(ctx, reader, failedAs(reader, 'DeliveryFailed'), 'e.updated_at', newest)
      : null,
    finalPdfFailed: manages
      ? await section(ctx, reader, failedAs(reader, 'FinalPdfFailed'), 'e.updated_at', newest)
      : null,
    expiringSoon: reads
      ? await section(
          ctx,
          reader,
          {
            sql: `e.status in ${signing.sql} and e.expires_at >= ? and e.expires_at < ?`,
            params: [...signing.params, now, deadline],
          },
          'e.expires_at',
          'e.expires_at, e.id',
        )
      : null,
    usage: can('billing:read') ? await usageSummary(ctx, reader.organizationId, now) : null,
    recentActivity: reads ? await recentActivity(ctx, reader) : null,
  };
}
