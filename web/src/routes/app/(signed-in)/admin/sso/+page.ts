// /app/admin/sso: the organization's single sign-on provider (settings:read; docs/sso.md).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'settings:read', async () => ({ settings: await appClient.sso.settings.query() }));
