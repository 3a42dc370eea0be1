// The SQL of bulk sends (migration 0021, docs/bulk-send.md): a run and its rows, written when a run starts,
// read by its page and its workflow's activities, and each row's progress.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BulkSendRowStatus, BulkSendStatus } from '../domain/vocabulary.ts';

export interface BulkSendRecord {
  id: string;
  organization_id: string;
  template_id: string;
  template_name: string;
  created_by_user_id: string | null;
  created_by_name: string | null;
  team_id: string | null;
  filename: string | null;
  settings: { title: string };
  status: BulkSendStatus;
  total: number;
  workflow_id: string;
  created_at: Date;
  finished_at: Date | null;
  pending: number;
  sent: number;
  failed: number;
  skipped: number;
}

export interface BulkSendRowRecord {
  bulk_send_id: string;
  row_number: number;
  request: Record<string, unknown>;
  status: BulkSendRowStatus;
  envelope_id: string | null;
  error: string | null;
}

/** Rows written per statement when a run starts (a statement's parameters stay far below PostgreSQL's limit). */
const INSERT_CHUNK = 500;

export async function insertBulkSend(
  tx: EntityManager,
  run: {
    id: string;
    organizationId: string;
    templateId: string;
    createdByUserId: string | null;
    teamId: string | null;
    filename: string | null;
    settings: object;
    workflowId: string;
  },
  /** `textMessages`: the SMS/WhatsApp messages the row's envelope needs at least (held until it is sent; 0). */
  rows: { row: number; request: object; textMessages?: number }[],
): Promise<void> {
  await tx.execute(
    `insert into bulk_send (id, organization_id, template_id, created_by_user_id, team_id, filename, settings,
                            total, workflow_id)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
    [
      run.id,
      run.organizationId,
      run.templateId,
      run.createdByUserId,
      run.teamId,
      run.filename,
      JSON.stringify(run.settings),
      rows.length,
      run.workflowId,
    ],
  );
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    await tx.execute(
      `insert into bulk_send_row (bulk_send_id, row_number, request, text_messages)
       values ${chunk.map(() => '(?, ?, ?::jsonb, ?)').join(', ')}`,
      chunk.flatMap((row) => [run.id, row.row, JSON.stringify(row.request), row.textMessages ?? 0]),
    );
  }
}

const RUN_COLUMNS = `b.id, b.organization_id, b.template_id, t.name as template_name, b.created_by_user_id,
       u.full_name as created_by_name, b.team_id, b.filename, b.settings, b.status, b.total, b.workflow_id,
       b.created_at, b.finished_at,
       (select count(*) from bulk_send_row r where r.bulk_send_id = b.id and r.status in ('Pending', 'Created'))::int as pending,
       (select count(*) from bulk_send_row r where r.bulk_send_id = b.id and r.status = 'Sent')::int as sent,
       (select count(*) from bulk_send_row r where r.bulk_send_id = b.id and r.status = 'Failed')::int as failed,
       (select count(*) from bulk_send_row r where r.bulk_send_id = b.id and r.status = 'Skipped')::int as skipped`;
const RUN_FROM = `bulk_send b join template t on t.id = b.template_id left join app_user u on u.id = b.created_by_user_id`;

/** Who sees a run: its organization, and unless `readsAll` its sender or their team (as envelopes). */
export interface BulkSendReader {
  organizationId: string;
  userId: string;
  teamId: string | null;
  readsAll: boolean;
}

function visibleRuns(reader: BulkSendReader): { sql: string; params: unknown[] } {
  if (reader.readsAll) return { sql: 'b.organization_id = ?', params: [reader.organizationId] };
  return reader.teamId
    ? {
        sql: 'b.organization_id = ? and (b.created_by_user_id = ? or b.team_id = ?)',
        params: [reader.organizationId, reader.userId, reader.teamId],
      }
    : {
        sql: 'b.organization_id = ? and b.created_by_user_id = ?',
        params: [reader.organizationId, reader.userId],
      };
}

export async function findBulkSend(
  em: EntityManager,
  reader: BulkSendReader,
  id: string,
): Promise<BulkSendRecord | undefined> {
  const visible = visibleRuns(reader);
  const [run] = await em.execute<BulkSendRecord[]>(
    `select ${RUN_COLUMNS} from ${RUN_FROM} where b.id = ? and ${visible.sql}`,
    [id, ...visible.params],
  );
  return run;
}

export async function listBulkSends(
  em: EntityManager,
  reader: BulkSendReader,
  page: { limit: number; offset: number },
): Promise<{ runs: BulkSendRecord[]; total: number }> {
  const visible = visibleRuns(reader);
  const runs = await em.execute<BulkSendRecord[]>(
    `select ${RUN_COLUMNS} from ${RUN_FROM} where ${visible.sql}
      order by b.created_at desc, b.id desc limit ? offset ?`,
    [...visible.params, page.limit, page.offset],
  );
  const [count] = await em.execute<{ total: number }[]>(
    `select count(*)::int as total from bulk_send b where ${visible.sql}`,
    visible.params,
  );
  return { runs, total: count?.total ?? 0 };
}

export async function listBulkSendRows(
  em: EntityManager,
  bulkSendId: string,
  query: { status?: BulkSendRowStatus | undefined; limit: number; offset: number },
): Promise<{ rows: BulkSendRowRecord[]; total: number }> {
  const status = query.status ? ' and status = ?' : '';
  const params = [bulkSendId, ...(query.status ? [query.status] : [])];
  const rows = await em.execute<BulkSendRowRecord[]>(
    `select bulk_send_id, row_number, request, status, envelope_id, error from bulk_send_row
      where bulk_send_id = ?${status} order by row_number limit ? offset ?`,
    [...params, query.limit, query.offset],
  );
  const [count] = await em.execute<{ total: number }[]>(
    `select count(*)::int as total from bulk_send_row where bulk_send_id = ?${status}`,
    params,
  );
  return { rows, total: count?.total ?? 0 };
}

/** The run as its activities need it (no visibility: the workflow acts for the sender). */
export async function bulkSendForWork(
  em: EntityManager,
  id: string,
): Promise<
  Pick<BulkSendRecord, 'id' | 'organization_id' | 'created_by_user_id' | 'team_id' | 'status'> | undefined
> {
  const [run] = await em.execute<BulkSendRecord[]>(
    'select id, organization_id, created_by_user_id, team_id, status from bulk_send where id = ?',
    [id],
  );
  return run;
}

/** The next rows to send: Pending, or Created by an attempt that died before sending. */
export function rowsToSend(
  em: EntityManager,
  bulkSendId: string,
  limit: number,
): Promise<BulkSendRowRecord[]> {
  return em.execute<BulkSendRowRecord[]>(
    `select bulk_send_id, row_number, request, status, envelope_id, error from bulk_send_row
      where bulk_send_id = ? and status in ('Pending', 'Created') order by row_number limit ?`,
    [bulkSendId, limit],
  );
}

export async function countRowsToSend(em: EntityManager, bulkSendId: string): Promise<number> {
  const [row] = await em.execute<{ count: number }[]>(
    `select count(*)::int as count from bulk_send_row
      where bulk_send_id = ? and status in ('Pending', 'Created')`,
    [bulkSendId],
  );
  return row?.count ?? 0;
}

/**
 * Records the envelope made from a row, in the transaction that creates it; false when the row already has
 * one (another attempt made it: this transaction must roll back).
 */
export async function recordRowEnvelope(
  tx: EntityManager,
  row: { bulkSendId: string; row: number },
  envelopeId: string,
): Promise<boolean> {
  const updated = await tx.execute<{ row_number: number }[]>(
    `update bulk_send_row set envelope_id = ?, status = 'Created', updated_at = now()
      where bulk_send_id = ? and row_number = ? and envelope_id is null and status = 'Pending'
      returning row_number`,
    [envelopeId, row.bulkSendId, row.row],
  );
  return updated.length === 1;
}

export async function finishRow(
  em: EntityManager,
  row: { bulkSendId: string; row: number },
  outcome: { status: 'Sent' } | { status: 'Failed'; error: string },
): Promise<void> {
  await em.execute(
    `update bulk_send_row set status = ?, error = ?, updated_at = now()
      where bulk_send_id = ? and row_number = ? and status in ('Pending', 'Created')`,
    [outcome.status, outcome.status === 'Failed' ? outcome.error : null, row.bulkSendId, row.row],
  );
}

/** Ends a run: rows not sent become Skipped when it was cancelled; the run Completed or Cancelled. */
export async function finishBulkSendRun(
  em: EntityManager,
  bulkSendId: string,
  cancelled: boolean,
): Promise<{ skipped: number }> {
  return em.transactional(async (tx) => {
    if (cancelled) {
      await tx.execute(
        `update bulk_send_row set status = 'Skipped', updated_at = now(),
                error = case when envelope_id is null then null
                             else 'The run was cancelled before this envelope was sent: it stays a Draft.' end
          where bulk_send_id = ? and status in ('Pending', 'Created')`,
        [bulkSendId],
      );
    }
    await tx.execute(
      `update bulk_send set status = ?, finished_at = coalesce(finished_at, now()) where id = ? and status = 'Running'`,
      [cancelled ? 'Cancelled' : 'Completed', bulkSendId],
    );
    const [row] = await tx.execute<{ skipped: number }[]>(
      `select count(*)::int as skipped from bulk_send_row where bulk_send_id = ? and status = 'Skipped'`,
      [bulkSendId],
    );
    return { skipped: row?.skipped ?? 0 };
  });
}

/** Runs still Running that began before `before`: the worker's sweep makes sure their workflow exists. */
export function runningBulkSends(
  em: EntityManager,
  before: Date,
): Promise<{ id: string; organization_id: string; total: number; workflow_id: string }[]> {
  return em.execute(
    `select id, organization_id, total, workflow_id from bulk_send
      where status = 'Running' and created_at < ? order by created_at limit 100`,
    [before],
  );
}
