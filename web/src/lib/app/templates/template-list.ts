// The templates list's filters (docs/templates.md), as the address keeps them (?search=&status=&ownerId=&teamId=)
// and as templates.list takes them: the page's load reads them from the address, the page writes them there.
import { addressWithFilters, chosenFilters } from '../../ui/list-address.ts';

export const TEMPLATES_PAGE_SIZE = 50;
/** The template PDF's limit (domain/template-builder.ts, TEMPLATE_LIMITS.pdfBytes). */
export const MAX_PDF_BYTES = 25 * 1024 * 1024;

/** `archived`: the archived templates instead of the others (restored or deleted from there). */
export const STATUS_FILTERS = ['', 'draft', 'published', 'archived'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export interface TemplateFilters {
  search: string;
  status: StatusFilter;
  ownerId: string;
  teamId: string;
}

export function filtersOf(query: URLSearchParams): TemplateFilters {
  return {
    search: query.get('search')?.trim() ?? '',
    status: STATUS_FILTERS.find((value) => value === query.get('status')) ?? '',
    ownerId: query.get('ownerId') ?? '',
    teamId: query.get('teamId') ?? '',
  };
}

/** The filters templates.list takes: only those chosen. */
export function queryOf(filters: TemplateFilters) {
  return chosenFilters({ ...filters });
}

/** The page's address with the filters chosen (the others removed). */
export function urlOf(current: URL, filters: TemplateFilters): URL {
  return addressWithFilters(current, { ...filters });
}

export function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
