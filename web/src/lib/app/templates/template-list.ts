// The templates list's filters (docs/templates.md), as the address keeps them (?search=&status=&ownerId=&teamId=)
// and as templates.list takes them: the page's load reads them from the address, the page writes them there.
export const TEMPLATES_PAGE_SIZE = 50;
/** The template PDF's limit (domain/template-builder.ts, TEMPLATE_LIMITS.pdfBytes). */
export const MAX_PDF_BYTES = 25 * 1024 * 1024;

export const STATUS_FILTERS = ['', 'draft', 'published'] as const;
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
  const search = filters.search.trim();
  return {
    ...(search ? { search } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.ownerId ? { ownerId: filters.ownerId } : {}),
    ...(filters.teamId ? { teamId: filters.teamId } : {}),
  };
}

/** The page's address with the filters chosen (the others removed). */
export function urlOf(current: URL, filters: TemplateFilters): URL {
  const url = new URL(current);
  for (const [name, value] of Object.entries({ ...filters, search: filters.search.trim() })) {
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
  }
  return url;
}

export function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
