// The notification providers in the backoffice (docs/backoffice.md, "Providers"): what each kind (SMTP, SMS,
// WhatsApp) uses now and where it comes from, a platform administrator's change (stored with its secret
// encrypted, recorded in the backoffice audit log without the secret), and a test send to an address or number
// the administrator types, answered with what the provider said.
import { encryptSecret } from '../../config/secrets-encryption.ts';
import { NotificationProviderSetting } from '../../db/entities/index.ts';
import type {
  ProviderKind,
  ProviderTestResult,
  SmtpSettingsView,
  TwilioSettingsView,
  UpdateSmsSettingsRequest,
  UpdateSmtpSettingsRequest,
  UpdateWhatsAppSettingsRequest,
} from '../../domain/backoffice-providers.ts';
import type { MessageChannel } from '../../domain/vocabulary.ts';
import { deliver, routeFor } from '../../notifications/deliver.ts';
import { NotificationError, redactedMessage } from '../../notifications/errors.ts';
import { notificationProviders } from '../../notifications/providers.ts';
import {
  effectiveProviders,
  type StoredProvidersConfig,
  type StoredSmtpSettings,
  type StoredTwilioSettings,
  storedProviderRows,
} from '../../notifications/stored-providers.ts';
import { secretsKeyOf } from '../accounts/mfa-totp.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext, ServiceConfig } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

type ProvidersContext = DataContext & SessionClock & { config: ServiceConfig };

const CHANNEL: Record<ProviderKind, MessageChannel> = { smtp: 'Email', sms: 'Sms', whatsapp: 'WhatsApp' };

function storedConfig(ctx: ProvidersContext): StoredProvidersConfig {
  return { notifications: ctx.config.notifications, secretsKey: ctx.config.secretsKey };
}

async function rowOf(ctx: DataContext, kind: ProviderKind) {
  return ctx.em.findOne(NotificationProviderSetting, { kind });
}

/** Where stored settings came from: the database, when and by whom they were last saved. */
function storedOrigin(row: NotificationProviderSetting) {
  return {
    source: 'database' as const,
    updatedAt: row.updatedAt.toISOString(),
    updatedBy: row.updatedByEmail ?? null,
  };
}

/** Settings not stored: taken from the environment's variables, or none at all. */
const unstoredOrigin = (source: 'environment' | 'none') => ({ source, updatedAt: null, updatedBy: null });

/** Whether the stored settings hold a secret (only that: the secret itself is never shown). */
const secretSet = (row: NotificationProviderSetting) =>
  row.secretEncrypted !== null && row.secretEncrypted !== undefined;

/** What SMTP uses now: the stored settings, else the environment's (never the password: only whether set). */
export async function smtpSettings(ctx: ProvidersContext): Promise<SmtpSettingsView> {
  const row = await rowOf(ctx, 'smtp');
  if (row) {
    const stored = row.settings as unknown as StoredSmtpSettings;
    return {
      ...storedOrigin(row),
      host: stored.host,
      port: stored.port,
      secure: stored.secure,
      user: stored.user,
      from: stored.from,
      passwordSet: secretSet(row),
    };
  }
  const email = ctx.config.notifications?.email ?? null;
  if (!email) {
    return {
      ...unstoredOrigin('none'),
      host: null,
      port: null,
      secure: null,
      user: null,
      from: null,
      passwordSet: false,
    };
  }
  const { transport } = email;
  if ('url' in transport) {
    // SMTP_URL: its parts without the password.
    const url = new URL(transport.url);
    return {
      ...unstoredOrigin('environment'),
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      user: url.username ? decodeURIComponent(url.username) : null,
      from: email.from,
      passwordSet: url.password !== '',
    };
  }
  return {
    ...unstoredOrigin('environment'),
    host: transport.host,
    port: transport.port,
    secure: transport.secure,
    user: transport.user ?? null,
    from: email.from,
    passwordSet: Boolean(transport.password),
  };
}

/** What SMS or WhatsApp uses now: the stored settings, else the environment's Twilio account and sender. */
export async function twilioChannelSettings(
  ctx: ProvidersContext,
  kind: 'sms' | 'whatsapp',
): Promise<TwilioSettingsView> {
  const row = await rowOf(ctx, kind);
  if (row) {
    const stored = row.settings as unknown as StoredTwilioSettings;
    return {
      ...storedOrigin(row),
      accountSid: stored.accountSid,
      from: stored.from,
      apiBaseUrl: stored.apiBaseUrl,
      authTokenSet: secretSet(row),
    };
  }
  const twilio = ctx.config.notifications?.twilio ?? null;
  const from = kind === 'sms' ? twilio?.smsFrom : twilio?.whatsappFrom;
  if (!twilio || !from) {
    return {
      ...unstoredOrigin('none'),
      accountSid: null,
      from: null,
      apiBaseUrl: null,
      authTokenSet: false,
    };
  }
  return {
    ...unstoredOrigin('environment'),
    accountSid: twilio.accountSid,
    from,
    apiBaseUrl: twilio.apiBaseUrl,
    authTokenSet: twilio.authToken !== '',
  };
}

