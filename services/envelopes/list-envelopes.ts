// Lists and searches an organization's envelopes for the public API (GET /api/v1/envelopes): filters, a text
// query on the title and the recipients, a sort by creation or last change, and keyset pagination from an opaque
// cursor (the last envelope's sort key to the microsecond and its id), never OFFSET, so a page costs the same
// deep in the list as at its start and envelopes created meanwhile neither repeat nor push others off a page.
// One statement answers a page with each envelope's view (envelope-view.ts), whatever the page's size; the
// indexes it reads are migration 0040's and 0018's (docs/performance.md, "Listing envelopes").
import {
  decodeEnvelopeListCursor,
  type EnvelopeList,
  type EnvelopeListQuery,
  encodeEnvelopeListCursor,
} from '../../domain/envelope-list.ts';
import type { DataContext } from '../context.ts';
import { type EnvelopeRow, envelopeViewColumns, envelopeViewOfRow } from './envelope-view.ts';

interface Condition {
  sql: string;
  params: unknown[];
}

/** The column of each sort: an index (organization_id, <column>, id) serves it in both orders. */
const SORT_COLUMNS = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** A timestamp as the cursor keeps it: UTC to the microsecond, the precision PostgreSQL compares. */
const sortKey = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function listEnvelopes(
  ctx: DataContext,
  organizationId: string,
  query: EnvelopeListQuery,
): Promise<EnvelopeList> {
  const column = `e.${SORT_COLUMNS[query.sort]}`;
  const direction = query.order === 'asc' ? 'asc' : 'desc';
  const where = [{ sql: 'e.organization_id = ?', params: [organizationId] }, ...conditions(query, column)];
  const order = `${column} ${direction}, e.id ${direction}`;
  // The page's ids are chosen first (an index scan in the sort's order that stops after limit + 1 rows), and
  // only those rows are read whole: the view's aggregates never run for an envelope that is not shown.
  const rows = await ctx.em.execute<(EnvelopeRow & { sort_key: string })[]>(
    `with page as (
       select e.id, ${sortKey(column)} as sort_key from envelope e
        where ${where.map((condition) => condition.sql).join(' and ')}
        order by ${order}
        limit ?)
     select ${envelopeViewColumns(
       'recipient r where r.envelope_id = e.id',
       `envelope_field_value v left join template_field f on f.id = v.field_id
         where v.envelope_id = e.id and v.source = 'initial'`,
     )}, p.sort_key
       from page p join envelope e on e.id = p.id
      order by ${order}`,
    [...where.flatMap((condition) => condition.params), query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ sort_key: _key, ...row }) => envelopeViewOfRow(row)),
    nextCursor:
      rows.length > query.limit && last
        ? encodeEnvelopeListCursor({ sort: query.sort, order: query.order, key: last.sort_key, id: last.id })
        : null,
  };
}

function conditions(query: EnvelopeListQuery, column: string): Condition[] {
  const list: Condition[] = [];
  if (query.status) {
    list.push({ sql: `e.status in (${query.status.map(() => '?').join(', ')})`, params: query.status });
  }
  if (query.templateId) {
    // The API shows an envelope made from a file with templateId null: its hidden template never matches.
    list.push({ sql: 'e.template_id = ? and e.source_file_id is null', params: [query.templateId] });
  }
  if (query.externalReference) {
    list.push({ sql: 'e.external_reference = ?', params: [query.externalReference] });
  }
  if (query.externalSystem) list.push({ sql: 'e.external_system = ?', params: [query.externalSystem] });
  const ranges = [
    ['e.created_at >= ?', query.createdFrom],
    ['e.created_at < ?', query.createdTo],
    ['e.updated_at >= ?', query.updatedFrom],
    ['e.updated_at < ?', query.updatedTo],
  ] as const;
  for (const [sql, value] of ranges) {
    if (value) list.push({ sql: sql.replace('?', 'cast(? as timestamptz)'), params: [value] });
  }
  if (query.q) {
    // `%text%` with `%`, `_` and `\` as letters; the trigram indexes of the title and of the recipients' name,
    // email (migration 0018) and phone (0040) find the matches. The recipients' matches are collected into an
    // array that envelope_pkey is probed with (as the Documents search does: services/documents/list-documents.ts).
    const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    list.push({
      sql: `(lower(e.title) like ? or e.id = any(array(
               select r.envelope_id from recipient r
                where lower(r.full_name) like ? or lower(r.email) like ? or lower(r.phone) like ?)))`,
      params: [pattern, pattern, pattern, pattern],
    });
  }
  if (query.cursor) {
    const cursor = decodeEnvelopeListCursor(query.cursor);
    if (cursor) {
      list.push({
        sql: `(${column}, e.id) ${query.order === 'asc' ? '>' : '<'} (cast(? as timestamptz), cast(? as uuid))`,
        params: [cursor.key, cursor.id],
      });
    }
  }
  return list;
}
