// The notification providers behind one interface: email through SMTP (nodemailer), SMS and WhatsApp
// through Twilio's REST API (the twilio library). Which channel has which provider comes from configuration
// (config/config.ts, `notifications`); a channel without one is captured in development and test and fails
// in production (notifications/deliver.ts). Providers classify their failures: retryable when the provider
// failed or could not be reached, not retryable when it refused the address or the message for good.
// Credentials never appear in an error: see redactedMessage.
import nodemailer from 'nodemailer';
import type TwilioRequestClient from 'twilio/lib/base/RequestClient.js';
import type { NotificationsConfig, SmtpSettings, TwilioSettings } from '../config/config.ts';
import type { MessageChannel } from '../domain/vocabulary.ts';
import { NotificationError, redactedMessage } from './errors.ts';

export interface OutgoingMessage {
  channel: MessageChannel;
  /** An email address (Email) or an E.164 phone number (Sms, WhatsApp). */
  to: string;
  /** The plain text: an email's text part, or the whole SMS or WhatsApp message. */
  text: string;
  /** SMS and WhatsApp: where Twilio posts the message's status (notifications/status-callback.ts). */
  statusCallback?: string;
  /** Email only. */
  email?: {
    subject: string;
    html: string;
    /** The display name in From (the organization's); the address is MAIL_FROM. */
    fromName: string;
    replyTo: string | null;
    /** `Content-Language` of the email. */
    language: string;
    /** Files the email carries (the final PDF of a `completed` email, when the organization asks for it). */
    attachments?: EmailAttachment[];
    /**
     * The SMTP envelope sender (VERP: bounce+<notification id>@BOUNCE_DOMAIN, notifications/bounce-address.ts);
     * absent: MAIL_FROM.
     */
    returnPath?: string;
  };
}

export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

export type ProviderName = 'smtp' | 'twilio';

export interface SentMessage {
  provider: ProviderName | 'dev-capture';
  /** SMTP Message-ID, Twilio message SID, or the capture row's id. */
  providerMessageId: string | null;
  /** What the provider answered on acceptance (the SMTP reply, Twilio's message status), when it says. */
  answer?: string | null;
}

export interface NotificationProvider {
  readonly name: ProviderName;
  /** Sends one message; throws NotificationError. */
  send(message: OutgoingMessage): Promise<SentMessage>;
}

export interface NotificationProviders {
  /** The channel's provider, or null when this server has none for it. */
  forChannel(channel: MessageChannel): NotificationProvider | null;
  /** Closes open connections (SMTP). */
  close(): void;
}

/**
 * Each channel's provider settings: email by SMTP, SMS and WhatsApp by Twilio, each possibly with an account of
 * its own (a platform administrator sets them apart in the backoffice; the environment has one Twilio account
 * with a sender for each).
 */
export interface ChannelSettings {
  email: SmtpSettings | null;
  /** Twilio settings whose `smsFrom` is set. */
  sms: TwilioSettings | null;
  /** Twilio settings whose `whatsappFrom` is set. */
  whatsapp: TwilioSettings | null;
}

/** The channels of the environment's configuration. */
export function channelSettingsOf(config: NotificationsConfig): ChannelSettings {
  const { twilio } = config;
  return {
    email: config.email,
    sms: twilio?.smsFrom ? { ...twilio, whatsappFrom: null } : null,
    whatsapp: twilio?.whatsappFrom ? { ...twilio, smsFrom: null } : null,
  };
}

/**
 * Providers built for the same settings are reused (an SMTP connection pool, a Twilio client), so a process
 * builds them again only when an administrator changes the settings; the few kept are closed when dropped.
 * The key holds secrets: it stays in this map, never in a log.
 */
const cache = new Map<string, NotificationProviders>();
const CACHED_SETTINGS = 4;

/** The providers of these settings, built once per distinct settings. */
export function notificationProviders(settings: ChannelSettings): NotificationProviders {
  const key = JSON.stringify(settings);
  let providers = cache.get(key);
  if (providers) {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, providers);
    return providers;
  }
  providers = createNotificationProviders(settings);
  cache.set(key, providers);
  while (cache.size > CACHED_SETTINGS) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, NotificationProviders];
    cache.delete(oldestKey);
    oldest.close();
  }
  return providers;
}

