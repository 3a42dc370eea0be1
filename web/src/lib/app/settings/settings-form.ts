// The organization settings as the settings page edits them (docs/administration.md, "Settings"): the values as
// typed — numbers too, so a wrong one is shown as typed — the fields in the page's order (as the server names
// them: the first refused gets the focus), the page's own check of the whole numbers, and the request.
import type { UpdateOrganizationSettingsRequest } from '../../../../../domain/account.ts';
import type { SupportedLanguage } from '../../../../../domain/vocabulary.ts';
import { type OrganizationSettings, SESSION_TIMEOUT_MINUTES } from '../types.ts';

export interface SettingsValues {
  senderDisplayName: string;
  replyToEmail: string;
  emailFooter: string;
  attachFinalPdfToCompletedEmail: boolean;
  mfaRequired: boolean;
  sessionTimeoutMinutes: string;
  defaultAuthenticationMethod: OrganizationSettings['defaultAuthenticationMethod'];
  defaultExpirationDays: string;
  consentText: string;
  privacyNotice: string;
  'retention.completedDays': string;
  'retention.unfinishedDays': string;
  'retention.deletedDays': string;
  reminderIntervalDays: string;
  maxAutomaticReminders: string;
  expiringSoonDays: string;
  expiredExtensionGraceDays: string;
  defaultLanguage: SupportedLanguage;
  supportedLanguages: SupportedLanguage[];
}

/** The whole numbers of the form: the session timeout must have one, the others may be empty (none). */
const NUMBERS = {
  sessionTimeoutMinutes: true,
  defaultExpirationDays: false,
  'retention.completedDays': false,
  'retention.unfinishedDays': false,
  'retention.deletedDays': false,
  // Reminders and deadlines: empty is none (the interval) or the default (the others).
  reminderIntervalDays: false,
  maxAutomaticReminders: false,
  expiringSoonDays: false,
  expiredExtensionGraceDays: false,
} as const;
type NumberField = keyof typeof NUMBERS;
type TextField = 'senderDisplayName' | 'replyToEmail' | 'emailFooter' | 'consentText' | 'privacyNotice';
type CheckField = 'mfaRequired' | 'attachFinalPdfToCompletedEmail';

/**
 * The values the hints name: the session timeout's bounds, and the largest final PDF the completed email attaches
 * in megabytes (domain/account.ts's COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES, which the settings e2e test compares).
 */
export const HINT_VALUES = { ...SESSION_TIMEOUT_MINUTES, megabytes: 10 };

/** A field of the form: its value's name, its label's and hint's keys, and how it is typed. */
export type SettingsField = { label: string; hint?: string } & (
  | { name: TextField; kind: 'text'; maxlength: number; rows?: number; email?: true }
  | { name: NumberField; kind: 'number' }
  | { name: CheckField; kind: 'check' }
  | { name: 'defaultAuthenticationMethod'; kind: 'select' }
  | { name: 'defaultLanguage'; kind: 'language' }
  | { name: 'supportedLanguages'; kind: 'languages' }
);

/** A group of the form (a fieldset): its legend's key, a hint under it, and its fields. */
export interface SettingsGroup {
  legend: string;
  hint?: string;
  fields: SettingsField[];
}

const key = (name: string) => `admin.settings.${name}`;
/** A field labelled `admin.settings.<label>`, with the hint `admin.settings.<label>Hint`. */
const hinted = (field: SettingsField): SettingsField => ({
  ...field,
  label: key(field.label),
  hint: key(`${field.label}Hint`),
});

/** The page's groups, in order. The hints' values are HINT_VALUES. */
export const SETTINGS_GROUPS: readonly SettingsGroup[] = [
  {
    legend: key('branding'),
    fields: [
      hinted({ name: 'senderDisplayName', kind: 'text', maxlength: 100, label: 'senderDisplayName' }),
      hinted({ name: 'replyToEmail', kind: 'text', maxlength: 254, email: true, label: 'replyToEmail' }),
      hinted({ name: 'emailFooter', kind: 'text', maxlength: 1000, rows: 3, label: 'emailFooter' }),
      hinted({ name: 'attachFinalPdfToCompletedEmail', kind: 'check', label: 'attachFinalPdf' }),
    ],
  },
  {
    legend: key('security'),
    fields: [
      hinted({ name: 'mfaRequired', kind: 'check', label: 'mfaRequired' }),
      hinted({ name: 'sessionTimeoutMinutes', kind: 'number', label: 'sessionTimeout' }),
    ],
  },
  {
    legend: key('signing'),
    fields: [
      hinted({ name: 'defaultAuthenticationMethod', kind: 'select', label: 'defaultAuthentication' }),
      hinted({ name: 'defaultExpirationDays', kind: 'number', label: 'defaultExpiration' }),
      hinted({ name: 'consentText', kind: 'text', maxlength: 5000, rows: 4, label: 'consentText' }),
      hinted({ name: 'privacyNotice', kind: 'text', maxlength: 10000, rows: 4, label: 'privacyNotice' }),
    ],
  },
  {
    legend: key('retention'),
    hint: key('retentionHint'),
    fields: [
      { name: 'retention.completedDays', kind: 'number', label: key('retentionCompleted') },
      { name: 'retention.unfinishedDays', kind: 'number', label: key('retentionUnfinished') },
      hinted({ name: 'retention.deletedDays', kind: 'number', label: 'retentionDeleted' }),
    ],
  },
  {
    legend: key('deadlines'),
    hint: key('deadlinesHint'),
    fields: [
      hinted({ name: 'reminderIntervalDays', kind: 'number', label: 'reminderInterval' }),
      hinted({ name: 'maxAutomaticReminders', kind: 'number', label: 'maxAutomaticReminders' }),
      hinted({ name: 'expiringSoonDays', kind: 'number', label: 'expiringSoon' }),
      hinted({ name: 'expiredExtensionGraceDays', kind: 'number', label: 'expiredGrace' }),
    ],
  },
  {
    legend: key('languages'),
    hint: key('languagesHint'),
    fields: [
      hinted({ name: 'defaultLanguage', kind: 'language', label: 'defaultLanguage' }),
      hinted({ name: 'supportedLanguages', kind: 'languages', label: 'supportedLanguages' }),
    ],
  },
];

