// /app/integrations/diagnostics: the organization's API keys' and webhook endpoints' figures over the last 24
// hours and 7 days, and the latest failed deliveries.

import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'integrations:read', async () => ({
    figures: await appClient.integrations.diagnostics.query(),
  }));
