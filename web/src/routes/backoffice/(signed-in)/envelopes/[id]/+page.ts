// /backoffice/envelopes/{id}: one envelope of any organization as support sees it — no contents (the view is
// recorded in the backoffice audit log and the organization's security log).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:envelope');
  return backofficePage(event, async () => ({
    envelope: await appClient.backofficeEnvelopes.get.query({ id: event.params.id }),
  }));
};
