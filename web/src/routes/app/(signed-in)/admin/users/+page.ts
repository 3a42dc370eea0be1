// /app/admin/users: a page of the organization's users for the search, filters, order and page in the address,
// and the roles and teams they can be given (and filtered by).
import { account } from '$lib/app/account.svelte';
import { appPage } from '$lib/app/load';
import { filtersOf, pageOf, queryOf, USERS_PAGE_SIZE } from '$lib/app/users/user-list';
import { roleOptions, teamOptions } from '$lib/app/users/users';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:users');
  return appPage(event, 'users:read', async () => {
    const filters = filtersOf(event.url.searchParams);
    const page = pageOf(event.url.searchParams);
    const [list, roles, teams] = await Promise.all([
      appClient.users.list.query(queryOf(filters, page)),
      account.can('roles:read') ? appClient.roles.list.query() : undefined,
      account.can('teams:read') ? appClient.teams.list.query() : undefined,
    ]);
    // Without roles:read or teams:read, the choices are those the listed users already have.
    return {
      users: list.users,
      total: list.total,
      page,
      pages: Math.max(1, Math.ceil(list.total / USERS_PAGE_SIZE)),
      filters,
      roles: roleOptions(list.users, roles),
      teams: teamOptions(list.users, teams),
    };
  });
};
