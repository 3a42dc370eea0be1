// The documents list's view in the address (/app/documents?tab=…&search=…&from=…): the tab, the search and the
// filters, read by the page's load (+page.ts) and written by the page as the user chooses — so a view can be
// reloaded, bookmarked and shared — and the list query they make.
import { type DocumentTab, isDocumentTab } from '../documents.ts';

/** Envelopes of one page of the list ("Show more" reads the next with the server's cursor). */
export const DOCUMENTS_PAGE_SIZE = 25;

/** The address's filters besides the tab. */
export const FILTER_KEYS = ['search', 'from', 'to', 'sender', 'teamId', 'templateId'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type ChosenFilters = Record<FilterKey, string>;

/** What the address chose: the tab (`all` when none or an unknown one) and each filter ('' when none). */
export interface DocumentView {
  tab: DocumentTab;
  chosen: ChosenFilters;
}

export function viewOf(params: URLSearchParams): DocumentView {
  const tab = params.get('tab');
  return {
    tab: isDocumentTab(tab) ? tab : 'all',
    chosen: Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ''])) as ChosenFilters,
  };
}

/** Whether anything narrows the list (the search included). */
export function isFiltered(chosen: ChosenFilters): boolean {
  return FILTER_KEYS.some((key) => chosen[key] !== '');
}

/** How many filters besides the search narrow the list. */
export function narrowing(chosen: ChosenFilters): number {
  return FILTER_KEYS.filter((key) => key !== 'search' && chosen[key] !== '').length;
}

/** The address of the list with these changes (a tab change keeps the filters). */
export function hrefWith(url: URL, changes: Partial<Record<FilterKey | 'tab', string>>): string {
  const next = new URL(url);
  for (const [key, value] of Object.entries(changes)) {
    if (value && !(key === 'tab' && value === 'all')) next.searchParams.set(key, value);
    else next.searchParams.delete(key);
  }
  return `${next.pathname}${next.search}`;
}

/** A date of the address (`2026-11-26`) as the start of that day where the user is, in ISO 8601. */
function dayStart(day: string, plusDays = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + plusDays);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The list query of a view: `to` is the day after the chosen last day, so that day is included. */
export function listQuery({ tab, chosen }: DocumentView) {
  const from = dayStart(chosen.from);
  const to = dayStart(chosen.to, 1);
  return {
    tab,
    limit: DOCUMENTS_PAGE_SIZE,
    ...(chosen.search.trim() ? { search: chosen.search.trim() } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(chosen.sender ? { sender: chosen.sender } : {}),
    ...(chosen.teamId ? { teamId: chosen.teamId } : {}),
    ...(chosen.templateId ? { templateId: chosen.templateId } : {}),
  };
}

/** The CSV export of a view (GET /api/documents/export): the list query without its paging. */
export function exportHref(view: DocumentView): string {
  const { limit: _limit, ...query } = listQuery(view);
  return `/api/documents/export?${new URLSearchParams(query).toString()}`;
}
