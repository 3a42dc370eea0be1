// `sigil envelope settings`: an envelope's reminder and deadline settings (docs/envelope-lifecycle.md,
// "Reminders and deadline warnings"), shown, or changed on the same service the envelope page uses (a Draft's in
// place, an open envelope's by its workflow's Update).
import type { Config } from '../../config/config.ts';
import type { DeadlineSettings } from '../../domain/envelope-settings.ts';
import type { DataContext, ServiceContext } from '../../services/context.ts';
import { InvalidRequest } from '../../services/errors.ts';

export const ENVELOPE_SETTINGS_CLI_USAGE = `  envelope settings --org ORG_ID --envelope ENVELOPE_ID [--reminder-interval-days N|none]
                  [--max-automatic-reminders N] [--expiring-soon-days N] [--expired-extension-grace-days N]
                  shows the envelope's reminder and deadline settings; with an option, changes them
`;

export const ENVELOPE_SETTINGS_CLI_OPTIONS = {
  'reminder-interval-days': { type: 'string' },
  'max-automatic-reminders': { type: 'string' },
  'expiring-soon-days': { type: 'string' },
  'expired-extension-grace-days': { type: 'string' },
} as const;

interface EnvelopeSettingsCliValues {
  org?: string;
  envelope?: string;
  'reminder-interval-days'?: string;
  'max-automatic-reminders'?: string;
  'expiring-soon-days'?: string;
  'expired-extension-grace-days'?: string;
}

interface CliRuntime {
  data(): Promise<DataContext & { config: Config }>;
  services(): Promise<ServiceContext & { config: Config }>;
}

type Output = { json: unknown; text: string };

function required(values: EnvelopeSettingsCliValues, name: 'org' | 'envelope'): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidRequest(`--${name} is required.`);
  return value;
}

/** An option's number as given (the service's schema refuses what is not a whole number in bounds). */
function numberOption(value: string | undefined, none = false): number | null | undefined {
  if (value === undefined) return undefined;
  if (none && value.trim() === 'none') return null;
  return value.trim() === '' ? Number.NaN : Number(value);
}

export function settingsText(envelopeId: string, settings: DeadlineSettings | null): string {
  if (!settings) return `envelope ${envelopeId}: no settings of its own (sent with its organization's)`;
  const reminders =
    settings.reminderIntervalDays && settings.maxAutomaticReminders > 0
      ? `every ${settings.reminderIntervalDays} day(s), at most ${settings.maxAutomaticReminders}`
      : 'off';
  return [
    `envelope ${envelopeId}`,
    `  automatic reminders   ${reminders}`,
    `  expiring-soon warning ${settings.expiringSoonDays > 0 ? `${settings.expiringSoonDays} day(s) before the deadline` : 'off'}`,
    `  grace after expiry    ${settings.expiredExtensionGraceDays > 0 ? `${settings.expiredExtensionGraceDays} day(s)` : 'none'}`,
  ].join('\n');
}

export const ENVELOPE_SETTINGS_COMMANDS: Record<
  string,
  (values: EnvelopeSettingsCliValues, runtime: CliRuntime) => Promise<Output>
> = {
  'envelope settings': async (values, runtime) => {
    const organizationId = required(values, 'org');
    const envelopeId = required(values, 'envelope');
    const change = Object.fromEntries(
      Object.entries({
        reminderIntervalDays: numberOption(values['reminder-interval-days'], true),
        maxAutomaticReminders: numberOption(values['max-automatic-reminders']),
        expiringSoonDays: numberOption(values['expiring-soon-days']),
        expiredExtensionGraceDays: numberOption(values['expired-extension-grace-days']),
      }).filter(([, value]) => value !== undefined),
    );
    let settings: DeadlineSettings | null;
    if (Object.keys(change).length > 0) {
      settings = await (
        await import('../../services/envelopes/update-envelope-settings.ts')
      ).updateEnvelopeSettings(await runtime.services(), organizationId, envelopeId, change);
    } else {
      const { envelope } = await (await import('../../services/envelopes/find-envelope.ts')).findEnvelope(
        await runtime.data(),
        organizationId,
        envelopeId,
      );
      settings = envelope.deadlineSettings ?? null;
    }
    return { json: { envelopeId, deadlineSettings: settings }, text: settingsText(envelopeId, settings) };
  },
};
