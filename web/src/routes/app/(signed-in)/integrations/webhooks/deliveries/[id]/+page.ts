// /app/integrations/webhooks/deliveries/<id>: one webhook delivery with its attempts.

import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'integrations:read', async () => ({
    delivery: await appClient.webhooks.delivery.query({ id: event.params.id }),
  }));
