// Bulk sends in the business application (docs/bulk-send.md): check a CSV file against a published template and
// the plan, start a run (the rows stored, then the workflow `bulk-send/<id>` started), follow it, list its rows,
// cancel it, and download the header a file for a template needs. Everything needs documents:manage; a user
// sees the runs they started and their team's, or every run of the organization when their role reads all
// documents — as with envelopes.
import { randomUUID } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import type { z } from 'zod';
import {
  type BulkSendReader,
  type BulkSendRecord,
  findBulkSend,
  insertBulkSend,
  listBulkSendRows,
  listBulkSends,
} from '../../db/bulk-sends.ts';
import { lockOrganization } from '../../db/usage-reservations.ts';
import {
  type BulkSendCheck,
  type BulkSendList,
  type BulkSendListQuery,
  type BulkSendRequest,
  type BulkSendRows,
  type BulkSendRowsQuery,
  type BulkSendView,
  StoredBulkSendRequest,
} from '../../domain/bulk-send.ts';
import { startBulkSendWorkflow } from '../../temporal/bulk-sends.ts';
import {
  TemporalUnavailableError,
  temporalTimeoutMs,
  withTemporalDeadline,
} from '../../temporal/deadline.ts';
import { workflowWebUiUrl } from '../../temporal/web-ui.ts';
import { bulkSendWorkflowId, cancelBulkSendSignal } from '../../workflows/bulk-send-contracts.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import { protectCell } from '../contacts/csv-cells.ts';
import type { ServiceContext } from '../context.ts';
import { findPublishedTemplate } from '../envelopes/create-envelope.ts';
import { Conflict, InvalidRequest, NotFound, ServiceUnavailable } from '../errors.ts';
import { recordIdempotentResult } from '../idempotency.ts';
import { envelopeQuota, requireEnvelopeQuota } from '../usage/envelope-quota.ts';
import { requireSmsCredits, smsCredits } from '../usage/sms-credits.ts';
import { csvHeaderOf, describeColumns, readBulkFile, shorten } from './read-bulk-file.ts';

type StartRequest = z.output<typeof BulkSendRequest>;

export function bulkSendReaderOf(principal: SessionPrincipal): BulkSendReader & { seesWorkflow: boolean } {
  return {
    organizationId: principal.organization.id,
    userId: principal.user.id,
    teamId: principal.team?.id ?? null,
    readsAll: principal.permissions.includes('documents:read_all'),
    seesWorkflow: principal.permissions.includes('settings:read'),
  };
}

/** The file read against the template: its rows' requests, its columns and the text messages it needs. */
async function readRequest(ctx: ServiceContext, principal: SessionPrincipal, request: StartRequest) {
  const published = await findPublishedTemplate(ctx, principal.organization.id, request.templateId);
  const names = published.roles.map((role) => role.name);
  const unknown = request.roles.flatMap((settings, index) =>
    names.some((name) => name.toLowerCase() === settings.roleName.toLowerCase())
      ? []
      : [
          {
            field: `body.roles.${index}.roleName`,
            message: `"${shorten(settings.roleName)}" is not a role of the template (roles: ${names.join(', ')})`,
          },
        ],
  );
  if (unknown[0])
    throw new InvalidRequest(`Invalid bulk send: ${unknown[0].field}: ${unknown[0].message}`, unknown);
  const file = readBulkFile(request.csv, published, {
    title: request.title ?? published.template.name,
    workflowType: request.workflowType,
    expiresAt: request.expiresAt,
    roles: request.roles,
  });
  const textMessages = file.rows.reduce((sum, row) => sum + row.textMessages, 0);
  return { published, file, textMessages };
}

/** POST /api/bulk-sends/check: the file checked as a start checks it (400 `invalid_csv`), nothing started. */
export async function checkBulkSend(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  request: StartRequest,
): Promise<BulkSendCheck> {
  const { file, textMessages } = await readRequest(ctx, principal, request);
  const organizationId = principal.organization.id;
  return {
    rows: file.rows.length,
    columns: describeColumns(file.columns),
    textMessagesNeeded: textMessages,
    remainingEnvelopeQuota: (await envelopeQuota(ctx.em, organizationId)).remaining,
    remainingSmsCredits: (await smsCredits(ctx.em, organizationId)).remaining,
  };
}

