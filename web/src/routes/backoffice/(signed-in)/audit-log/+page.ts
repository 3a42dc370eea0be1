// /backoffice/audit-log: the newest page of the backoffice's audit log.
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

/** Events read at a time (the first page, then "Load more"). */
const PAGE_SIZE = 50;

export const load: PageLoad = (event) =>
  backofficePage(event, async () => ({
    log: await appClient.backofficeAdmins.auditLog.query({ limit: PAGE_SIZE }),
    pageSize: PAGE_SIZE,
  }));
