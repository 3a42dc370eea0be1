// /app/admin/security-log: the newest page of the organization's security log (security:read).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

/** Events read at a time (the first page, then "Load older events"). */
const PAGE_SIZE = 50;

export const load: PageLoad = (event) =>
  appPage(event, 'security:read', async () => ({
    log: await appClient.organization.securityLog.query({ limit: PAGE_SIZE }),
    pageSize: PAGE_SIZE,
  }));
