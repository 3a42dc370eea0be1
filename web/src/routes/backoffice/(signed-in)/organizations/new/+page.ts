// /backoffice/organizations/new: the plans an organization may start on (their names and API access).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  backofficePage(event, async () => ({ plans: await appClient.plans.list.query() }));
