// Twilio's status callback of an SMS or WhatsApp message (docs/notifications.md "Bounces and carrier
// failures"): every message is sent with `StatusCallback` = {PUBLIC_BASE_URL}/api/callbacks/twilio/status/<notification
// id>, and Twilio posts each change of its status there, signed with the account's auth token
// (`X-Twilio-Signature`, checked with twilio's own validateRequest against the accounts that send SMS and
// WhatsApp). `delivered` (and WhatsApp's `read`) is recorded on the message's row; `undelivered` and `failed` are
// the message's failure with the carrier's error code (recordDeliveryReport); the other statuses (queued, sent,
// …) say nothing yet. A forged or altered callback is refused (403) before anything is read or written. A signed
// callback that arrives before its message's row was written (a quick failure reported while the send was still
// being recorded) waits a few seconds for it.
import { Notification } from '../../db/entities/index.ts';
import { effectiveProviders, storedProviderRows } from '../../notifications/stored-providers.ts';
import type { ServiceContext } from '../context.ts';
import { Forbidden, NotFound } from '../errors.ts';
import { type DeliveryReportResult, recordDeliveryReport } from './record-delivery-report.ts';

export interface TwilioStatusCallback {
  notificationId: string;
  /** The URL Twilio requested, as it signed it: PUBLIC_BASE_URL and the request's path and query. */
  url: string;
  signature: string | undefined;
  /** The form fields Twilio posted (MessageSid, MessageStatus, ErrorCode, …). */
  params: Record<string, string>;
}

const DELIVERED = new Set(['delivered', 'read']);
/**
 * How long a signed callback waits for its message's row. The row is written once Twilio has answered the send,
 * and Twilio may report a quick failure before that write: the callback then waits for it instead of being lost.
 */
export const TWILIO_CALLBACK_ROW_WAIT_MS = 5_000;
const ROW_POLL_MS = 100;
const FAILED = new Set(['undelivered', 'failed']);

/** The message's row, read again while it is not there yet, up to TWILIO_CALLBACK_ROW_WAIT_MS. */
async function notificationOnceRecorded(
  ctx: Pick<ServiceContext, 'em'>,
  notificationId: string,
): Promise<Notification | null> {
  const deadline = Date.now() + TWILIO_CALLBACK_ROW_WAIT_MS;
  for (;;) {
    const row = await ctx.em.findOne(Notification, { id: notificationId }, { refresh: true });
    if (row || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, ROW_POLL_MS));
  }
}

export async function recordTwilioStatus(
  ctx: Pick<ServiceContext, 'em' | 'temporal' | 'config'>,
  callback: TwilioStatusCallback,
): Promise<DeliveryReportResult | 'ignored'> {
  const { settings } = effectiveProviders(await storedProviderRows(ctx.em), {
    notifications: ctx.config.notifications,
    secretsKey: ctx.config.secretsKey,
  });
  const tokens = [...new Set([settings.sms?.authToken, settings.whatsapp?.authToken])].filter(
    (token): token is string => Boolean(token),
  );
  const { default: twilio } = await import('twilio');
  const signature = callback.signature ?? '';
  const signed =
    signature !== '' &&
    tokens.some((token) => twilio.validateRequest(token, signature, callback.url, callback.params));
  if (!signed) {
    throw new Forbidden(
      "The request's X-Twilio-Signature does not match it under this server's Twilio account: only Twilio's own status callbacks are taken.",
    );
  }
  const row = await notificationOnceRecorded(ctx, callback.notificationId);
  const sid = callback.params.MessageSid ?? callback.params.SmsSid;
  const ours = row?.provider === 'twilio' && (!row.providerMessageId || row.providerMessageId === sid);
  if (!row || !ours) {
    throw new NotFound(`No Twilio message ${sid ?? ''} of notification ${callback.notificationId}.`);
  }
  const status = (callback.params.MessageStatus ?? callback.params.SmsStatus ?? '').toLowerCase();
  const errorCode = callback.params.ErrorCode;
  if (DELIVERED.has(status)) {
    return recordDeliveryReport(ctx, {
      notificationId: row.id,
      outcome: 'delivered',
      failureType: 'CarrierFailed',
      detail: `Twilio status ${status}`,
    });
  }
  if (FAILED.has(status)) {
    return recordDeliveryReport(ctx, {
      notificationId: row.id,
      outcome: 'failed',
      failureType: 'CarrierFailed',
      detail: `Twilio status ${status}${errorCode ? ` (Twilio error ${errorCode})` : ''}`,
    });
  }
  return 'ignored';
}
