// /app/admin/users: the organization's users, and the roles and teams they can be given.
import { account } from '$lib/app/account.svelte';
import { appPage } from '$lib/app/load';
import { roleOptions, teamOptions } from '$lib/app/users/users';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:users');
  return appPage(event, 'users:read', async () => {
    const [list, roles, teams] = await Promise.all([
      appClient.users.list.query(),
      account.can('roles:read') ? appClient.roles.list.query() : undefined,
      account.can('teams:read') ? appClient.teams.list.query() : undefined,
    ]);
    // Without roles:read or teams:read, the choices are those the users already have.
    return {
      users: list.users,
      roles: roleOptions(list.users, roles),
      teams: teamOptions(list.users, teams),
    };
  });
};
