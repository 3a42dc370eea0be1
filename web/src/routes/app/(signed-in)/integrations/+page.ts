// /app/integrations: the organization's API keys (with whether the public API is available) and their requests
// over the last 24 hours and 7 days.

import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:api-keys');
  return appPage(event, 'integrations:read', async () => {
    const [list, figures] = await Promise.all([
      appClient.apiKeys.list.query(),
      appClient.apiKeys.diagnostics.query(),
    ]);
    return { list, figures };
  });
};
