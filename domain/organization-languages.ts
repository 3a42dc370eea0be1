// The organization's languages (docs/administration.md "Languages"): the languages its recipients may be
// written to in (`supportedLanguages`, a subset of the languages Sigil speaks) and the one used when a recipient
// has none (`defaultLanguage`, one of them). Read and changed with the organization's settings.
import { z } from 'zod';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from './vocabulary.ts';

const LANGUAGE_LIST = SUPPORTED_LANGUAGES.join(', ');

export const OrganizationLanguages = z.object({
  /** The language of a recipient created without one (and of the organization's emails to new users). */
  defaultLanguage: z.enum(SUPPORTED_LANGUAGES),
  /** The languages a recipient may be given, in Sigil's order. */
  supportedLanguages: z.array(z.enum(SUPPORTED_LANGUAGES)),
});

/** The request's members; that the default is one of the supported languages is checked against both together. */
export const UpdateOrganizationLanguages = z.object({
  defaultLanguage: z
    .enum(SUPPORTED_LANGUAGES, { message: `defaultLanguage must be one of ${LANGUAGE_LIST}` })
    .optional()
    .describe('One of `supportedLanguages` (as changed by the same request)'),
  supportedLanguages: z
    .array(z.enum(SUPPORTED_LANGUAGES, { message: `supportedLanguages may hold only ${LANGUAGE_LIST}` }), {
      message: `supportedLanguages must be a list of languages (${LANGUAGE_LIST})`,
    })
    .min(1, 'supportedLanguages must hold at least one language')
    .refine(
      (languages) => new Set(languages).size === languages.length,
      'supportedLanguages must name each language once',
    )
    // Stated in the OpenAPI document too, so that a client (and the fuzzer) knows a repeated language is refused.
    .meta({ uniqueItems: true })
    .transform((languages) => SUPPORTED_LANGUAGES.filter((language) => languages.includes(language)))
    .optional()
    .describe(`A subset of ${LANGUAGE_LIST}, each once; must include \`defaultLanguage\``),
});

/** Sigil's languages in its order, of those stored (anything else left out). */
export function supportedLanguagesOf(stored: readonly string[]): SupportedLanguage[] {
  return SUPPORTED_LANGUAGES.filter((language) => stored.includes(language));
}

/** A stored default language as one Sigil speaks (English for anything else). */
export function defaultLanguageOf(stored: string): SupportedLanguage {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(stored) ? (stored as SupportedLanguage) : 'en';
}
