// /app/send/bulk: the organization's sending defaults, the published templates, the first page of the earlier
// bulk sends and — when the address chooses one (`?template=<template or version id>`) — that template's roles.
import { RUNS_PAGE } from '$lib/app/bulk-send/bulk-send';
import { appPage } from '$lib/app/load';
import { publishedOf, wantedVersion } from '$lib/app/send/send';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'documents:manage', async () => {
    const [defaults, list, runs] = await Promise.all([
      appClient.sending.defaults.query(),
      appClient.templates.list.query({ status: 'published', limit: 100 }),
      appClient.bulkSends.list.query({ limit: RUNS_PAGE, offset: 0 }),
    ]);
    const templates = publishedOf(list.templates);
    const wanted = wantedVersion(templates, event.url.searchParams.get('template'));
    const template = wanted ? await appClient.templates.get.query({ id: wanted }) : undefined;
    return {
      defaults,
      templates,
      template,
      runs: { items: runs.items, total: runs.total, next: runs.nextOffset },
    };
  });
