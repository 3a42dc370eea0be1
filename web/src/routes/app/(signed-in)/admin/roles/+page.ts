// /app/admin/roles: the organization's roles and every permission a role may hold (roles:read).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:roles');
  return appPage(event, 'roles:read', () => appClient.roles.list.query());
};