/**
 * Stores a kind's settings. The secret: absent keeps the stored one, null removes it, a string replaces it
 * (encrypted with the secrets key). The audit entry names what changed, never the secret.
 */
async function saveProvider(
  ctx: ProvidersContext,
  actor: BackofficeActor,
  kind: ProviderKind,
  settings: StoredSmtpSettings | StoredTwilioSettings,
  secret: string | null | undefined,
): Promise<void> {
  const now = nowOf(ctx);
  const row = await rowOf(ctx, kind);
  const secretEncrypted =
    secret === undefined
      ? (row?.secretEncrypted ?? null)
      : secret === null
        ? null
        : encryptSecret(secretsKeyOf(ctx.config), secret);
  const updatedByEmail = actor.kind === 'platform_admin' ? actor.admin.email : null;
  if (row) {
    row.settings = settings as unknown as Record<string, unknown>;
    row.secretEncrypted = secretEncrypted;
    row.updatedAt = now;
    row.updatedByEmail = updatedByEmail;
  } else {
    ctx.em.create(NotificationProviderSetting, {
      kind,
      settings: settings as unknown as Record<string, unknown>,
      secretEncrypted,
      updatedAt: now,
      updatedByEmail,
    });
  }
  recordBackofficeEvent(ctx, actor, {
    action: `provider.${kind}.updated`,
    details: {
      ...settings,
      secret: secret === undefined ? 'kept' : secret === null ? 'removed' : 'replaced',
    },
  });
  await ctx.em.flush();
}

export async function updateSmtpSettings(
  ctx: ProvidersContext,
  actor: BackofficeActor,
  input: UpdateSmtpSettingsRequest,
): Promise<SmtpSettingsView> {
  const { password, ...settings } = input;
  await saveProvider(ctx, actor, 'smtp', settings, password);
  return smtpSettings(ctx);
}

export async function updateTwilioChannelSettings(
  ctx: ProvidersContext,
  actor: BackofficeActor,
  kind: 'sms' | 'whatsapp',
  input: UpdateSmsSettingsRequest | UpdateWhatsAppSettingsRequest,
): Promise<TwilioSettingsView> {
  const { authToken, apiBaseUrl, ...rest } = input;
  if (ctx.config.env === 'production' && apiBaseUrl?.startsWith('http://')) {
    throw new InvalidRequest('apiBaseUrl must be an https:// URL in production.', [
      { field: 'body.apiBaseUrl', message: 'must be https:// in production' },
    ]);
  }
  await saveProvider(
    ctx,
    actor,
    kind,
    { ...rest, apiBaseUrl: apiBaseUrl ? apiBaseUrl.replace(/\/+$/, '') : null },
    authToken,
  );
  return twilioChannelSettings(ctx, kind);
}

const TEST_TEXT = {
  smtp: 'This is a test message from the Sigil backoffice: the email provider works.',
  sms: 'Sigil: a test SMS from the backoffice. The SMS provider works.',
  whatsapp: 'Sigil: a test WhatsApp message from the backoffice. The WhatsApp provider works.',
} as const;

/**
 * Sends one test message through what the kind uses now (stored settings, else the environment's) and answers
 * what the provider said — its acceptance, or why it refused (redacted of every secret). In development and
 * test, a kind without a provider goes to the development capture, as every message does.
 */
export async function testProvider(
  ctx: ProvidersContext,
  actor: BackofficeActor,
  kind: ProviderKind,
  to: string,
): Promise<ProviderTestResult> {
  const channel = CHANNEL[kind];
  let secrets: string[] = [];
  let source: ProviderTestResult['source'] = 'none';
  let provider: ProviderTestResult['provider'] = null;
  let result: ProviderTestResult;
  try {
    const effective = effectiveProviders(await storedProviderRows(ctx.em), storedConfig(ctx));
    secrets = effective.secrets;
    source = effective.sources[kind];
    const route = routeFor(
      { env: ctx.config.env, providers: notificationProviders(effective.settings), secrets },
      channel,
    );
    provider = route.type === 'provider' ? route.provider.name : null;
    const sent = await deliver(
      ctx.em.fork(),
      route,
      {
        channel,
        to,
        text: TEST_TEXT[kind],
        ...(kind === 'smtp'
          ? {
              email: {
                subject: 'Sigil: a test message',
                html: `<!doctype html><html lang="en"><body><p>${TEST_TEXT.smtp}</p></body></html>`,
                fromName: 'Sigil',
                replyTo: null,
                language: 'en',
              },
            }
          : {}),
      },
      { kind: 'provider_test' },
    );
    result = {
      sent: true,
      provider,
      source,
      providerMessageId: sent.providerMessageId,
      answer:
        route.type === 'capture'
          ? 'No provider is configured: the message went to the development capture (GET /api/dev/notifications).'
          : (sent.answer ?? 'accepted'),
    };
  } catch (error) {
    const message = error instanceof NotificationError ? error.message : redactedMessage(error, secrets);
    result = { sent: false, provider, source, providerMessageId: null, answer: message };
  }
  recordBackofficeEvent(ctx, actor, {
    action: `provider.${kind}.tested`,
    details: { to, sent: result.sent, source: result.source, answer: result.answer },
  });
  await ctx.em.flush();
  return result;
}
