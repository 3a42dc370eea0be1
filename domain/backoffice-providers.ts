// The platform's notification providers as a platform administrator sets them in the backoffice
// (docs/backoffice.md, "Providers"): the SMTP server for email, and Twilio for SMS and for WhatsApp. Stored in
// PostgreSQL, the secret (SMTP password, Twilio auth token) encrypted at rest and never answered — only whether
// one is set. Settings stored here take precedence over the environment variables (docs/notifications.md),
// which stay the bootstrap; a change applies to the next message without a restart.
import { z } from 'zod';
import { EmailAddress } from './account.ts';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText } from './common.ts';
import { E164 } from './envelope.ts';

export const PROVIDER_KINDS = ['smtp', 'sms', 'whatsapp'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/**
 * A secret in a PUT: absent keeps the stored one, null removes it, a string replaces it. At most 500
 * characters of text PostgreSQL can store.
 */
const writeOnlySecret = (field: string) =>
  safeText()
    .min(1, `${field} must not be empty (null removes it; leave it out to keep the stored one)`)
    .max(500, `${field} must be at most 500 characters`)
    .nullable()
    .optional()
    .describe('Write-only. Absent: the stored one stays; null: none; a string: the new one. Never answered');

/** A host name or an IP address, as people type them in an SMTP client's settings. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[?[0-9A-Fa-f:.]+\]?$/;

export const UpdateSmtpSettingsRequest = z
  .strictObject({
    host: z
      .string()
      .trim()
      .min(1, 'host is required')
      .max(253, 'host must be at most 253 characters')
      .regex(HOST, 'host must be a host name or an IP address, such as smtp.example.com'),
    port: z
      .number({ message: 'port must be a whole number from 1 to 65535' })
      .int('port must be a whole number from 1 to 65535')
      .min(1, 'port must be a whole number from 1 to 65535')
      .max(65_535, 'port must be a whole number from 1 to 65535'),
    secure: z
      .boolean({ message: 'secure must be true or false' })
      .describe(
        'true: TLS from the first byte (usually port 465); false: STARTTLS when the server offers it',
      ),
    user: safeText()
      .trim()
      .min(1, 'user must not be empty (null: no sign-in)')
      .max(200, 'user must be at most 200 characters')
      .nullable()
      .describe('The SMTP user name; null: the server takes mail without signing in'),
    password: writeOnlySecret('password'),
    from: EmailAddress.describe('The address messages come from (the display name is the organization’s)'),
  })
  .meta({ id: 'UpdateSmtpSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });
export type UpdateSmtpSettingsRequest = z.infer<typeof UpdateSmtpSettingsRequest>;

const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

const twilioFields = {
  accountSid: z
    .string()
    .trim()
    .regex(ACCOUNT_SID, 'accountSid must be a Twilio account SID: AC followed by 32 hexadecimal digits'),
  authToken: writeOnlySecret('authToken'),
  apiBaseUrl: z
    .url({ protocol: /^https?$/, message: 'apiBaseUrl must be an http or https URL' })
    .max(500, 'apiBaseUrl must be at most 500 characters')
    .nullable()
    .optional()
    .describe(
      'Another Twilio API address (a regional one or a proxy); absent or null: https://api.twilio.com',
    ),
};

export const UpdateSmsSettingsRequest = z
  .strictObject({
    ...twilioFields,
    from: z
      .string()
      .trim()
      .refine(
        (value) => E164.test(value) || MESSAGING_SERVICE_SID.test(value),
        'from must be a phone number in E.164 form (+14155550100) or a Messaging Service SID (MG…)',
      )
      .describe('The sending number (E.164) or a Twilio Messaging Service SID (MG…)'),
  })
  .meta({ id: 'UpdateSmsSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });
export type UpdateSmsSettingsRequest = z.infer<typeof UpdateSmsSettingsRequest>;

export const UpdateWhatsAppSettingsRequest = z
  .strictObject({
    ...twilioFields,
    from: z
      .string()
      .trim()
      .regex(E164, 'from must be the WhatsApp sender’s number in E.164 form, such as +14155550100')
      .describe('The WhatsApp sender’s number (E.164)'),
  })
  .meta({ id: 'UpdateWhatsAppSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });
export type UpdateWhatsAppSettingsRequest = z.infer<typeof UpdateWhatsAppSettingsRequest>;

export const TestSmtpSettingsRequest = z
  .strictObject({ to: EmailAddress.describe('Where the test email goes') })
  .meta({ id: 'TestSmtpSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });

const testNumber = z
  .string()
  .trim()
  .regex(E164, 'to must be a phone number in E.164 form, such as +972501234567')
  .describe('The number the test message goes to (E.164)');

export const TestSmsSettingsRequest = z
  .strictObject({ to: testNumber })
  .meta({ id: 'TestSmsSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });
export const TestWhatsAppSettingsRequest = z
  .strictObject({ to: testNumber })
  .meta({ id: 'TestWhatsAppSettingsRequest', ...APPLICATION_DOCUMENT_ONLY });

/** Where the settings a message uses come from. */
export const PROVIDER_SOURCES = ['database', 'environment', 'none'] as const;

const providerMeta = {
  source: z
    .enum(PROVIDER_SOURCES)
    .describe(
      '`database`: set in the backoffice (wins over the environment); `environment`: the server’s environment ' +
        'variables; `none`: no provider (development and test capture the messages; production refuses them)',
    ),
  updatedAt: IsoDateTime.nullable().describe('When an administrator last saved them (database only)'),
  updatedBy: z.string().nullable().describe('Who saved them (database only)'),
};

export const SmtpSettingsView = z
  .object({
    ...providerMeta,
    host: z.string().nullable(),
    port: z.number().int().nullable(),
    secure: z.boolean().nullable(),
    user: z.string().nullable(),
    from: z.string().nullable(),
    passwordSet: z.boolean(),
  })
  .meta({ id: 'SmtpSettings', ...APPLICATION_DOCUMENT_ONLY });
export type SmtpSettingsView = z.infer<typeof SmtpSettingsView>;

export const TwilioSettingsView = z
  .object({
    ...providerMeta,
    accountSid: z.string().nullable(),
    from: z.string().nullable(),
    apiBaseUrl: z.string().nullable(),
    authTokenSet: z.boolean(),
  })
  .meta({ id: 'TwilioChannelSettings', ...APPLICATION_DOCUMENT_ONLY });
export type TwilioSettingsView = z.infer<typeof TwilioSettingsView>;

export const ProviderTestResult = z
  .object({
    sent: z.boolean().describe('Whether the provider accepted the message'),
    provider: z.enum(['smtp', 'twilio']).nullable(),
    source: z.enum(PROVIDER_SOURCES),
    providerMessageId: z.string().nullable().describe('SMTP Message-ID or Twilio message SID'),
    answer: z
      .string()
      .describe('What the provider answered: its acceptance (SMTP reply, Twilio status) or why it refused'),
  })
  .meta({ id: 'ProviderTestResult', ...APPLICATION_DOCUMENT_ONLY });
export type ProviderTestResult = z.infer<typeof ProviderTestResult>;
