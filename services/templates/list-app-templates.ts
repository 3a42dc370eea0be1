// GET /api/templates: the organization's templates, one line each (its newest version, and the published
// version envelopes are sent with), by name, a page at a time (docs/templates.md). Archived templates and the
// hidden one-off templates of envelopes created from a file are never listed (`status=archived` lists the archived
// ones instead, those not deleted: docs/templates.md "Archive, restore, delete"). Filters: words of the name
// (`search`), `status` (`draft`: the newest version is a draft; `published`: a version is published), the
// owner and the team. The answer also names every owner and team of the organization's templates, for the
// filters' choices.
import { type TemplateList, TemplateListQuery } from '../../domain/template-builder.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';

interface SummaryRow {
  id: string;
  family_id: string;
  name: string;
  status: 'Draft' | 'Published';
  version: number;
  page_count: number;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
  owner_user_id: string | null;
  owner_name: string | null;
  team_id: string | null;
  team_name: string | null;
  published_id: string | null;
  published_version: number | null;
  published_at: Date | null;
  role_count: string;
  field_count: string;
}

/** Active templates (the list), or archived ones that are not deleted (`status=archived`). */
const shelf = (archived: boolean, alias: string) =>
  archived
    ? `${alias}.archived_at is not null and ${alias}.deleted_at is null`
    : `${alias}.archived_at is null`;

/** The newest version of every template of the organization that the application lists. */
const heads = (archived: boolean) => `
  select distinct on (t.family_id) t.*
    from template t
   where t.organization_id = ? and t.status in ('Draft', 'Published') and ${shelf(archived, 't')}
   order by t.family_id, t.version desc`;

const current = (archived: boolean) => `
  select c.family_id, c.id, c.version, c.published_at
    from template c
   where c.organization_id = ? and c.status = 'Published' and c.superseded_at is null and ${shelf(archived, 'c')}`;

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export async function listAppTemplates(
  ctx: DataContext,
  organizationId: string,
  query: unknown,
): Promise<TemplateList> {
  const { search, status, ownerId, teamId, limit, offset } = parseInput(TemplateListQuery, query, 'query');
  const conditions: string[] = [];
  const parameters: unknown[] = [organizationId, organizationId];
  for (const word of (search ?? '').split(/\s+/).filter(Boolean)) {
    conditions.push(`h.name ilike ? escape '\\'`);
    parameters.push(likePattern(word));
  }
  const archived = status === 'archived';
  const HEADS = heads(archived);
  const CURRENT = current(archived);
  if (status === 'draft') conditions.push(`h.status = 'Draft'`);
  if (status === 'published') conditions.push('p.id is not null');
  if (ownerId) {
    conditions.push('h.owner_user_id = ?');
    parameters.push(ownerId);
  }
  if (teamId) {
    conditions.push('h.team_id = ?');
    parameters.push(teamId);
  }
  const from = `
    from (${HEADS}) h
    left join (${CURRENT}) p on p.family_id = h.family_id
    left join app_user u on u.id = h.owner_user_id
    left join team tm on tm.id = h.team_id
    ${conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''}`;
  const rows = await ctx.em.execute<SummaryRow[]>(
    `select h.id, h.family_id, h.name, h.status, h.version, h.page_count, h.created_at, h.updated_at, h.archived_at,
            h.owner_user_id, u.full_name as owner_name, h.team_id, tm.name as team_name,
            p.id as published_id, p.version as published_version, p.published_at,
            (select count(*) from template_role r where r.template_id = h.id) as role_count,
            (select count(*) from template_field f where f.template_id = h.id) as field_count
       ${from}
      order by lower(h.name), h.name, h.family_id
      limit ? offset ?`,
    [...parameters, limit, offset],
  );
  const [counted] = await ctx.em.execute<{ total: string }[]>(`select count(*) as total ${from}`, parameters);
  const total = Number(counted?.total ?? 0);
  const owners = await ctx.em.execute<{ id: string; name: string }[]>(
    `select distinct u.id, u.full_name as name
       from (${HEADS}) h join app_user u on u.id = h.owner_user_id
      order by name, u.id`,
    [organizationId],
  );
  const teams = await ctx.em.execute<{ id: string; name: string }[]>(
    `select distinct tm.id, tm.name
       from (${HEADS}) h join team tm on tm.id = h.team_id
      order by tm.name, tm.id`,
    [organizationId],
  );
  return {
    templates: rows.map((row) => ({
      id: row.id,
      familyId: row.family_id,
      name: row.name,
      status: row.status,
      version: row.version,
      published:
        row.published_id && row.published_version !== null && row.published_at
          ? {
              id: row.published_id,
              version: row.published_version,
              publishedAt: new Date(row.published_at).toISOString(),
            }
          : null,
      pageCount: row.page_count,
      roleCount: Number(row.role_count),
      fieldCount: Number(row.field_count),
      owner: row.owner_user_id && row.owner_name ? { id: row.owner_user_id, name: row.owner_name } : null,
      team: row.team_id && row.team_name ? { id: row.team_id, name: row.team_name } : null,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
      archivedAt: row.archived_at ? new Date(row.archived_at).toISOString() : null,
    })),
    total,
    nextOffset: offset + rows.length < total && rows.length > 0 ? offset + rows.length : null,
    owners: owners.map((owner) => ({ id: owner.id, name: owner.name })),
    teams: teams.map((team) => ({ id: team.id, name: team.name })),
  };
}