export function createNotificationProviders(settings: ChannelSettings): NotificationProviders {
  const email = settings.email ? smtpProvider(settings.email) : null;
  const sms = settings.sms ? twilioProvider(settings.sms) : null;
  const whatsapp = settings.whatsapp ? twilioProvider(settings.whatsapp) : null;
  return {
    forChannel(channel) {
      if (channel === 'Email') return email;
      if (channel === 'Sms') return sms;
      return whatsapp;
    },
    close() {
      email?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Email: SMTP through nodemailer
// ---------------------------------------------------------------------------------------------------------

/** SMTP timeouts: connecting, the server's greeting, and silence on an open connection. */
export const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 30_000,
} as const;

function smtpProvider(settings: SmtpSettings): NotificationProvider & { close(): void } {
  const { transport } = settings;
  const secrets =
    'url' in transport ? urlSecrets(transport.url) : transport.password ? [transport.password] : [];
  const mailer = nodemailer.createTransport(
    'url' in transport
      ? { url: transport.url, ...SMTP_TIMEOUTS }
      : {
          host: transport.host,
          port: transport.port,
          secure: transport.secure,
          ...(transport.user && transport.password
            ? { auth: { user: transport.user, pass: transport.password } }
            : {}),
          ...SMTP_TIMEOUTS,
        },
  );
  return {
    name: 'smtp',
    async send(message) {
      if (message.channel !== 'Email' || !message.email) {
        throw new NotificationError('InvalidNotification', 'SMTP sends email only.', false);
      }
      try {
        const info = await mailer.sendMail({
          from: { name: message.email.fromName, address: settings.from },
          to: message.to,
          ...(message.email.replyTo ? { replyTo: message.email.replyTo } : {}),
          subject: message.email.subject,
          text: message.text,
          html: message.email.html,
          headers: { 'Content-Language': message.email.language, 'Auto-Submitted': 'auto-generated' },
          ...(message.email.returnPath
            ? { envelope: { from: message.email.returnPath, to: [message.to] } }
            : {}),
          ...(message.email.attachments?.length
            ? {
                attachments: message.email.attachments.map((attachment) => ({
                  filename: attachment.filename,
                  contentType: attachment.contentType,
                  content: Buffer.from(
                    attachment.content.buffer,
                    attachment.content.byteOffset,
                    attachment.content.byteLength,
                  ),
                })),
              }
            : {}),
        });
        return {
          provider: 'smtp',
          providerMessageId: info.messageId ?? null,
          answer: typeof info.response === 'string' ? info.response : null,
        };
      } catch (error) {
        throw smtpFailure(error, secrets);
      }
    },
    close() {
      mailer.close();
    },
  };
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  permanent?: boolean;
}

/**
 * A 5xx answer (RFC 5321: permanent) to the sender, a recipient or the message is a refusal for good, as is
 * an envelope nodemailer cannot build (an invalid address); everything else — 4xx answers, connection
 * failures, timeouts, TLS, and authentication (an operator can fix credentials) — may pass on a later try.
 */
function smtpFailure(error: unknown, secrets: string[]): NotificationError {
  const { code, responseCode, permanent } = (error ?? {}) as SmtpError;
  const detail = redactedMessage(error, secrets);
  const refused =
    code !== 'EAUTH' && code !== 'ENOAUTH' && (permanent === true || (code === 'EENVELOPE' && !responseCode));
  if (refused) {
    return new NotificationError('ProviderRejected', `The SMTP server refused the message: ${detail}`, false);
  }
  return new NotificationError(
    'ProviderUnavailable',
    `The SMTP server could not take the message: ${detail}`,
    true,
  );
}

function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [decodeURIComponent(parsed.password), parsed.password].filter(Boolean);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------------------
// SMS and WhatsApp: Twilio
// ---------------------------------------------------------------------------------------------------------

/** One request to Twilio waits at most this long. */
export const TWILIO_TIMEOUT_MS = 15_000;
export const TWILIO_DEFAULT_BASE_URL = 'https://api.twilio.com';

interface TwilioMessages {
  create(params: Record<string, string>): Promise<{ sid: string; status?: string }>;
}

function twilioProvider(settings: TwilioSettings): NotificationProvider {
  const secrets = [settings.authToken];
  // The library is large: loaded on the first message, not at start.
  let messages: Promise<TwilioMessages> | null = null;
  return {
    name: 'twilio',
    async send(message) {
      if (message.channel === 'Email') {
        throw new NotificationError('InvalidNotification', 'Twilio sends SMS and WhatsApp only.', false);
      }
      const from = message.channel === 'Sms' ? settings.smsFrom : settings.whatsappFrom;
      if (!from) {
        throw new NotificationError(
          'NoProvider',
          `No Twilio sender is configured for ${message.channel}.`,
          false,
        );
      }
      const params: Record<string, string> =
        message.channel === 'WhatsApp'
          ? { to: `whatsapp:${message.to}`, from: `whatsapp:${from}`, body: message.text }
          : from.startsWith('MG')
            ? { to: message.to, messagingServiceSid: from, body: message.text }
            : { to: message.to, from, body: message.text };
      if (message.statusCallback) params.statusCallback = message.statusCallback;
      messages ??= twilioMessages(settings);
      try {
        const sent = await (await messages).create(params);
        return {
          provider: 'twilio',
          providerMessageId: sent.sid ?? null,
          answer: sent.status ? `status ${sent.status}` : null,
        };
      } catch (error) {
        throw twilioFailure(error, secrets);
      }
    },
  };
}

async function twilioMessages(settings: TwilioSettings): Promise<TwilioMessages> {
  const { default: twilio } = await import('twilio');
  const base = new URL(settings.apiBaseUrl);
  const prefix = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  // twilio 6 builds every URL on https://api.twilio.com; the documented way to send requests elsewhere is
  // the `httpClient` option. This one moves each request to TWILIO_API_BASE_URL (a regional endpoint, a
  // proxy, or the stand-in server of the tests), keeping path and query.
  class BaseUrlRequestClient extends twilio.RequestClient {
    override request<TData>(opts: TwilioRequestClient.RequestOptions<TData>) {
      const uri = new URL(opts.uri);
      return super.request<TData>({ ...opts, uri: `${prefix}${uri.pathname}${uri.search}` });
    }
  }
  const client = twilio(settings.accountSid, settings.authToken, {
    env: {},
    autoRetry: false,
    // Never the library's request logging (TWILIO_LOG_LEVEL=debug would print every request to stdout).
    logLevel: 'warn',
    httpClient:
      prefix === TWILIO_DEFAULT_BASE_URL
        ? new twilio.RequestClient({ timeout: TWILIO_TIMEOUT_MS })
        : new BaseUrlRequestClient({ timeout: TWILIO_TIMEOUT_MS }),
  });
  return client.messages as unknown as TwilioMessages;
}

interface TwilioError {
  status?: number;
  code?: number | string;
}

/**
 * Twilio answers a request it will never accept (an invalid or unreachable number, a sender not allowed to
 * reach it) with 400, 404 or 422: a refusal for good. 401 and 403 (credentials an operator can fix), 429
 * and 5xx answers, timeouts and network errors may pass on a later try.
 */
function twilioFailure(error: unknown, secrets: string[]): NotificationError {
  const { status, code } = (error ?? {}) as TwilioError;
  const detail = redactedMessage(error, secrets);
  const twilioCode = typeof code === 'number' ? ` (Twilio error ${code})` : '';
  if (status === 400 || status === 404 || status === 422) {
    return new NotificationError(
      'ProviderRejected',
      `Twilio refused the message${twilioCode}: ${detail}`,
      false,
    );
  }
  const answered = typeof status === 'number' ? ` with HTTP ${status}` : '';
  return new NotificationError(
    'ProviderUnavailable',
    `Twilio failed${answered}${twilioCode}: ${detail}`,
    true,
  );
}
