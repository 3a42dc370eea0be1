// /backoffice/organizations/{id}/users: the organization (its name, for the heading) and the page of its users the
// address asks for — `search`, `status` and `cursor` (where the page starts) — read again after an action.
import { backofficePage } from '$lib/backoffice/load';
import { USERS_PAGE_SIZE, userFiltersOf, userQueryOf } from '$lib/backoffice/users/users';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:organization-users');
  const id = event.params.id;
  const filters = userFiltersOf(event.url.searchParams);
  return backofficePage(event, async () => {
    const [organization, list] = await Promise.all([
      appClient.backofficeOrganizations.get.query({ id }),
      appClient.backofficeUsers.list.query({ id, ...userQueryOf(filters), limit: USERS_PAGE_SIZE }),
    ]);
    return { organization, ...list, filters };
  });
};
