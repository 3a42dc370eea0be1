// /backoffice/envelopes?q=: the envelopes of every organization that match the address's `q` (an envelope id, an
// external reference, a recipient's email or phone), the first page; none asked without `q`.

import { ENVELOPES_PAGE_SIZE } from '$lib/backoffice/envelopes/types';
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  const q = event.url.searchParams.get('q')?.trim() ?? '';
  return backofficePage(event, async () => ({
    q,
    found: q ? await appClient.backofficeEnvelopes.search.query({ q, limit: ENVELOPES_PAGE_SIZE }) : null,
  }));
};
