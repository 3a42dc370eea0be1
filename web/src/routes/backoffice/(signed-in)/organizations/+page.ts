// /backoffice/organizations: the first page of the organizations for the search and filters in the address.
import { backofficePage } from '$lib/backoffice/load';
import { filtersOf, ORGANIZATIONS_PAGE_SIZE, queryOf } from '$lib/backoffice/organizations/organizations';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  const filters = filtersOf(event.url.searchParams);
  return backofficePage(event, async () => ({
    ...(await appClient.backofficeOrganizations.list.query({
      ...queryOf(filters),
      limit: ORGANIZATIONS_PAGE_SIZE,
    })),
    filters,
    filtered: Object.keys(queryOf(filters)).length > 0,
  }));
};
