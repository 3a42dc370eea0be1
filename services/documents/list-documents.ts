// GET /api/documents: the envelopes the signed-in user sees (document-reader.ts), of one tab (document-tabs.ts),
// narrowed by a search and filters, newest first, a page at a time from a cursor (docs/documents.md). One query
// for the page (ordered by created_at, id: each way of narrowing has an index in that order, migration 0018) and
// one for the page's recipients.
import {
  DOCUMENT_LIMITS,
  type DocumentList,
  type DocumentListItem,
  DocumentListQuery,
  type DocumentListRecipient,
  decodeDocumentCursor,
  encodeDocumentCursor,
} from '../../domain/document.ts';
import type { EnvelopeStatus, WorkflowType } from '../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { type Condition, type DocumentReader, visibleTo } from './document-reader.ts';
import { allOf, tabCondition, waitsOnRecipient, waitsOnSender } from './document-tabs.ts';

/** A row of the list query. */
interface DocumentRow {
  id: string;
  title: string;
  status: EnvelopeStatus;
  workflow_type: WorkflowType;
  created_at: Date;
  created_at_exact: string;
  sent_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
  external_reference: string | null;
  sender_id: string | null;
  sender_name: string | null;
  team_id: string | null;
  team_name: string | null;
  template_id: string | null;
  template_name: string | null;
  waits_on_recipient: boolean;
  waits_on_sender: boolean;
}

type RecipientRow = DocumentListRecipient & { envelope_id: string };

/** The sender, team and template of an envelope (alias `e`), and the envelope's own columns. */
export const DOCUMENT_COLUMNS = `e.id, e.title, e.status, e.workflow_type, e.created_at,
  to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at_exact,
  e.sent_at, e.completed_at, e.expires_at, e.external_reference,
  u.id as sender_id, u.full_name as sender_name, t.id as team_id, t.name as team_name,
  tp.id as template_id, tp.name as template_name`;

/** Every envelope is listed with its sender, team and template (the template of an envelope from a file is not). */
const SIDE_JOINS = `left join app_user u on u.id = e.created_by_user_id
  left join team t on t.id = e.team_id
  left join template tp on tp.id = e.template_id and e.source_file_id is null`;
export const DOCUMENT_JOINS = `from envelope e ${SIDE_JOINS}`;

export async function listDocuments(
  ctx: DataContext,
  reader: DocumentReader,
  query: unknown,
): Promise<DocumentList> {
  const input = parseInput(DocumentListQuery, query, 'query');
  const recipient = waitsOnRecipient(reader);
  const sender = waitsOnSender(reader);
  const rows = await findDocumentRows<DocumentRow>(
    ctx,
    reader,
    input,
    {
      sql: `${DOCUMENT_COLUMNS}, ${recipient.sql} as waits_on_recipient, ${sender.sql} as waits_on_sender`,
      params: [...recipient.params, ...sender.params],
    },
    input.limit + 1,
  );
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const recipients = await recipientsOf(
    ctx,
    page.map((row) => row.id),
  );
  return {
    documents: page.map((row) => listItem(row, recipients.get(row.id) ?? [])),
    nextCursor:
      rows.length > input.limit && last
        ? encodeDocumentCursor({ createdAt: last.created_at_exact, id: last.id })
        : null,
  };
}

/**
 * The rows the user sees of the query's tab, search, filters and cursor, newest first, at most `limit`: the
 * `columns` (with their own parameters) of envelope `e` and DOCUMENT_JOINS' sender, team and template. The list
 * reads a page with it, the CSV export (export-documents.ts) every match a page at a time.
 */
export function findDocumentRows<Row>(
  ctx: DataContext,
  reader: DocumentReader,
  input: Omit<DocumentListQuery, 'limit'>,
  columns: Condition,
  limit: number,
): Promise<Row[]> {
  const where = allOf([visibleTo(reader), tabCondition(input.tab, reader), ...filterConditions(input)]);
  return input.search
    ? ctx.em.execute<Row[]>(searchStatement(columns.sql, where), [
        ...searchParams(where, input.search, limit),
        ...columns.params,
      ])
    : ctx.em.execute<Row[]>(
        `select ${columns.sql} ${DOCUMENT_JOINS}
         where ${where.sql}
         order by e.created_at desc, e.id desc
         limit ?`,
        [...columns.params, ...where.params, limit],
      );
}

/**
 * A page of a search: the matches' `(id, created_at)` collected in two halves — envelopes whose title or external
 * reference holds the text, and envelopes with a recipient whose name or address holds it (the trigram indexes
 * of the four columns, migration 0018), each half already narrowed by the user's visibility, tab, filters and
 * cursor — and only those sorted for the page; then the page's rows joined to their sender, team and template.
 * The recipients' matches are collected first into an array that envelope_pkey is probed with: joined instead,
 * the planner expected many and read every envelope of the organization for five addresses (52 ms).
 * (Collecting the matches' ids and joining them to the whole table sorted every match's full row: 246 ms for a
 * word in a quarter of 100,000 titles; docs/documents.md, "Performance".)
 */
