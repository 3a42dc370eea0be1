// One message out: the channel's provider when this server has one; otherwise, in development and test, the
// development capture; otherwise (production) a non-retryable NoProvider failure. Every attempt is recorded
// in `notification` (never the body). Used by the sendNotification activity and the signer API's one-time
// codes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SigilEnv } from '../config/config.ts';
import { Notification } from '../db/entities/index.ts';
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
 * Records one attempt of a message: creates its row or adds the attempt to it (the same id on every retry).
 * Flushes `em`.
 */
export async function recordAttempt(em: EntityManager, record: AttemptRecord): Promise<Notification> {
  const now = new Date();
  const existing = await em.findOne(Notification, { id: record.id });
  const row =
    existing ??
    em.create(Notification, {
      id: record.id,
      organizationId: record.organizationId,
      envelopeId: record.envelopeId,
      recipientId: record.recipientId,
      kind: record.kind,
      channel: record.channel,
      to: record.to,
      language: record.language,
      provider: record.provider,
      status: record.outcome.status,
      providerMessageId: null,
      attempts: 0,
      lastError: null,
      createdAt: now,
      lastAttemptAt: now,
      sentAt: null,
    });
  row.channel = record.channel;
  row.to = record.to;
  row.language = record.language;
  row.provider = record.provider;
  row.status = record.outcome.status;
  row.attempts += 1;
  row.lastAttemptAt = now;
  if (record.outcome.status === 'sent') {
    row.providerMessageId = record.outcome.providerMessageId;
    row.sentAt = now;
  } else {
    row.lastError = record.outcome.error;
  }
  await em.flush();
  return row;
}

export function channelName(channel: MessageChannel): string {
  return channel === 'Sms' ? 'SMS' : channel === 'WhatsApp' ? 'WhatsApp' : 'email';
}

const PROVIDER_VARIABLES: Record<MessageChannel, string> = {
  Email: 'SMTP_URL or SMTP_HOST, and MAIL_FROM',
  Sms: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_SMS_FROM',
  WhatsApp: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_WHATSAPP_FROM',
};
