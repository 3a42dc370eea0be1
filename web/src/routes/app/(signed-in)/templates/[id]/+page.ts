// /app/templates/{id}: a version of a template, with its pages, roles, fields and the family's versions.

import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'templates:read', async () => ({
    template: await appClient.templates.get.query({ id: event.params.id }),
  }));
