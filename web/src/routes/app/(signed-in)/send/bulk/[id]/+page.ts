// /app/send/bulk/{id}: the bulk send and the first page of its rows.
import { ROWS_PAGE } from '$lib/app/bulk-send/followed-run.svelte';
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'documents:manage', async () => {
    const id = event.params.id;
    // The run first: rows read after a run that has ended are its final ones.
    const run = await appClient.bulkSends.get.query({ id });
    const rows = await appClient.bulkSends.rows.query({ id, limit: ROWS_PAGE, offset: 0 });
    return { run, rows };
  });
