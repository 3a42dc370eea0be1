// The report of a date range (docs/reports.md): what became of the envelopes the user sees — their own and their
// team's, or the organization's with documents:read_all (document-reader.ts `visibleTo`, as the documents list
// and the dashboard) — between `from` (inclusive) and `to` (exclusive). Every figure is a PostgreSQL aggregate:
//   1. one statement for the totals, the breakdowns by sender, team and template and the per-day series — the
//      range's "facts" (a send, a completion, a decline, a cancellation, an expiry, a failed delivery, each
//      with its envelope's sender, team and template) grouped by GROUPING SETS, with count(*) FILTER and
//      percentile_cont for the completion times;
//   2. the decline reasons, grouped and counted;
//   3. the messages: SMS/WhatsApp credits used and failed messages.
// Nothing loads envelopes into memory; each fact is read through an index on its time (migration 0022).
import {
  REPORT_BREAKDOWN_ROWS,
  REPORT_DECLINE_REASONS,
  REPORT_MAX_DAYS,
  type ReportFigures,
  type ReportQuery,
  type ReportSummary,
} from '../../domain/report.ts';
import { SIGNING_STATUSES } from '../../workflows/transitions.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { documentReaderOf, visibleTo } from '../documents/document-reader.ts';

/** What an envelope counts as: an archived one by the status it had (`previous_status`). */
const EFFECTIVE_STATUS = `(case when e.status = 'Archived' then e.previous_status else e.status end)`;

/** Not finished: still being signed, or its final PDF still being made (or failed). */
const UNFINISHED = [...SIGNING_STATUSES, 'ProcessingFinalPdf', 'FinalPdfFailed'];

/** The audit events that end (or fail) an envelope, and what the report calls them. */
const ENDING_EVENTS: Record<string, { kind: string; status: string | null }> = {
  'recipient.declined': { kind: 'declined', status: 'Declined' },
  'envelope.cancelled': { kind: 'cancelled', status: 'Cancelled' },
  'envelope.expired': { kind: 'expired', status: 'Expired' },
  // Counted whatever the envelope is now: a retried delivery still failed once.
  'envelope.delivery_failed': { kind: 'delivery_failed', status: null },
};

const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

interface AggregateRow {
  g_sender: number;
  g_team: number;
  g_template: number;
  g_day: number;
  sender_id: string | null;
  team_id: string | null;
  template_id: string | null;
  day: string | null;
  sender_name: string | null;
  sender_email: string | null;
  team_name: string | null;
  template_name: string | null;
  sent: string;
  sent_completed: string;
  in_progress: string;
  completed: string;
  declined: string;
  cancelled: string;
  expired: string;
  delivery_failed: string;
  median: number | null;
  p90: number | null;
}

