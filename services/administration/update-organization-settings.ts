// PUT /api/organization/settings: a partial update: an absent field stays as it is, null clears it (the
// default applies again: a setting that always has a value gets its default, SETTING_DEFAULTS; `retention: null`
// clears all three). The whole request is checked before anything changes, so a refused field changes
// nothing. `settings.updated` names the fields whose value changed (never their values: a footer or a
// consent text is not the log's business).
import type { Organization } from '../../db/entities/index.ts';
import {
  type OrganizationSettings,
  SETTING_DEFAULTS,
  UpdateOrganizationSettingsRequest,
} from '../../domain/account.ts';
import { DEADLINE_SETTING_DEFAULTS } from '../../domain/envelope-settings.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { parseInput } from '../validation.ts';
import { type Actor, lockOrganization } from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { changeOrganizationLanguages } from './organization-languages.ts';
import { settingsView } from './views.ts';

type Settable = Pick<
  Organization,
  | 'senderDisplayName'
  | 'replyToEmail'
  | 'emailFooter'
  | 'mfaRequired'
  | 'sessionTimeoutMinutes'
  | 'defaultAuthenticationMethod'
  | 'defaultExpirationDays'
  | 'consentText'
  | 'privacyNotice'
  | 'retentionCompletedDays'
  | 'retentionUnfinishedDays'
  | 'retentionDeletedDays'
  | 'attachFinalPdfToCompletedEmail'
  | 'reminderIntervalDays'
  | 'maxAutomaticReminders'
  | 'expiringSoonDays'
  | 'expiredExtensionGraceDays'
>;

export async function updateOrganizationSettings(
  ctx: AdministrationContext,
  actor: Actor,
  input: unknown,
): Promise<OrganizationSettings> {
  const data = parseInput(UpdateOrganizationSettingsRequest, input, 'settings');
  /** null: the setting's default; undefined: unchanged. */
  const orDefault = <T>(value: T | null | undefined, fallback: T) => (value === null ? fallback : value);
  const retention =
    data.retention === null
      ? { completedDays: null, unfinishedDays: null, deletedDays: null }
      : data.retention;
  // The request's field name for each column.
  const requested: [keyof OrganizationSettings | `retention.${string}`, keyof Settable, unknown][] = [
    ['senderDisplayName', 'senderDisplayName', data.senderDisplayName],
    ['replyToEmail', 'replyToEmail', data.replyToEmail],
    ['emailFooter', 'emailFooter', data.emailFooter],
    ['mfaRequired', 'mfaRequired', orDefault(data.mfaRequired, SETTING_DEFAULTS.mfaRequired)],
    [
      'sessionTimeoutMinutes',
      'sessionTimeoutMinutes',
      orDefault(data.sessionTimeoutMinutes, SETTING_DEFAULTS.sessionTimeoutMinutes),
    ],
    [
      'defaultAuthenticationMethod',
      'defaultAuthenticationMethod',
      orDefault(data.defaultAuthenticationMethod, SETTING_DEFAULTS.defaultAuthenticationMethod),
    ],
    ['defaultExpirationDays', 'defaultExpirationDays', data.defaultExpirationDays],
    ['consentText', 'consentText', data.consentText],
    ['privacyNotice', 'privacyNotice', data.privacyNotice],
    ['retention.completedDays', 'retentionCompletedDays', retention?.completedDays],
    ['retention.unfinishedDays', 'retentionUnfinishedDays', retention?.unfinishedDays],
    ['retention.deletedDays', 'retentionDeletedDays', retention?.deletedDays],
    [
      'attachFinalPdfToCompletedEmail',
      'attachFinalPdfToCompletedEmail',
      orDefault(data.attachFinalPdfToCompletedEmail, SETTING_DEFAULTS.attachFinalPdfToCompletedEmail),
    ],
    // Defaults of new envelopes' reminders and deadline warnings; null: the default (DEADLINE_SETTING_DEFAULTS).
    ['reminderIntervalDays', 'reminderIntervalDays', data.reminderIntervalDays],
    [
      'maxAutomaticReminders',
      'maxAutomaticReminders',
      orDefault(data.maxAutomaticReminders, DEADLINE_SETTING_DEFAULTS.maxAutomaticReminders),
    ],
    [
      'expiringSoonDays',
      'expiringSoonDays',
      orDefault(data.expiringSoonDays, DEADLINE_SETTING_DEFAULTS.expiringSoonDays),
    ],
    [
      'expiredExtensionGraceDays',
      'expiredExtensionGraceDays',
      orDefault(data.expiredExtensionGraceDays, DEADLINE_SETTING_DEFAULTS.expiredExtensionGraceDays),
    ],
  ];
  return ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, actor.organization.id);
    // The request's organization (the principal's), merged into this transaction's unit of work.
    const organization = actor.organization;
    // The default and supported languages, checked together with what is stored (organization-languages.ts).
    const changed: string[] = await changeOrganizationLanguages(tx, organization, data);
    const target = organization as unknown as Record<keyof Settable, unknown>;
    for (const [field, column, value] of requested) {
      if (value === undefined || (target[column] ?? null) === value) continue;
      target[column] = value;
      changed.push(field);
    }
    if (changed.length > 0) {
      recordActorEvent({ ...ctx, em: tx }, actor, { type: 'settings.updated', details: { changed } });
      await tx.flush();
    }
    return settingsView(organization);
  });
}
