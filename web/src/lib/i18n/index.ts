// The web app's languages: English and Hebrew catalogs (same keys; test/unit/web-i18n.test.ts checks them),
// svelte-i18n set up once, and the chosen language kept in localStorage. Hebrew switches the whole document
// to right to left (<html lang="he" dir="rtl">); layouts use logical CSS properties, so they mirror.
// The catalogs reach the browser in two parts (web/i18n-parts.ts): the signer page's words at once, every
// other page's when the root layout asks for them (`loadAllMessages`), so a signer's phone never loads them.
import signerMessages from 'virtual:i18n/signer';
import { get } from 'svelte/store';
import { addMessages, dictionary, init, locale } from 'svelte-i18n';

export const LANGUAGES = ['en', 'he'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = 'sigil.language';
const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['he']);

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function directionOf(language: Language): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
}

/** `?lang=he` first, then the language chosen before, then the browser's, then English. */
function initialLanguage(): Language {
  const fromQuery = new URLSearchParams(window.location.search).get('lang');
  if (isLanguage(fromQuery)) return fromQuery;
  const stored = readStored();
  if (stored) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'iw') return 'he';
    if (isLanguage(primary)) return primary;
  }
  return 'en';
}

function readStored(): Language | undefined {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return isLanguage(value) ? value : undefined;
  } catch {
    return undefined; // storage disabled: the choice lasts for this page only
  }
}

let started = false;

/** Loads both catalogs and applies the initial language to the document. Browser only; idempotent. */
export function startI18n(): void {
  if (started) return;
  started = true;
  addMessages('en', signerMessages.en);
  addMessages('he', signerMessages.he);
  const language = initialLanguage();
  init({ fallbackLocale: 'en', initialLocale: language });
  applyToDocument(language);
  locale.subscribe((value) => {
    if (isLanguage(value)) applyToDocument(value);
  });
}

let allMessages: Promise<void> | undefined;

/** Every page's words besides the signer's, loaded once (the root layout waits for them on every other page). */
export function loadAllMessages(): Promise<void> {
  allMessages ??= import('virtual:i18n/rest').then(
    ({ default: rest }) => {
      addMessages('en', rest.en);
      addMessages('he', rest.he);
    },
    (cause: unknown) => {
      allMessages = undefined; // the next navigation tries again
      throw cause;
    },
  );
  return allMessages;
}

/** A message of `language`'s catalog as it is written (undefined when the catalog has no such key yet). */
export function messageIn(language: Language, key: string): string | undefined {
  const message = get(dictionary)[language]?.[key];
  return typeof message === 'string' ? message : undefined;
}

/** The language switcher: changes every string at once and remembers the choice. */
export function setLanguage(language: Language): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // storage disabled
  }
  void locale.set(language);
}

function applyToDocument(language: Language): void {
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}
