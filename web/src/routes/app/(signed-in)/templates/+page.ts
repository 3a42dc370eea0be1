// /app/templates: the first page of the templates for the filters in the address.
import { appPage } from '$lib/app/load';
import { filtersOf, queryOf, TEMPLATES_PAGE_SIZE } from '$lib/app/templates/template-list';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:templates');
  return appPage(event, 'templates:read', async () => {
    const filters = filtersOf(event.url.searchParams);
    const list = await appClient.templates.list.query({ ...queryOf(filters), limit: TEMPLATES_PAGE_SIZE });
    return { ...list, filters, filtered: Object.keys(queryOf(filters)).length > 0 };
  });
};
