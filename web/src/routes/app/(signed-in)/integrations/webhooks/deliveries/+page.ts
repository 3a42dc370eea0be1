// /app/integrations/webhooks/deliveries: the first page of the deliveries for the filters in the address, and
// the endpoints to filter by.

import { DELIVERIES_PAGE_SIZE, deliveryFilterOf, deliveryQuery } from '$lib/app/integrations/webhooks';
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'integrations:read', async () => {
    const filter = deliveryFilterOf(event.url);
    const [list, first] = await Promise.all([
      appClient.webhooks.list.query(),
      appClient.webhooks.deliveries.query(deliveryQuery(filter, DELIVERIES_PAGE_SIZE)),
    ]);
    return { endpoints: list.endpoints, first, filter };
  });
