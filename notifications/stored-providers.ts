// The providers a message uses: what a platform administrator saved in the backoffice
// (`notification_provider_setting`, docs/backoffice.md "Providers") wins, kind by kind, over the environment's
// configuration (docs/notifications.md), which stays the bootstrap. Read for every message, so a change applies
// to the next one without a restart; the providers themselves are reused while the settings stay the same
// (providers.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NotificationsConfig, SmtpSettings, TwilioSettings } from '../config/config.ts';
import { decryptSecret } from '../config/secrets-encryption.ts';
import { NotificationProviderSetting } from '../db/entities/index.ts';
import type { ProviderKind } from '../domain/backoffice-providers.ts';
import { NotificationError } from './errors.ts';
import { type ChannelSettings, channelSettingsOf, TWILIO_DEFAULT_BASE_URL } from './providers.ts';

export type ProviderSource = 'database' | 'environment' | 'none';

/** What a stored `smtp` row's settings hold (the password is the row's secret). */
export interface StoredSmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  from: string;
}

/** What a stored `sms` or `whatsapp` row's settings hold (the auth token is the row's secret). */
export interface StoredTwilioSettings {
  accountSid: string;
  from: string;
  apiBaseUrl: string | null;
}

export interface EffectiveProviders {
  settings: ChannelSettings;
  sources: Record<ProviderKind, ProviderSource>;
  /** Every secret in `settings`: failures are redacted with them. */
  secrets: string[];
}

export interface StoredProvidersConfig {
  /** The environment's providers; absent: none. */
  notifications?: NotificationsConfig | undefined;
  /** The key secrets at rest are encrypted with; needed only when a stored row has a secret. */
  secretsKey?: (() => Buffer) | undefined;
}

export async function storedProviderRows(em: EntityManager): Promise<NotificationProviderSetting[]> {
  return em.fork().find(NotificationProviderSetting, {}, { orderBy: { kind: 'asc' } });
}

/** The row's secret in clear; a secret this server's key cannot open is a configuration error, said so. */
export function openStoredSecret(
  row: NotificationProviderSetting,
  config: StoredProvidersConfig,
): string | null {
  if (!row.secretEncrypted) return null;
  if (!config.secretsKey) {
    throw new NotificationError(
      'NoProvider',
      `The ${row.kind} provider's secret is stored encrypted, and this process has no secrets key to open it.`,
      false,
    );
  }
  try {
    return decryptSecret(config.secretsKey(), row.secretEncrypted);
  } catch {
    throw new NotificationError(
      'NoProvider',
      `The ${row.kind} provider's stored secret cannot be opened with this server's SECRETS_ENCRYPTION_KEY: ` +
        'save the provider again in the backoffice.',
      false,
    );
  }
}

export function smtpSettingsOf(stored: StoredSmtpSettings, password: string | null): SmtpSettings {
  return {
    transport: {
      host: stored.host,
      port: stored.port,
      secure: stored.secure,
      ...(stored.user && password ? { user: stored.user, password } : {}),
    },
    from: stored.from,
  };
}

export function twilioSettingsOf(
  kind: 'sms' | 'whatsapp',
  stored: StoredTwilioSettings,
  authToken: string | null,
): TwilioSettings {
  return {
    accountSid: stored.accountSid,
    authToken: authToken ?? '',
    smsFrom: kind === 'sms' ? stored.from : null,
    whatsappFrom: kind === 'whatsapp' ? stored.from : null,
    apiBaseUrl: (stored.apiBaseUrl ?? TWILIO_DEFAULT_BASE_URL).replace(/\/+$/, ''),
  };
}

/** The settings each channel uses now, where they come from, and their secrets. */
export function effectiveProviders(
  rows: NotificationProviderSetting[],
  config: StoredProvidersConfig,
): EffectiveProviders {
  const environment = channelSettingsOf(config.notifications ?? { email: null, twilio: null });
  const settings: ChannelSettings = { ...environment };
  const sources: Record<ProviderKind, ProviderSource> = {
    smtp: environment.email ? 'environment' : 'none',
    sms: environment.sms ? 'environment' : 'none',
    whatsapp: environment.whatsapp ? 'environment' : 'none',
  };
  for (const row of rows) {
    const secret = openStoredSecret(row, config);
    if (row.kind === 'smtp') {
      settings.email = smtpSettingsOf(row.settings as unknown as StoredSmtpSettings, secret);
      sources.smtp = 'database';
    } else if (row.kind === 'sms' || row.kind === 'whatsapp') {
      const twilio = twilioSettingsOf(row.kind, row.settings as unknown as StoredTwilioSettings, secret);
      if (row.kind === 'sms') settings.sms = twilio;
      else settings.whatsapp = twilio;
      sources[row.kind] = 'database';
    }
  }
  return { settings, sources, secrets: secretsOf(settings) };
}

/** The passwords and tokens in the settings (and an SMTP URL's password, decoded too). */
export function secretsOf(settings: ChannelSettings): string[] {
  const secrets: string[] = [];
  const transport = settings.email?.transport;
  if (transport && 'password' in transport && transport.password) secrets.push(transport.password);
  if (transport && 'url' in transport) {
    try {
      const password = new URL(transport.url).password;
      if (password) secrets.push(password, decodeURIComponent(password));
    } catch {}
  }
  for (const twilio of [settings.sms, settings.whatsapp]) {
    if (twilio?.authToken) secrets.push(twilio.authToken);
  }
  return secrets;
}
