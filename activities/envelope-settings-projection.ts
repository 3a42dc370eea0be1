// The projection's part of `envelope.settings_updated` (docs/envelope-lifecycle.md, "Reminders and deadline
// warnings"): the envelope row keeps the settings the workflow now holds, so the document page, the API and the
// CLI read them from PostgreSQL like every other projected fact.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeadlineSettings } from '../domain/envelope-settings.ts';
import type { EnvelopeTransition } from '../workflows/contracts.ts';

/** The settings an `envelope.settings_updated` event's data holds, or null when it holds none. */
export function settingsOfEvent(data: Record<string, unknown>): DeadlineSettings | null {
  const whole = (key: string): number | null =>
    typeof data[key] === 'number' && Number.isInteger(data[key]) ? (data[key] as number) : null;
  const maxAutomaticReminders = whole('max_automatic_reminders');
  const expiringSoonDays = whole('expiring_soon_days');
  const expiredExtensionGraceDays = whole('expired_extension_grace_days');
  if (maxAutomaticReminders === null || expiringSoonDays === null || expiredExtensionGraceDays === null) {
    return null;
  }
  return {
    reminderIntervalDays: whole('reminder_interval_days'),
    maxAutomaticReminders,
    expiringSoonDays,
    expiredExtensionGraceDays,
  };
}

/** Writes the settings of an `envelope.settings_updated` transition on the envelope row, in the projection's transaction. */
export async function projectEnvelopeSettings(
  tx: Pick<EntityManager, 'execute'>,
  transition: EnvelopeTransition,
): Promise<void> {
  const settings = settingsOfEvent(transition.event.data);
  if (!settings) return;
  await tx.execute('update envelope set deadline_settings = ?::jsonb where id = ?', [
    JSON.stringify(settings),
    transition.envelopeId,
  ]);
}
