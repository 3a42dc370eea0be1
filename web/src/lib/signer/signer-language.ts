// The signer page's language: the recipient's, unless the address (?lang=) or a choice made earlier on this tab
// (the switcher) says otherwise. Applied once per tab, before the page is drawn; the switcher's choices are
// remembered for the tab.
import { locale } from 'svelte-i18n';
import { isLanguage, startI18n } from '../i18n/index.ts';

const LANGUAGE_KEY = 'sigil.signerLanguage';
let applied = false;

function stored(): string | null {
  try {
    return window.sessionStorage.getItem(LANGUAGE_KEY);
  } catch {
    return null; // storage disabled
  }
}

export function applySignerLanguage(recipientLanguage: string | undefined, url: URL): void {
  // The load runs before the layout is drawn: the catalogs are set up first, so this choice is not undone.
  startI18n();
  if (applied) return;
  applied = true;
  const fromQuery = url.searchParams.get('lang');
  const chosen = stored();
  const target = isLanguage(fromQuery) ? fromQuery : isLanguage(chosen) ? chosen : recipientLanguage;
  if (isLanguage(target)) void locale.set(target);
  locale.subscribe((value) => {
    try {
      if (isLanguage(value)) window.sessionStorage.setItem(LANGUAGE_KEY, value);
    } catch {
      // storage disabled
    }
  });
}
