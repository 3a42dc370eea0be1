// /app/stamps: the signed-in user's personal stamps and their limits (any role).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:stamps');
  return appPage(event, null, () => appClient.stamps.list.query());
};
