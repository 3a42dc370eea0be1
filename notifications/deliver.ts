// One message out: the channel's provider when this server has one; otherwise, in development and test, the
// development capture; otherwise (production) a non-retryable NoProvider failure. Every attempt is recorded
// in `notification` (never the body). Used by the sendNotification activity and the signer API's one-time
// codes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SigilEnv } from '../config/config.ts';
import { Notification } from '../db/entities/index.ts';
import { prepared, runPrepared } from '../db/prepared.ts';
import type { MessageChannel, NotificationKind } from '../domain/vocabulary.ts';
import { type CapturedNotification, captureNotification, capturesNotifications } from './dev-capture.ts';
import { NotificationError } from './errors.ts';
import {
  type NotificationProvider,
  type NotificationProviders,
  notificationProviders,
  type OutgoingMessage,
  type SentMessage,
} from './providers.ts';
import { effectiveProviders, type StoredProvidersConfig, storedProviderRows } from './stored-providers.ts';

export interface DeliveryContext {
  env: SigilEnv;
  providers: NotificationProviders;
  /** The secrets of the providers' settings: a failure's message is redacted with them. */
  secrets: string[];
}

/**
 * The delivery context for the next message: the providers a platform administrator saved in the backoffice
 * over the environment's (stored-providers.ts), read now, so a change applies without a restart.
 */
export async function deliveryContext(
  em: EntityManager,
  config: { env: SigilEnv } & StoredProvidersConfig,
): Promise<DeliveryContext> {
  const { settings, secrets } = effectiveProviders(await storedProviderRows(em), config);
  return { env: config.env, providers: notificationProviders(settings), secrets };
}

export type Route = { type: 'provider'; provider: NotificationProvider } | { type: 'capture' };

/** How a message on this channel goes out; throws NoProvider in production when nothing can send it. */
export function routeFor(ctx: DeliveryContext, channel: MessageChannel): Route {
  const provider = ctx.providers.forChannel(channel);
  if (provider) return { type: 'provider', provider };
  if (capturesNotifications(ctx.env)) return { type: 'capture' };
  throw new NotificationError(
    'NoProvider',
    `No ${channelName(channel)} provider is configured on this server: set ${PROVIDER_VARIABLES[channel]} (see docs/notifications.md), or save one in the backoffice's Providers.`,
    false,
  );
}

/** What the capture keeps besides the message itself. */
export type CaptureDetails = Omit<CapturedNotification, 'channel' | 'to' | 'subject' | 'body'>;

/**
 * Sends the message along its route. The capture is written and flushed in `em`, and its row id is the
 * "provider message id".
 */
export async function deliver(
  em: EntityManager,
  route: Route,
  message: OutgoingMessage,
  capture: CaptureDetails,
): Promise<SentMessage> {
  if (route.type === 'provider') return route.provider.send(message);
  const row = captureNotification(em, {
    ...capture,
    channel: message.channel,
    to: message.to,
    subject: message.email?.subject ?? null,
    body: message.text,
  });
  await em.flush();
  return { provider: 'dev-capture', providerMessageId: row.id };
}

export interface AttemptRecord {
  id: string;
  organizationId: string;
  envelopeId: string | null;
  recipientId: string | null;
  kind: NotificationKind;
  channel: MessageChannel;
  to: string | null;
  language: string;
  /** `smtp`, `twilio`, `dev-capture`, or `none` when no route could be chosen. */
  provider: string;
  outcome: { status: 'sent'; providerMessageId: string | null } | { status: 'failed'; error: string };
}

/**
 * One attempt written by one statement: the row is created with the first attempt, or the attempt is added to
 * it (the same id on every retry): the outcome replaces the channel, address, language, provider and status; a
 * success sets the provider's message id and the time sent, a failure the last error. A success also spends the
 * SMS credit the message took (db/usage-reservations.ts) in the same statement, so the message is counted as
 * sent or as held, never as both or neither.
 */
const ATTEMPT_UPSERT = prepared(
  'notification_attempt_upsert',
  `with written as (insert into notification as n (id, organization_id, envelope_id, recipient_id, kind, channel, to_address,
                                   language, provider, status, provider_message_id, attempts, last_error,
                                   created_at, last_attempt_at, sent_at)
   values (?::uuid, ?::uuid, ?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?::timestamptz, ?::timestamptz,
           ?::timestamptz)
   on conflict (id) do update
      set channel = excluded.channel, to_address = excluded.to_address, language = excluded.language,
          provider = excluded.provider, status = excluded.status, attempts = n.attempts + 1,
          last_attempt_at = excluded.last_attempt_at,
          provider_message_id = case when excluded.status = 'sent' then excluded.provider_message_id
                                     else n.provider_message_id end,
          sent_at = case when excluded.status = 'sent' then excluded.sent_at else n.sent_at end,
          last_error = case when excluded.status = 'sent' then n.last_error else excluded.last_error end
   returning n.*),
   spent as (update sms_credit_hold h set state = 'spent', settled_at = now()
              where h.notification_id = ?::uuid and h.state = 'held' and ?::text = 'sent')
   select row_to_json(written) as notification from written`,
);

/**
 * Records one attempt of a message: creates its row or adds the attempt to it (the same id on every retry), in
 * one statement (in `em`'s transaction when there is one), and answers the row as a managed entity of `em`.
 */
export async function recordAttempt(em: EntityManager, record: AttemptRecord): Promise<Notification> {
  const now = new Date().toISOString();
  const sent = record.outcome.status === 'sent';
  const [row] = await runPrepared<{ notification: Record<string, unknown> }>(em, ATTEMPT_UPSERT, [
    record.id,
    record.organizationId,
    record.envelopeId,
    record.recipientId,
    record.kind,
    record.channel,
    record.to,
    record.language,
    record.provider,
    record.outcome.status,
    record.outcome.status === 'sent' ? record.outcome.providerMessageId : null,
    record.outcome.status === 'failed' ? record.outcome.error : null,
    now,
    now,
    sent ? now : null,
    record.id,
    record.outcome.status,
  ]);
  if (!row) throw new Error(`The attempt of notification ${record.id} was not recorded.`);
  return em.map(Notification, row.notification as never);
}

export function channelName(channel: MessageChannel): string {
  return channel === 'Sms' ? 'SMS' : channel === 'WhatsApp' ? 'WhatsApp' : 'email';
}

const PROVIDER_VARIABLES: Record<MessageChannel, string> = {
  Email: 'SMTP_URL or SMTP_HOST, and MAIL_FROM',
  Sms: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_SMS_FROM',
  WhatsApp: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_WHATSAPP_FROM',
};
