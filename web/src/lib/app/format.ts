// Dates as the business app shows them, in the page's language.
export function formatDateTime(iso: string | null | undefined, language: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language ?? 'en', { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