/**
 * POST /api/bulk-sends: checks the whole file and the plan's limits (409 `document_limit_reached`,
 * `sms_credits_exhausted`) before anything starts, stores the run and its rows in one transaction, then starts
 * its workflow. Under an Idempotency-Key a retry answers with the run the first attempt stored.
 */
export async function startBulkSend(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  request: StartRequest,
): Promise<BulkSendView> {
  const reader = bulkSendReaderOf(principal);
  const organizationId = principal.organization.id;
  const { idempotency } = ctx;
  const earlier = idempotency?.resultId
    ? await findBulkSend(ctx.em, reader, idempotency.resultId)
    : undefined;
  if (earlier) {
    await startRun(ctx, earlier);
    return viewOf(ctx, reader, (await findBulkSend(ctx.em, reader, earlier.id)) ?? earlier);
  }
  const { published, file, textMessages } = await readRequest(ctx, principal, request);
  const count = file.rows.length;
  const action = `send ${count} envelope${count === 1 ? '' : 's'} from the file`;
  // An early answer before anything is written…
  await requireEnvelopeQuota(ctx.em, organizationId, count, action);
  await requireSmsCredits(ctx.em, organizationId, textMessages, action);
  const id = randomUUID();
  await ctx.em.transactional(async (tx) => {
    // …and the reservation that holds under concurrency: under the organization's lock, the run's rows are
    // stored only if what they need is left beside other sends and running bulk sends; until sent they hold it.
    await lockOrganization(tx, organizationId);
    await requireEnvelopeQuota(tx, organizationId, count, action);
    await requireSmsCredits(tx, organizationId, textMessages, action);
    await insertBulkSend(
      tx,
      {
        id,
        organizationId,
        templateId: published.template.id,
        createdByUserId: principal.user.id,
        teamId: principal.team?.id ?? null,
        filename: request.filename ?? null,
        settings: {
          title: request.title ?? published.template.name,
          workflowType: request.workflowType,
          expiresAt: request.expiresAt ?? null,
          roles: request.roles,
        },
        workflowId: bulkSendWorkflowId(id),
      },
      file.rows.map((row) => ({ row: row.row, request: row.request, textMessages: row.textMessages })),
    );
    if (idempotency) await recordIdempotentResult(tx, idempotency, id);
  });
  const run = (await findBulkSend(ctx.em, reader, id)) as BulkSendRecord;
  await startRun(ctx, run);
  return viewOf(ctx, reader, run);
}

/** Starts the run's workflow; 503 when Temporal does not answer (the worker's sweep starts it later). */
async function startRun(ctx: ServiceContext, run: BulkSendRecord): Promise<void> {
  if (run.status !== 'Running') return;
  try {
    await startBulkSendWorkflow(
      ctx.temporal,
      {
        bulkSendId: run.id,
        organizationId: run.organization_id,
        total: run.total,
        summary: `Bulk send of ${run.total} envelope${run.total === 1 ? '' : 's'}: ${run.settings.title}`,
      },
      temporalTimeoutMs(ctx.config),
    );
  } catch (error) {
    if (!(error instanceof TemporalUnavailableError)) throw error;
    throw new ServiceUnavailable(
      `Bulk send ${run.id} is stored but its workflow was not confirmed: ${error.message} It starts within a ` +
        'few minutes without anything more to do; its page shows the progress.',
    );
  }
}

export async function getBulkSend(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  id: string,
): Promise<BulkSendView> {
  const reader = bulkSendReaderOf(principal);
  return viewOf(ctx, reader, await visibleRun(ctx, reader, id));
}

export async function listBulkSendRuns(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  query: z.output<typeof BulkSendListQuery>,
): Promise<BulkSendList> {
  const reader = bulkSendReaderOf(principal);
  const { runs, total } = await listBulkSends(ctx.em, reader, query);
  const next = query.offset + runs.length;
  return {
    items: runs.map((run) => viewOf(ctx, reader, run)),
    total,
    nextOffset: next < total ? next : null,
  };
}

