// /backoffice/plans: every plan with its version, the organizations on it and its history; read again after a
// change (and after someone else's, when a change is refused as stale).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:plans');
  return backofficePage(event, () => appClient.backofficePlans.list.query());
};
