// Dates as the business app shows them, in the page's language.
export function formatDateTime(iso: string | null | undefined, language: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language ?? 'en', { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/**
 * Text of either direction inside a sentence (a Hebrew title in an English message, or the reverse), kept in its
 * own direction: between a first strong isolate and its pop, so the words and quotes around it stay in place.
 */
export function isolate(text: string): string {
  return String.fromCharCode(0x2068) + text + String.fromCharCode(0x2069);
}
