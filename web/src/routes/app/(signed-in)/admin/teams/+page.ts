// /app/admin/teams: the organization's teams with their member counts (teams:read).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:teams');
  return appPage(event, 'teams:read', () => appClient.teams.list.query());
};