export async function bulkSendRows(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  query: z.output<typeof BulkSendRowsQuery>,
): Promise<BulkSendRows> {
  const run = await visibleRun(ctx, bulkSendReaderOf(principal), query.id);
  const { rows, total } = await listBulkSendRows(ctx.em, run.id, query);
  const next = query.offset + rows.length;
  return {
    items: rows.map((row) => {
      const request = StoredBulkSendRequest.parse(row.request);
      return {
        row: row.row_number,
        status: row.status,
        recipients: (request.recipients ?? []).map((recipient) => ({
          roleName: recipient.roleName,
          fullName: recipient.fullName,
          contact: recipient.email ?? recipient.phone ?? '',
        })),
        externalReference: request.externalReference ?? null,
        envelopeId: row.envelope_id,
        error: row.error,
      };
    }),
    total,
    nextOffset: next < total ? next : null,
  };
}

/** POST /api/bulk-sends/{id}/cancel: the rows being sent finish, the rest are Skipped; 409 once it ended. */
export async function cancelBulkSend(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  id: string,
): Promise<BulkSendView> {
  const reader = bulkSendReaderOf(principal);
  const run = await visibleRun(ctx, reader, id);
  if (run.status !== 'Running') {
    throw new Conflict(`Bulk send ${run.id} is ${run.status}: only a running bulk send can be cancelled.`);
  }
  try {
    await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      `cancelling bulk send ${id}`,
      () => ctx.temporal.workflow.getHandle(run.workflow_id).signal(cancelBulkSendSignal),
    );
  } catch (error) {
    if (error instanceof TemporalUnavailableError) {
      throw new ServiceUnavailable(`Bulk send ${run.id} was not cancelled: ${error.message} Try again.`);
    }
    // The workflow ended between the read and the Signal: its run is no longer Running.
    const now = await visibleRun(ctx, reader, id);
    if (now.status !== 'Running') {
      throw new Conflict(`Bulk send ${run.id} is ${now.status}: only a running bulk send can be cancelled.`);
    }
    throw error;
  }
  return viewOf(ctx, reader, run);
}

/** GET /api/bulk-sends/csv-template: a file with the header the template needs, to fill in a spreadsheet. */
export async function bulkSendCsvTemplate(
  ctx: ServiceContext,
  principal: SessionPrincipal,
  templateId: string,
): Promise<{ filename: string; content: string }> {
  const published = await findPublishedTemplate(ctx, principal.organization.id, templateId);
  const name = published.template.name.replace(/[^\p{L}\p{N}._ -]+/gu, '').trim() || 'template';
  return {
    filename: `${name} - bulk send.csv`,
    content: `\ufeff${stringify([csvHeaderOf(published).map(protectCell)])}`,
  };
}

async function visibleRun(ctx: ServiceContext, reader: BulkSendReader, id: string): Promise<BulkSendRecord> {
  const run = await findBulkSend(ctx.em, reader, id);
  if (!run) throw new NotFound(`Bulk send ${id} was not found.`);
  return run;
}

function viewOf(ctx: ServiceContext, reader: { seesWorkflow: boolean }, run: BulkSendRecord): BulkSendView {
  const namespace = ctx.config.temporal?.namespace ?? 'default';
  return {
    id: run.id,
    templateId: run.template_id,
    templateName: run.template_name,
    title: run.settings.title,
    filename: run.filename,
    status: run.status,
    total: run.total,
    pending: run.pending,
    sent: run.sent,
    failed: run.failed,
    skipped: run.skipped,
    createdAt: new Date(run.created_at).toISOString(),
    finishedAt: run.finished_at ? new Date(run.finished_at).toISOString() : null,
    createdBy:
      run.created_by_user_id && run.created_by_name
        ? { id: run.created_by_user_id, name: run.created_by_name }
        : null,
    workflowId: run.workflow_id,
    workflowUrl: reader.seesWorkflow
      ? workflowWebUiUrl(ctx.config.temporal, namespace, run.workflow_id)
      : null,
  };
}
