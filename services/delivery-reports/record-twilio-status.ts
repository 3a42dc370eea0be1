// Twilio's status callback of an SMS or WhatsApp message (docs/notifications.md "Bounces and carrier
// failures"): every message is sent with `StatusCallback` = {PUBLIC_BASE_URL}/api/callbacks/twilio/status/<notification
// id>, and Twilio posts each change of its status there, signed with the account's auth token
// (`X-Twilio-Signature`, checked with twilio's own validateRequest against the accounts that send SMS and
// WhatsApp). `delivered` (and WhatsApp's `read`) is recorded on the message's row; `undelivered` and `failed` are
// the message's failure with the carrier's error code (recordDeliveryReport); the other statuses (queued, sent,
// …) say nothing yet. A forged or altered callback is refused (403) before anything is read or written.
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
const FAILED = new Set(['undelivered', 'failed']);

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
  const row = await ctx.em.findOne(Notification, { id: callback.notificationId }, { refresh: true });
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
