// Lists and searches an organization's envelopes for the public API (GET /api/v1/envelopes): filters, a text
// query on the title and the recipients, a sort by creation or last change, and keyset pagination from an opaque
// cursor (the last envelope's sort key to the microsecond and its id), never OFFSET, so a page costs the same
// deep in the list as at its start and envelopes created meanwhile neither repeat nor push others off a page.
// One statement answers a page with each envelope's view (envelope-view.ts), whatever the page's size; the
// indexes it reads are migration 0040's and 0018's (docs/performance.md, "Listing envelopes").

import { rangeBound } from '../../domain/common.ts';
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

/**
 * How many envelopes, in the list's order, a text query first looks through: a common term (a surname on one
 * envelope in twenty) fills a page among them, where collecting every match through the trigram indexes and
 * sorting would read tens of thousands of rows (docs/performance.md, "Listing envelopes").
 */
export const TEXT_QUERY_WALK = 1000;

export async function listEnvelopes(
  ctx: DataContext,
  organizationId: string,
  query: EnvelopeListQuery,
  /** `walk: 0` skips the first look (the benchmark's baseline: the trigram indexes alone). */
  { walk = TEXT_QUERY_WALK }: { walk?: number } = {},
): Promise<EnvelopeList> {
  const column = `e.${SORT_COLUMNS[query.sort]}`;
  const direction = query.order === 'asc' ? 'asc' : 'desc';
  const filters = [{ sql: 'e.organization_id = ?', params: [organizationId] }, ...conditions(query, column)];
  const order = `${column} ${direction}, e.id ${direction}`;
  const text = query.q ? textMatch(query.q) : null;
  const view = `select ${envelopeViewColumns(
    'recipient r where r.envelope_id = e.id',
    `envelope_field_value v left join template_field f on f.id = v.field_id
      where v.envelope_id = e.id and v.source = 'initial'`,
  )}, p.sort_key`;
  const sqlOf = (list: Condition[]) => list.map((condition) => condition.sql).join(' and ');
  const paramsOf = (list: Condition[]) => list.flatMap((condition) => condition.params);
  let rows: (EnvelopeRow & { sort_key: string; walked?: number })[] | null = null;
  if (text && !text.exact && walk > 0) {
    // First the newest (or oldest) TEXT_QUERY_WALK envelopes the other filters keep, each checked on its own
    // title and recipients (recipient_envelope_idx: a subquery with a limit, which the planner runs for each
    // envelope, where an `exists` would become a join reading every match through the trigram indexes): the page
    // is final when it is full, or when the walk saw every envelope there is; otherwise the matches are
    // collected through the trigram indexes below. (The walk is counted only when the page is not full: a full
    // page stops the walk at its last match.)
    const first = await ctx.em.execute<(EnvelopeRow & { sort_key: string; walked: number })[]>(
      `with walk as (
         select e.id, e.title, ${column} as k from envelope e
          where ${sqlOf(filters)}
          order by ${order}
          limit ?),
       page as (
         select w.id, ${sortKey('w.k')} as sort_key from walk w
          where lower(w.title) like ? or coalesce((
                  select true from recipient r where r.envelope_id = w.id and (${text.recipient}) limit 1), false)
          order by w.k ${direction}, w.id ${direction}
          limit ?)
       ${view}, case when (select count(*) from page) > ? then ? else (select count(*) from walk) end::int as walked
         from page p join envelope e on e.id = p.id
        order by ${order}`,
      [
        ...paramsOf(filters),
        Math.trunc(walk),
        text.pattern,
        ...text.params,
        query.limit + 1,
        query.limit,
        walk,
      ],
    );
    const walked = first[0]?.walked ?? walk;
    if (first.length > query.limit || walked < walk) rows = first;
  }
  if (!rows) {
    const where = text
      ? [
          ...filters,
          {
            // The recipients' matches are collected into an array that envelope_pkey is probed with (as the
            // Documents search does: services/documents/list-documents.ts).
            sql: `(lower(e.title) like ? or e.id = any(array(
                     select r.envelope_id from recipient r where ${text.recipient})))`,
            params: [text.pattern, ...text.params],
          },
        ]
      : filters;
    // The page's ids are chosen first (an index scan in the sort's order that stops after limit + 1 rows), and
    // only those rows are read whole: the view's aggregates never run for an envelope that is not shown.
    rows = await ctx.em.execute<(EnvelopeRow & { sort_key: string })[]>(
      `with page as (
         select e.id, ${sortKey(column)} as sort_key from envelope e
          where ${sqlOf(where)}
          order by ${order}
          limit ?)
       ${view}
         from page p join envelope e on e.id = p.id
        order by ${order}`,
      [...paramsOf(where), query.limit + 1],
    );
  }
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ sort_key: _key, walked: _walked, ...row }) => envelopeViewOfRow(row)),
    nextCursor:
      rows.length > query.limit && last
        ? encodeEnvelopeListCursor({ sort: query.sort, order: query.order, key: last.sort_key, id: last.id })
        : null,
  };
}

/** A whole email address: the text query matches recipients with exactly that address (recipient_email_idx). */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The text query: `%text%` on the title, and on the recipients' name, email (migration 0018's trigram indexes) and
 * phone (0040's), with `%`, `_` and `\` as letters — or, for a whole email address, that address on the
 * recipients: its many common trigrams (`example`, `legal`) would make the trigram index intersect long lists.
 * An address's matches are few and found through recipient_email_idx at once: it skips the first look.
 */
function textMatch(q: string): { pattern: string; recipient: string; params: unknown[]; exact: boolean } {
  const text = q.toLowerCase();
  const pattern = `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  if (EMAIL_ADDRESS.test(text))
    return { pattern, recipient: 'lower(r.email) = ?', params: [text], exact: true };
  return {
    pattern,
    recipient: 'lower(r.full_name) like ? or lower(r.email) like ? or lower(r.phone) like ?',
    params: [pattern, pattern, pattern],
    exact: false,
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
    if (value) {
      list.push({
        sql: sql.replace('?', 'cast(? as timestamptz)'),
        params: [rangeBound(value).toISOString()],
      });
    }
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
