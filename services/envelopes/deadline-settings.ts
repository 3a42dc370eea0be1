// An envelope's reminder and deadline settings (domain/envelope-settings.ts) as the use cases need them: the
// organization's defaults, an envelope's own (or, for one created before envelopes kept them, its
// organization's), and the workflow's form of them.
import type { Envelope, Organization } from '../../db/entities/index.ts';
import type { DeadlineSettings } from '../../domain/envelope-settings.ts';
import type { EnvelopeSettings } from '../../workflows/contracts.ts';

export type OrganizationDeadlineDefaults = Pick<
  Organization,
  'reminderIntervalDays' | 'maxAutomaticReminders' | 'expiredExtensionGraceDays'
> &
  Partial<Pick<Organization, 'expiringSoonDays'>>;

/** The organization's defaults for new envelopes (its settings). */
export function organizationDeadlineSettings(organization: OrganizationDeadlineDefaults): DeadlineSettings {
  return {
    reminderIntervalDays: organization.reminderIntervalDays ?? null,
    maxAutomaticReminders: organization.maxAutomaticReminders,
    expiringSoonDays: organization.expiringSoonDays ?? 0,
    expiredExtensionGraceDays: organization.expiredExtensionGraceDays,
  };
}

/** The envelope's own settings; for one created before envelopes kept them, its organization's. */
export function envelopeDeadlineSettings(
  envelope: Partial<Pick<Envelope, 'deadlineSettings'>>,
  organization: OrganizationDeadlineDefaults,
): DeadlineSettings {
  return envelope.deadlineSettings ?? organizationDeadlineSettings(organization);
}

/** The settings as the envelope workflow holds them: automatic reminders need an interval and a count. */
export function workflowSettings(settings: DeadlineSettings): EnvelopeSettings {
  return {
    automaticReminders:
      settings.reminderIntervalDays && settings.maxAutomaticReminders > 0
        ? { everyDays: settings.reminderIntervalDays, max: settings.maxAutomaticReminders }
        : null,
    expiringSoonDays: settings.expiringSoonDays,
    expiredExtensionGraceDays: settings.expiredExtensionGraceDays,
  };
}
