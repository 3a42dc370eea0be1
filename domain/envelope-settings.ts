// An envelope's reminder and deadline settings (docs/envelope-lifecycle.md, "Reminders and deadline warnings"):
// automatic reminders (every how many days, at most how many), the "expiring soon" warning to recipients (how
// many days before the deadline; 0: none) and the grace window after expiry in which an extension revives the
// envelope. The organization holds the defaults (settings), each envelope its own copy, written when it is
// created and changed while it is open by the workflow Update `updateEnvelopeSettings`.
import { z } from 'zod';

/** The bounds of each setting (the organization's columns are checked with the same ones, migration 0004). */
export const DEADLINE_SETTING_LIMITS = {
  reminderIntervalDays: { min: 1, max: 365 },
  maxAutomaticReminders: { min: 0, max: 50 },
  expiringSoonDays: { min: 0, max: 365 },
  expiredExtensionGraceDays: { min: 0, max: 365 },
} as const;

export type DeadlineSettingName = keyof typeof DEADLINE_SETTING_LIMITS;

/** The four settings as an envelope holds them. */
export const DeadlineSettings = z
  .object({
    /** Days between automatic reminders, counted from the send; null: no automatic reminders. */
    reminderIntervalDays: z.number().int().nullable(),
    /** The most automatic reminders one envelope gets (0: none). */
    maxAutomaticReminders: z.number().int(),
    /** Days before the deadline when recipients who can still act are told it is near; 0: no warning. */
    expiringSoonDays: z.number().int(),
    /** Days after expiry during which an extension revives the envelope; 0: it ends at expiry. */
    expiredExtensionGraceDays: z.number().int(),
  })
  .meta({ id: 'DeadlineSettings' });
export type DeadlineSettings = z.output<typeof DeadlineSettings>;

/** What a new organization has, and what `null` sets a setting back to. */
export const DEADLINE_SETTING_DEFAULTS = {
  reminderIntervalDays: null,
  maxAutomaticReminders: 3,
  expiringSoonDays: 0,
  expiredExtensionGraceDays: 30,
} as const satisfies DeadlineSettings;

/** A whole number of days (or a count) within the setting's bounds, with a message naming the field. */
export function deadlineSetting(name: DeadlineSettingName, field: string = name) {
  const { min, max } = DEADLINE_SETTING_LIMITS[name];
  const unit = name === 'maxAutomaticReminders' ? 'a whole number' : 'a whole number of days';
  return z
    .number({ message: `${field} must be ${unit}` })
    .int(`${field} must be ${unit}`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`);
}

/**
 * The settings a request may give (an envelope's create, a change while it is open): each optional (absent:
 * unchanged, or the organization's default on a create); `reminderIntervalDays: null` turns automatic reminders
 * off.
 */
export const DeadlineSettingsInput = z.object({
  reminderIntervalDays: deadlineSetting('reminderIntervalDays')
    .nullable()
    .optional()
    .describe('Days between automatic reminders; null: none. Absent: the organization default'),
  maxAutomaticReminders: deadlineSetting('maxAutomaticReminders')
    .optional()
    .describe('The most automatic reminders (0: none). Absent: the organization default'),
  expiringSoonDays: deadlineSetting('expiringSoonDays')
    .optional()
    .describe(
      'Days before the deadline when recipients who can still act are warned; 0: no warning. Absent: the organization default',
    ),
  expiredExtensionGraceDays: deadlineSetting('expiredExtensionGraceDays')
    .optional()
    .describe(
      'Days after expiry during which an extension revives the envelope; 0: none. Absent: the organization default',
    ),
});
export type DeadlineSettingsInput = z.output<typeof DeadlineSettingsInput>;

/** The body of a change while the envelope is open: at least one setting. */
export const UpdateDeadlineSettingsRequest = DeadlineSettingsInput.strict()
  .refine((value) => Object.values(value).some((setting) => setting !== undefined), {
    message: 'give at least one setting to change',
  })
  // At least one setting, stated in the OpenAPI document too (JSON has no undefined: a member given is a setting).
  .meta({ id: 'UpdateDeadlineSettingsRequest', minProperties: 1 });
export type UpdateDeadlineSettingsRequest = z.input<typeof UpdateDeadlineSettingsRequest>;

/** A request's settings over the defaults: what an envelope created with them holds. */
export function resolveDeadlineSettings(
  defaults: DeadlineSettings,
  given: Partial<DeadlineSettingsInput> = {},
): DeadlineSettings {
  return {
    reminderIntervalDays:
      given.reminderIntervalDays === undefined ? defaults.reminderIntervalDays : given.reminderIntervalDays,
    maxAutomaticReminders: given.maxAutomaticReminders ?? defaults.maxAutomaticReminders,
    expiringSoonDays: given.expiringSoonDays ?? defaults.expiringSoonDays,
    expiredExtensionGraceDays: given.expiredExtensionGraceDays ?? defaults.expiredExtensionGraceDays,
  };
}