/** The fields in the order of the page, as the server names them (the first refused gets the focus). */
export const SETTINGS_FIELDS = SETTINGS_GROUPS.flatMap((group) => group.fields.map((field) => field.name));

export function settingsValues(settings: OrganizationSettings): SettingsValues {
  const text = (value: string | null | undefined) => value ?? '';
  const number = (value: number | null | undefined) =>
    value === null || value === undefined ? '' : String(value);
  return {
    senderDisplayName: text(settings.senderDisplayName),
    replyToEmail: text(settings.replyToEmail),
    emailFooter: text(settings.emailFooter),
    attachFinalPdfToCompletedEmail: settings.attachFinalPdfToCompletedEmail,
    mfaRequired: settings.mfaRequired,
    sessionTimeoutMinutes: number(settings.sessionTimeoutMinutes ?? SESSION_TIMEOUT_MINUTES.default),
    defaultAuthenticationMethod: settings.defaultAuthenticationMethod,
    defaultExpirationDays: number(settings.defaultExpirationDays),
    consentText: text(settings.consentText),
    privacyNotice: text(settings.privacyNotice),
    'retention.completedDays': number(settings.retention.completedDays),
    'retention.unfinishedDays': number(settings.retention.unfinishedDays),
    'retention.deletedDays': number(settings.retention.deletedDays),
    reminderIntervalDays: number(settings.reminderIntervalDays),
    maxAutomaticReminders: number(settings.maxAutomaticReminders),
    expiringSoonDays: number(settings.expiringSoonDays),
    expiredExtensionGraceDays: number(settings.expiredExtensionGraceDays),
    defaultLanguage: settings.defaultLanguage,
    supportedLanguages: [...settings.supportedLanguages],
  };
}

/** The page's refusals of the numbers: a required one left empty, or one that is not a whole number. */
export function numberErrors(
  values: SettingsValues,
  words: { required: string; wholeNumber: string },
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, required] of Object.entries(NUMBERS) as [NumberField, boolean][]) {
    const value = values[field].trim();
    if (value === '' && required) errors[field] = words.required;
    else if (value !== '' && !/^\d+$/.test(value)) errors[field] = words.wholeNumber;
  }
  return errors;
}

/** The request for checked values (numberErrors found nothing). */
export function settingsRequest(values: SettingsValues): UpdateOrganizationSettingsRequest {
  const number = (field: NumberField) => (values[field].trim() === '' ? null : Number(values[field].trim()));
  return {
    senderDisplayName: values.senderDisplayName,
    replyToEmail: values.replyToEmail.trim() === '' ? null : values.replyToEmail,
    emailFooter: values.emailFooter,
    attachFinalPdfToCompletedEmail: values.attachFinalPdfToCompletedEmail,
    mfaRequired: values.mfaRequired,
    sessionTimeoutMinutes: Number(values.sessionTimeoutMinutes.trim()),
    defaultAuthenticationMethod: values.defaultAuthenticationMethod,
    defaultExpirationDays: number('defaultExpirationDays'),
    consentText: values.consentText,
    privacyNotice: values.privacyNotice,
    retention: {
      completedDays: number('retention.completedDays'),
      unfinishedDays: number('retention.unfinishedDays'),
      deletedDays: number('retention.deletedDays'),
    },
    reminderIntervalDays: number('reminderIntervalDays'),
    maxAutomaticReminders: number('maxAutomaticReminders'),
    expiringSoonDays: number('expiringSoonDays'),
    expiredExtensionGraceDays: number('expiredExtensionGraceDays'),
    defaultLanguage: values.defaultLanguage,
    supportedLanguages: values.supportedLanguages,
  };
}

/** The supported languages with `language` ticked or not, in Sigil's order. */
export function withLanguage(
  languages: readonly SupportedLanguage[],
  language: SupportedLanguage,
  on: boolean,
  order: readonly SupportedLanguage[],
): SupportedLanguage[] {
  return order.filter((candidate) => (candidate === language ? on : languages.includes(candidate)));
}
