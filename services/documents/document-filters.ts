// GET /api/documents/filters: what the documents page offers around its list — how many envelopes each tab
// holds for the signed-in user, and the senders, teams and templates of the envelopes they see (the filters'
// choices). Counts by status in one query, "action needed" in another; each choice list asks, per user, team or
// template of the organization, whether a visible envelope has it (an index lookup each, migration 0018).
import { DOCUMENT_TABS, type DocumentFilters, type DocumentTab } from '../../domain/document.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';
import { type DocumentReader, visibleTo } from './document-reader.ts';
import { allOf, TAB_STATUSES, tabCondition } from './document-tabs.ts';

export async function documentFilters(ctx: DataContext, reader: DocumentReader): Promise<DocumentFilters> {
  const visible = visibleTo(reader);
  const { em } = ctx;
  const byStatus = await em.execute<{ status: EnvelopeStatus; count: number | string }[]>(
    `select e.status, count(*) as count from envelope e where ${visible.sql} group by e.status`,
    visible.params,
  );
  const actionNeeded = allOf([visible, tabCondition('action_needed', reader)]);
  const [waiting] = await em.execute<{ count: number | string }[]>(
    `select count(*) as count from envelope e where ${actionNeeded.sql}`,
    actionNeeded.params,
  );
  const countOf = (statuses: readonly EnvelopeStatus[]) =>
    byStatus.filter((row) => statuses.includes(row.status)).reduce((sum, row) => sum + Number(row.count), 0);
  const counts = Object.fromEntries(
    DOCUMENT_TABS.map((tab) => [
      tab,
      tab === 'action_needed' ? Number(waiting?.count ?? 0) : countOf(TAB_STATUSES[tab]),
    ]),
  ) as Record<DocumentTab, number>;

  const has = (column: string, owner: string) =>
    `exists (select 1 from envelope e where ${visible.sql} and e.${column} = ${owner})`;
  const senders = await em.execute<{ id: string; full_name: string }[]>(
    `select u.id, u.full_name from app_user u
     where u.organization_id = ? and ${has('created_by_user_id', 'u.id')}
     order by lower(u.full_name), u.id`,
    [reader.organizationId, ...visible.params],
  );
  const teams = await em.execute<{ id: string; name: string }[]>(
    `select t.id, t.name from team t where t.organization_id = ? and ${has('team_id', 't.id')}
     order by lower(t.name), t.id`,
    [reader.organizationId, ...visible.params],
  );
  const templates = await em.execute<{ id: string; name: string }[]>(
    `select tp.id, tp.name from template tp
     where tp.organization_id = ? and tp.status <> 'OneOff' and ${has('template_id', 'tp.id')}
     order by lower(tp.name), tp.id`,
    [reader.organizationId, ...visible.params],
  );
  const [integrations] = reader.readsAll
    ? await em.execute<{ found: boolean }[]>(
        `select exists (select 1 from envelope e where ${visible.sql} and e.created_by_user_id is null) as found`,
        visible.params,
      )
    : [{ found: false }];
  return {
    counts,
    senders: senders.map((row) => ({ id: row.id, fullName: row.full_name })),
    integrations: Boolean(integrations?.found),
    teams: teams.map((row) => ({ id: row.id, name: row.name })),
    templates: templates.map((row) => ({ id: row.id, name: row.name })),
  };
}
