// What the backoffice's providers page shares (docs/backoffice.md, "Providers"): the server's shapes
// (domain/backoffice-providers.ts, imported as types only: the browser bundle gets no zod), where a kind's
// settings come from in words with its badge tone, and the senders' formats the forms check before the
// server does again.
import type { z } from 'zod';
import type * as providers from '../../../../../domain/backoffice-providers.ts';

export type ProviderKind = providers.ProviderKind;
export type ProviderSource = (typeof providers.PROVIDER_SOURCES)[number];
export type SmtpSettings = z.output<typeof providers.SmtpSettingsView>;
export type TwilioSettings = z.output<typeof providers.TwilioSettingsView>;
export type ProviderTestResult = z.output<typeof providers.ProviderTestResult>;
export type SmtpChange = z.input<typeof providers.UpdateSmtpSettingsRequest>;
export type TwilioChange = z.input<typeof providers.UpdateSmsSettingsRequest>;

/** Where a kind's settings come from: its words, what that means, and its badge's tone. */
export const SOURCES: Record<ProviderSource, { key: string; hint: string; tone: string }> = {
  database: {
    key: 'backoffice.providers.source.database',
    hint: 'backoffice.providers.sourceHint.database',
    tone: 'good',
  },
  environment: {
    key: 'backoffice.providers.source.environment',
    hint: 'backoffice.providers.sourceHint.environment',
    tone: 'info',
  },
  none: {
    key: 'backoffice.providers.source.none',
    hint: 'backoffice.providers.sourceHint.none',
    tone: 'warn',
  },
};

/** A phone number in E.164 form (+14155550100), as the server checks it. */
export const E164 = /^\+[1-9]\d{6,14}$/;
/** A Twilio account SID: AC and 32 hexadecimal digits. */
export const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
/** A Twilio Messaging Service SID: MG and 32 hexadecimal digits (an SMS sender). */
export const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
/** The longest secret (SMTP password, Twilio auth token) the server stores. */
export const SECRET_MAX = 500;

/** An email address as the forms check it (the server checks it again). */
export const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const TITLE_KEYS: Record<ProviderKind, string> = {
  smtp: 'backoffice.providers.smtp.title',
  sms: 'backoffice.providers.sms.title',
  whatsapp: 'backoffice.providers.whatsapp.title',
};

/** A provider's secret by its name in the PUT: the SMTP password or a Twilio auth token. */
export type SecretName = 'password' | 'authToken';

/** A secret's words: its name, its name when replacing it, the hint when none is set, the box that removes it. */
export const SECRET_KEYS: Record<
  SecretName,
  { name: string; replace: string; none: string; remove: string }
> = {
  password: {
    name: 'backoffice.providers.smtp.password',
    replace: 'backoffice.providers.smtp.newPassword',
    none: 'backoffice.providers.smtp.passwordNone',
    remove: 'backoffice.providers.smtp.removePassword',
  },
  authToken: {
    name: 'backoffice.providers.twilio.authToken',
    replace: 'backoffice.providers.twilio.newAuthToken',
    none: 'backoffice.providers.twilio.authTokenNone',
    remove: 'backoffice.providers.twilio.removeAuthToken',
  },
};

/** A provider's secret as typed: a new one, or the stored one removed. */
export interface SecretChoice {
  value: string;
  remove: boolean;
}

/** The secret as the PUT takes it: absent keeps the stored one, null removes it, a string replaces it. */
export function secretOf(secret: SecretChoice): { value?: string | null } {
  if (secret.remove) return { value: null };
  return secret.value === '' ? {} : { value: secret.value };
}

/** A text field of a provider's settings: `<kind>-<name>`, named as the server names it. */
export interface ProviderInput {
  name: string;
  label: string;
  hint: string;
  maxlength: number;
  type?: 'text' | 'email' | 'url';
  inputmode?: 'numeric';
  /** The input's width: a port's few digits, or the whole row. */
  size?: 'short' | 'wide';
}

/** What a test send goes to: an email address (SMTP) or a phone number (SMS, WhatsApp) — its words, and the form's
 * check of what was typed (the server checks it again). */
export const TEST_TARGETS = {
  email: {
    label: 'backoffice.providers.test.email',
    hint: 'backoffice.providers.test.emailHint',
    invalid: 'backoffice.providers.test.emailInvalid',
    pattern: EMAIL,
  },
  tel: {
    label: 'backoffice.providers.test.number',
    hint: 'backoffice.providers.test.numberHint',
    invalid: 'backoffice.providers.test.numberInvalid',
    pattern: E164,
  },
} as const;

/** A provider's test send (ProviderTest): where it goes, its button's words, and the call. */
export interface ProviderTestSend {
  type: keyof typeof TEST_TARGETS;
  submitLabel: string;
  send: (to: string) => Promise<ProviderTestResult>;
}