function searchStatement(columns: string, where: Condition): string {
  return `with matches as (
      (select e.id, e.created_at from envelope e
        where ${where.sql} and (lower(e.title) like lower(?) or lower(e.external_reference) like lower(?)))
      union
      (select e.id, e.created_at from envelope e
        where e.id = any(array(
                select r.envelope_id from recipient r
                 where lower(r.full_name) like lower(?) or lower(r.email) like lower(?)))
          and ${where.sql})
      order by created_at desc, id desc
      limit ?)
    select ${columns} from matches m join envelope e on e.id = m.id ${SIDE_JOINS}
    order by e.created_at desc, e.id desc`;
}

/** The search statement's parameters before its columns' (`%text%`, with `%`, `_` and `\` as letters). */
function searchParams(where: Condition, search: string, limit: number): unknown[] {
  const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  return [...where.params, pattern, pattern, pattern, pattern, ...where.params, limit];
}

/** The filters and the cursor as conditions (the search is searchStatement's). */
function filterConditions(input: Omit<DocumentListQuery, 'limit'>): Condition[] {
  const conditions: Condition[] = [];
  if (input.from) conditions.push({ sql: 'e.created_at >= cast(? as timestamptz)', params: [input.from] });
  if (input.to) conditions.push({ sql: 'e.created_at < cast(? as timestamptz)', params: [input.to] });
  if (input.sender === 'api') conditions.push({ sql: 'e.created_by_user_id is null', params: [] });
  else if (input.sender) conditions.push({ sql: 'e.created_by_user_id = ?', params: [input.sender] });
  if (input.teamId) conditions.push({ sql: 'e.team_id = ?', params: [input.teamId] });
  if (input.templateId) conditions.push({ sql: 'e.template_id = ?', params: [input.templateId] });
  const cursor = input.cursor ? decodeDocumentCursor(input.cursor) : undefined;
  if (cursor) {
    conditions.push({
      sql: '(e.created_at, e.id) < (cast(? as timestamptz), cast(? as uuid))',
      params: [cursor.createdAt, cursor.id],
    });
  }
  return conditions;
}

/** The recipients of the envelopes, each envelope's in signing order. */
async function recipientsOf(ctx: DataContext, envelopeIds: string[]): Promise<Map<string, RecipientRow[]>> {
  const byEnvelope = new Map<string, RecipientRow[]>();
  if (envelopeIds.length === 0) return byEnvelope;
  const rows = await ctx.em.execute<RecipientRow[]>(
    `select r.envelope_id, r.id, r.full_name as "fullName", r.email, r.type, r.status from recipient r
     where r.envelope_id in (${envelopeIds.map(() => '?').join(', ')})
     order by r.envelope_id, r.signing_order, r.position, r.id`,
    envelopeIds,
  );
  for (const row of rows) {
    const list = byEnvelope.get(row.envelope_id) ?? [];
    list.push(row);
    byEnvelope.set(row.envelope_id, list);
  }
  return byEnvelope;
}

function listItem(row: DocumentRow, recipients: RecipientRow[]): DocumentListItem {
  return {
    ...documentFields(row),
    recipients: recipients
      .slice(0, DOCUMENT_LIMITS.recipientsPerRow)
      .map(({ envelope_id: _envelope, ...recipient }) => recipient),
    recipientCount: recipients.length,
    completedCount: recipients.filter((recipient) => recipient.status === 'Completed').length,
    actionNeeded: row.waits_on_recipient ? 'recipient' : row.waits_on_sender ? 'sender' : null,
  };
}

/** What the list and the envelope page share, from a row of DOCUMENT_COLUMNS. */
export function documentFields(row: DocumentColumnsRow) {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    workflowType: row.workflow_type,
    createdAt: new Date(row.created_at).toISOString(),
    sentAt: isoOrNull(row.sent_at),
    completedAt: isoOrNull(row.completed_at),
    expiresAt: isoOrNull(row.expires_at),
    externalReference: row.external_reference,
    sender: row.sender_id ? { id: row.sender_id, fullName: row.sender_name ?? '' } : null,
    team: row.team_id ? { id: row.team_id, name: row.team_name ?? '' } : null,
    template: row.template_id ? { id: row.template_id, name: row.template_name ?? '' } : null,
  };
}

export type DocumentColumnsRow = Omit<DocumentRow, 'waits_on_recipient' | 'waits_on_sender'>;

/** A timestamp of a raw row (the driver answers a Date; a string is read too) in ISO 8601, or null. */
export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
