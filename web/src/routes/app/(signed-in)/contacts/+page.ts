// /app/contacts: the first page of the address book for the search in the address (?search=…).

import { CONTACTS_PAGE_SIZE } from '$lib/app/contacts/contacts';
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:contacts');
  return appPage(event, 'contacts:read', async () => {
    const search = event.url.searchParams.get('search')?.trim() ?? '';
    const list = await appClient.contacts.list.query({
      ...(search ? { search } : {}),
      limit: CONTACTS_PAGE_SIZE,
    });
    return { ...list, search };
  });
};
