// /app/documents/{id}: the envelope (with the ETag the page's polling sends back) and, for a user who manages
// documents and reads the organization's settings, how long a deleted envelope's files are kept (the delete
// dialog names it; without it the dialog speaks of the organization's retention period).
import { account } from '$lib/app/account.svelte';
import { purgeDaysOf, readDocument } from '$lib/app/documents';
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

async function purgeDays(): Promise<number | null> {
  if (!account.can('documents:manage') || !account.can('settings:read')) return null;
  try {
    return purgeDaysOf((await appClient.organization.settings.query()).retention.deletedDays);
  } catch {
    return null;
  }
}

export const load: PageLoad = (event) =>
  appPage(event, 'documents:read', async () => {
    const [read, days] = await Promise.all([readDocument(event.params.id, null), purgeDays()]);
    if (!read.changed) throw new Error('an unconditional read answered 304');
    return { document: read.document, etag: read.etag, purgeDays: days };
  });
