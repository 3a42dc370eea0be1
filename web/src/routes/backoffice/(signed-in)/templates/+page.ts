// /backoffice/templates: every notification template, in both languages.
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  backofficePage(event, async () => ({
    templates: (await appClient.backofficeTemplates.list.query()).templates,
  }));
