// /app/billing: the organization's plan and this month's usage (billing:read).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'billing:read', async () => ({ summary: await appClient.billing.summary.query() }));
