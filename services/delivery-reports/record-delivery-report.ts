// What became of a message after its provider accepted it (docs/notifications.md "Bounces and carrier
// failures"): an email's delivery status notification to its VERP address (api/bounces/bounce-receiver.ts) or
// Twilio's status callback (api/routes/twilio-status.ts). The report is written on the message's `notification`
// row; a failure of an invitation or reminder is handed to the envelope's workflow as `reportDeliveryFailure`,
// which decides it exactly like a message that failed for good (recipient DeliveryFailed, and the envelope when
// nobody in turn can be reached). Once the workflow has taken (or refused) a message's failure, a later report of
// the same message changes nothing; a report repeated while the first is on its way sends the same Update id,
// which Temporal applies once.

import { Notification, Recipient } from '../../db/entities/index.ts';
import { sanitizeText } from '../../domain/text.ts';
import {
  TemporalUnavailableError,
  temporalTimeoutMs,
  withTemporalDeadline,
} from '../../temporal/deadline.ts';
import {
  ENVELOPE_RECORD_BEING_REPAIRED,
  envelopeWorkflowId,
  reportDeliveryFailureUpdate,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { outcomeUnknown } from '../envelopes/envelope-update.ts';
import { toServiceError } from '../envelopes/workflow-errors.ts';
import { Conflict } from '../errors.ts';

/** The longest detail kept (a DSN's diagnostic can be long). */
export const DELIVERY_DETAIL_MAX_LENGTH = 500;

export interface DeliveryReport {
  notificationId: string;
  outcome: 'delivered' | 'failed';
  /** `Bounced` for an email's DSN, `CarrierFailed` for Twilio's status. */
  failureType: 'Bounced' | 'CarrierFailed';
  /** The DSN's status code and diagnostic, or Twilio's status and error code. */
  detail: string;
}

/**
 * - `unknown`: no message of Sigil's has this id;
 * - `recorded`: written on the row, nothing else to do (a delivery, a notice's failure, a failure of an address
 *   the recipient no longer has);
 * - `reported`: the envelope's workflow took the failure;
 * - `refused`: the workflow refused it (the envelope is final), recorded on the row;
 * - `unchanged`: this message's failure was already reported, or its status already known.
 */
export type DeliveryReportResult = 'unknown' | 'recorded' | 'reported' | 'refused' | 'unchanged';

export async function recordDeliveryReport(
  ctx: Pick<ServiceContext, 'em' | 'temporal' | 'config'>,
  report: DeliveryReport,
): Promise<DeliveryReportResult> {
  const detail = sanitizeText(report.detail, 'line').slice(0, DELIVERY_DETAIL_MAX_LENGTH);
  const em = ctx.em;
  const row = await em.findOne(Notification, { id: report.notificationId }, { refresh: true });
  if (!row) return 'unknown';
  // A message the provider never accepted failed already, and was decided then.
  if (row.status !== 'sent') return 'unchanged';
  if (report.outcome === 'delivered') {
    // A failure is never overwritten by a later "delivered"; a delivery is written once.
    const written = await em.getConnection().execute<{ id: string }[]>(
      `update notification set delivery_status = 'delivered', delivery_detail = ?, delivery_reported_at = now()
          where id = ? and delivery_status is null returning id`,
      [detail, row.id],
    );
    return written.length > 0 ? 'recorded' : 'unchanged';
  }
  if (row.deliveryFailureReportedAt) return 'unchanged';
  // The first failure's detail is kept; a repeated report finds it written and goes on to the workflow (the
  // first report may have stopped before the workflow took it).
  await em.getConnection().execute(
    `update notification set delivery_status = 'failed', delivery_detail = ?, delivery_reported_at = now()
        where id = ? and delivery_status is distinct from 'failed'`,
    [detail, row.id],
  );
  const reportable =
    (row.kind === 'invitation' || row.kind === 'reminder') && row.envelopeId && row.recipientId;
  if (!reportable || !(await stillTheAddress(ctx, row))) {
    await markFailureReported(ctx, row.id);
    return 'recorded';
  }
  try {
    await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      `reportDeliveryFailure of envelope ${row.envelopeId}`,
      () =>
        ctx.temporal.workflow
          .getHandle(envelopeWorkflowId(row.envelopeId as string))
          .executeUpdate(reportDeliveryFailureUpdate, {
            args: [
              {
                notificationId: row.id,
                recipientId: row.recipientId as string,
                kind: row.kind as 'invitation' | 'reminder',
                failureType: report.failureType,
                message: detail,
              },
            ],
            // The same message's failure is one Update, however often it is reported.
            updateId: `delivery-failure/${row.id}`,
          }),
    );
  } catch (error) {
    if (error instanceof TemporalUnavailableError) {
      throw outcomeUnknown(error, row.envelopeId as string, undefined);
    }
    const refusal = toServiceError(error, row.envelopeId as string);
    if (!(refusal instanceof Conflict)) throw refusal;
    // While the envelope's record is repaired, the report is refused for now: the caller tries again later.
    if (refusal.details.some((d) => d.reason === ENVELOPE_RECORD_BEING_REPAIRED)) throw refusal;
    await markFailureReported(ctx, row.id);
    return 'refused';
  }
  await markFailureReported(ctx, row.id);
  return 'reported';
}

/**
 * Whether the failed address is still the recipient's: after a correction (a new address) a bounce of the old
 * one is recorded on its message but changes nothing.
 */
async function stillTheAddress(ctx: Pick<ServiceContext, 'em'>, row: Notification): Promise<boolean> {
  const recipient = await ctx.em.findOne(
    Recipient,
    { id: row.recipientId as string, envelopeId: row.envelopeId as string },
    { refresh: true },
  );
  if (!recipient || !row.to) return false;
  const current = row.channel === 'Email' ? recipient.email : recipient.phone;
  return (current ?? '').trim().toLowerCase() === row.to.trim().toLowerCase();
}

async function markFailureReported(ctx: Pick<ServiceContext, 'em'>, id: string): Promise<void> {
  await ctx.em
    .getConnection()
    .execute(
      'update notification set delivery_failure_reported_at = now() where id = ? and delivery_failure_reported_at is null',
      [id],
    );
}