function figuresOf(row: AggregateRow | undefined): ReportFigures {
  const sent = Number(row?.sent ?? 0);
  const sentAndCompleted = Number(row?.sent_completed ?? 0);
  return {
    sent,
    completed: Number(row?.completed ?? 0),
    declined: Number(row?.declined ?? 0),
    cancelled: Number(row?.cancelled ?? 0),
    expired: Number(row?.expired ?? 0),
    inProgress: Number(row?.in_progress ?? 0),
    sentAndCompleted,
    completionRate: sent === 0 ? null : sentAndCompleted / sent,
    medianSecondsToComplete: row?.median === null || row?.median === undefined ? null : Number(row.median),
    p90SecondsToComplete: row?.p90 === null || row?.p90 === undefined ? null : Number(row.p90),
  };
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
function localDate(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

/** Every calendar day from the one `from` falls on to the one just before `to`, in the time zone. */
export function daysOfRange(from: Date, to: Date, timeZone: string): string[] {
  const first = localDate(from, timeZone);
  const last = localDate(new Date(to.getTime() - 1), timeZone);
  const days: string[] = [];
  // At most the longest range's days (and the one a time zone's offset may add), whatever the input.
  let day = new Date(`${first}T00:00:00Z`);
  for (let index = 0; index <= REPORT_MAX_DAYS + 1; index += 1) {
    const date = day.toISOString().slice(0, 10);
    if (date > last) break;
    days.push(date);
    day = new Date(day.getTime() + 24 * 60 * 60 * 1000);
  }
  return days;
}

const byMostSent = <T extends ReportFigures>(rows: T[]): T[] =>
  rows
    .sort((a, b) => b.sent - a.sent || b.completed - a.completed || b.declined - a.declined)
    .slice(0, REPORT_BREAKDOWN_ROWS);

export async function reportSummary(
  ctx: DataContext,
  principal: SessionPrincipal,
  query: ReportQuery,
  now = new Date(),
): Promise<ReportSummary> {
  const reader = documentReaderOf(principal);
  const from = new Date(query.from);
  const to = new Date(query.to);
  // Intl's canonical name (the schema checked that Intl knows it), which PostgreSQL knows too.
  const timeZone = new Intl.DateTimeFormat('en', { timeZone: query.timeZone ?? 'UTC' }).resolvedOptions()
    .timeZone;
  const visible = visibleTo(reader);
  const organizationId = reader.organizationId;

  // Each fact: its envelope's sender, team and template (family), what it is, when, and for a send what the
  // envelope became; the day is the fact's calendar day in the time zone.
  const fact = (kind: string, at: string) =>
    `select e.created_by_user_id as sender_id, e.team_id, t.family_id as template_id, ${kind} as kind,
            (${at} at time zone ?::text)::date as day`;
  const endings = Object.entries(ENDING_EVENTS);
  const eventKind = `case a.type ${endings.map(([type, { kind }]) => `when '${type}' then '${kind}'`).join(' ')} end`;
  const stillThat = endings
    .map(([type, { status }]) =>
      status ? `(x.type = '${type}' and ${EFFECTIVE_STATUS} = '${status}')` : `x.type = '${type}'`,
    )
    .join(' or ');
  const rows = await ctx.em.execute<AggregateRow[]>(
    `with facts as (
       ${fact("'sent'", 'e.sent_at')},
            ${EFFECTIVE_STATUS} = 'Completed' as done,
            ${EFFECTIVE_STATUS} in (${quoted(UNFINISHED)}) as open,
            null::double precision as seconds
         from envelope e left join template t on t.id = e.template_id
        where ${visible.sql} and e.sent_at >= ? and e.sent_at < ?
       union all
       ${fact("'completed'", 'e.completed_at')}, false, false,
            extract(epoch from (e.completed_at - e.sent_at))::double precision
         from envelope e left join template t on t.id = e.template_id
        where ${visible.sql} and e.completed_at >= ? and e.completed_at < ?
       union all
       ${fact('x.kind', 'x.at')}, false, false, null
         from (select a.envelope_id, a.type, ${eventKind} as kind, max(a.occurred_at) as at
                 from audit_event a
                where a.organization_id = ? and a.type in (${quoted(Object.keys(ENDING_EVENTS))})
                  and a.occurred_at >= ? and a.occurred_at < ?
                group by a.envelope_id, a.type) x
         join envelope e on e.id = x.envelope_id
         left join template t on t.id = e.template_id
        where ${visible.sql} and (${stillThat})
     ),
     figures as (
       select grouping(f.sender_id) as g_sender, grouping(f.team_id) as g_team,
              grouping(f.template_id) as g_template, grouping(f.day) as g_day,
              f.sender_id, f.team_id, f.template_id, f.day,
              count(*) filter (where f.kind = 'sent') as sent,
              count(*) filter (where f.kind = 'sent' and f.done) as sent_completed,
              count(*) filter (where f.kind = 'sent' and f.open) as in_progress,
              count(*) filter (where f.kind = 'completed') as completed,
              count(*) filter (where f.kind = 'declined') as declined,
              count(*) filter (where f.kind = 'cancelled') as cancelled,
              count(*) filter (where f.kind = 'expired') as expired,
              count(*) filter (where f.kind = 'delivery_failed') as delivery_failed,
              percentile_cont(0.5) within group (order by f.seconds) filter (where f.kind = 'completed') as median,
              percentile_cont(0.9) within group (order by f.seconds) filter (where f.kind = 'completed') as p90
         from facts f
        group by grouping sets ((), (f.sender_id), (f.team_id), (f.template_id), (f.day))
     )
     select g.g_sender, g.g_team, g.g_template, g.g_day, g.sender_id, g.team_id, g.template_id,
            to_char(g.day, 'YYYY-MM-DD') as day,
            u.full_name as sender_name, u.email as sender_email, tm.name as team_name,
            (select t.name from template t where t.family_id = g.template_id
              order by t.version desc limit 1) as template_name,
            g.sent, g.sent_completed, g.in_progress, g.completed, g.declined, g.cancelled, g.expired,
            g.delivery_failed, g.median, g.p90
       from figures g
       left join app_user u on u.id = g.sender_id
       left join team tm on tm.id = g.team_id`,
    [
      timeZone,
      ...visible.params,
      from,
      to,
      timeZone,
      ...visible.params,
      from,
      to,
      timeZone,
      organizationId,
      from,
      to,
      ...visible.params,
    ],
  );

  const total = rows.find((r) => r.g_sender && r.g_team && r.g_template && r.g_day);
  const only = (dimension: 'g_sender' | 'g_team' | 'g_template' | 'g_day') =>
    rows.filter(
      (r) =>
        (['g_sender', 'g_team', 'g_template', 'g_day'] as const).filter((g) => !r[g]).join() === dimension,
    );

  const reasons = await ctx.em.execute<{ reason: string; count: string; last: Date | string }[]>(
    `select btrim(a.data->>'reason') as reason, count(*) as count, max(a.occurred_at) as last
       from audit_event a join envelope e on e.id = a.envelope_id
      where a.organization_id = ? and a.type = 'recipient.declined'
        and a.occurred_at >= ? and a.occurred_at < ? and ${visible.sql}
        and coalesce(btrim(a.data->>'reason'), '') <> ''
      group by 1
      order by count(*) desc, max(a.occurred_at) desc, 1
      limit ?`,
    [organizationId, from, to, ...visible.params, REPORT_DECLINE_REASONS],
  );

  // Messages: the organization's with documents:read_all (the credits are the organization's: also the messages
  // of deleted envelopes and those about none, as the billing summary counts them); otherwise those of the
  // envelopes the user sees.
  const messages = reader.readsAll
    ? { join: '', where: '', params: [] as unknown[] }
    : {
        join: 'join envelope e on e.id = n.envelope_id',
        where: `and ${visible.sql}`,
        params: visible.params,
      };
  const [sms] = await ctx.em.execute<{ used: string }[]>(
    `select count(*) as used from notification n ${messages.join}
      where n.organization_id = ? and n.status = 'sent' and n.channel in ('Sms', 'WhatsApp')
        and n.sent_at >= ? and n.sent_at < ? ${messages.where}`,
    [organizationId, from, to, ...messages.params],
  );
  const [failed] = await ctx.em.execute<{ failed: string }[]>(
    `select count(*) as failed from notification n ${messages.join}
      where n.organization_id = ? and n.status = 'failed'
        and n.last_attempt_at >= ? and n.last_attempt_at < ? ${messages.where}`,
    [organizationId, from, to, ...messages.params],
  );

  const perDay = new Map(only('g_day').map((r) => [r.day, r]));
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    timeZone,
    generatedAt: now.toISOString(),
    scope: reader.readsAll ? 'organization' : reader.teamId ? 'team' : 'own',
    totals: {
      ...figuresOf(total),
      deliveryFailures: Number(total?.delivery_failed ?? 0),
      failedMessages: Number(failed?.failed ?? 0),
      smsCreditsUsed: Number(sms?.used ?? 0),
    },
    bySender: byMostSent(
      only('g_sender').map((r) => ({
        ...figuresOf(r),
        userId: r.sender_id,
        name: r.sender_id ? (r.sender_name ?? '') : null,
        email: r.sender_id ? r.sender_email : null,
      })),
    ),
    byTeam: byMostSent(
      only('g_team').map((r) => ({ ...figuresOf(r), teamId: r.team_id, name: r.team_name })),
    ),
    byTemplate: byMostSent(
      only('g_template').map((r) => ({ ...figuresOf(r), templateId: r.template_id, name: r.template_name })),
    ),
    declineReasons: reasons.map((r) => ({
      reason: r.reason,
      count: Number(r.count),
      lastDeclinedAt: new Date(r.last).toISOString(),
    })),
    daily: daysOfRange(from, to, timeZone).map((date) => ({
      date,
      sent: Number(perDay.get(date)?.sent ?? 0),
      completed: Number(perDay.get(date)?.completed ?? 0),
    })),
  };
}
