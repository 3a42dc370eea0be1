// The send page's reminder and deadline settings as typed: prefilled from the organization's settings, checked
// as whole numbers, and sent with the create (each empty one: none for the interval, the organization's for the
// others).
import type { DeadlineSettings } from '../../../../../domain/envelope-settings.ts';

export const DEADLINE_FIELDS = [
  'reminderIntervalDays',
  'maxAutomaticReminders',
  'expiringSoonDays',
  'expiredExtensionGraceDays',
] as const;
export type DeadlineField = (typeof DEADLINE_FIELDS)[number];

export function deadlineValues(settings: DeadlineSettings): Record<DeadlineField, string> {
  const text = (value: number | null) => (value === null ? '' : String(value));
  return {
    reminderIntervalDays: text(settings.reminderIntervalDays),
    maxAutomaticReminders: text(settings.maxAutomaticReminders),
    expiringSoonDays: text(settings.expiringSoonDays),
    expiredExtensionGraceDays: text(settings.expiredExtensionGraceDays),
  };
}

/** The page's refusals: what is typed must be a whole number. */
export function deadlineErrors(
  values: Record<DeadlineField, string>,
  wholeNumber: string,
): Record<string, string> {
  return Object.fromEntries(
    DEADLINE_FIELDS.filter((field) => values[field].trim() !== '' && !/^\d+$/.test(values[field].trim())).map(
      (field) => [field, wholeNumber],
    ),
  );
}

/** The create's part: the interval (null when empty) and each other setting given. */
export function deadlineRequest(values: Record<DeadlineField, string>): Partial<DeadlineSettings> {
  const number = (field: DeadlineField) =>
    values[field].trim() === '' ? undefined : Number(values[field].trim());
  return {
    reminderIntervalDays: number('reminderIntervalDays') ?? null,
    ...Object.fromEntries(
      (['maxAutomaticReminders', 'expiringSoonDays', 'expiredExtensionGraceDays'] as const)
        .map((field) => [field, number(field)] as const)
        .filter(([, value]) => value !== undefined),
    ),
  };
}
