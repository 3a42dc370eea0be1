// /app/documents: the filters' choices (each tab's count, the senders, teams and templates) and the first page
// of the envelopes for the tab, search and filters in the address.

import { listQuery, viewOf } from '$lib/app/documents/document-list';
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:documents');
  return appPage(event, 'documents:read', async () => {
    const view = viewOf(event.url.searchParams);
    const [filters, list] = await Promise.all([
      appClient.documents.filters.query(),
      appClient.documents.list.query(listQuery(view)),
    ]);
    return { ...view, filters, documents: list.documents, nextCursor: list.nextCursor };
  });
};
