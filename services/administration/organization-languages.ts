// The organization's default and supported languages as PUT /api/organization/settings changes them
// (docs/administration.md "Languages"): checked together against what is stored — read under the organization's
// lock, so two changes at once cannot leave a default outside the supported languages — and, when the default
// changes, every recipient of the organization's existing envelopes that had no language of their own (they
// followed the default) keeps the one they had: it is written on them in the same transaction. New envelopes'
// recipients without a language follow the new default; the supported languages bound new recipients only.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Organization } from '../../db/entities/index.ts';
import { defaultLanguageOf, supportedLanguagesOf } from '../../domain/organization-languages.ts';
import type { SupportedLanguage } from '../../domain/vocabulary.ts';
import { InvalidRequest } from '../errors.ts';

type LanguageChanges = {
  defaultLanguage?: SupportedLanguage | undefined;
  supportedLanguages?: SupportedLanguage[] | undefined;
};

/**
 * Inside the settings' transaction `tx`, holding the organization's lock: checks the requested languages with the
 * stored ones (400 naming `body.defaultLanguage`, or `body.supportedLanguages` when only they were sent, if the
 * default would not be supported), sets them on `organization` and answers the names of those that changed.
 */
export async function changeOrganizationLanguages(
  tx: EntityManager,
  organization: Organization,
  requested: LanguageChanges,
): Promise<string[]> {
  if (requested.defaultLanguage === undefined && requested.supportedLanguages === undefined) return [];
  const [stored] = await tx.execute<{ default_language: string; supported_languages: string[] }[]>(
    'select default_language, supported_languages from organization where id = ?',
    [organization.id],
  );
  const current = {
    defaultLanguage: defaultLanguageOf(stored?.default_language ?? organization.defaultLanguage),
    supportedLanguages: supportedLanguagesOf(stored?.supported_languages ?? organization.supportedLanguages),
  };
  const next = {
    defaultLanguage: requested.defaultLanguage ?? current.defaultLanguage,
    supportedLanguages: requested.supportedLanguages ?? current.supportedLanguages,
  };
  if (!next.supportedLanguages.includes(next.defaultLanguage)) {
    const field = requested.defaultLanguage !== undefined ? 'defaultLanguage' : 'supportedLanguages';
    const message =
      field === 'defaultLanguage'
        ? `defaultLanguage must be one of the supported languages (${next.supportedLanguages.join(', ')})`
        : `supportedLanguages must include the default language (${next.defaultLanguage}); change the default first or with it`;
    throw new InvalidRequest(`Invalid request: body.${field}: ${message}.`, [
      { field: `body.${field}`, message },
    ]);
  }
  const changed: string[] = [];
  if (next.defaultLanguage !== current.defaultLanguage) {
    // Recipients who followed the old default keep it: their messages, signer page and links stay as they were.
    await tx.execute(
      `update recipient r set language = ?
         from envelope e
        where e.id = r.envelope_id and e.organization_id = ? and r.language is null`,
      [current.defaultLanguage, organization.id],
    );
    changed.push('defaultLanguage');
  }
  if (next.supportedLanguages.join() !== current.supportedLanguages.join())
    changed.push('supportedLanguages');
  organization.defaultLanguage = next.defaultLanguage;
  organization.supportedLanguages = next.supportedLanguages;
  return changed;
}
