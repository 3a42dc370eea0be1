// /app/integrations/webhooks: the organization's webhook endpoints with their deliveries of the last 7 days,
// and whether the plan includes webhooks.

import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:webhooks');
  return appPage(event, 'integrations:read', async () => ({ list: await appClient.webhooks.list.query() }));
};
