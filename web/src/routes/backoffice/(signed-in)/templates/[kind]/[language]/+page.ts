// /backoffice/templates/<kind>/<language>: one message's texts in one language (404 for a message or language
// Sigil has not).
import { error } from '@sveltejs/kit';
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  const { kind, language } = event.params;
  return backofficePage(event, async () => {
    const { templates } = await appClient.backofficeTemplates.list.query();
    const template = templates.find((entry) => entry.kind === kind && entry.language === language);
    if (!template) error(404, { message: '', code: 'not_found' });
    return { template };
  });
};
