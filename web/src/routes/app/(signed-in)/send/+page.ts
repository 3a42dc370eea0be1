// /app/send: the organization's sending defaults, the published templates and — when the address chooses one
// (`?template=<template or version id>`, "Use this template" in /app/templates) — that template's roles and
// fields.
import { appPage } from '$lib/app/load';
import { publishedOf, wantedVersion } from '$lib/app/send/send';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'documents:manage', async () => {
    const [defaults, list] = await Promise.all([
      appClient.sending.defaults.query(),
      appClient.templates.list.query({ status: 'published', limit: 100 }),
    ]);
    const templates = publishedOf(list.templates);
    const wanted = wantedVersion(templates, event.url.searchParams.get('template'));
    const template = wanted ? await appClient.templates.get.query({ id: wanted }) : undefined;
    return { defaults, templates, template };
  });
