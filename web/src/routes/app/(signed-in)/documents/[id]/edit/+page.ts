// /app/documents/{id}/edit: a Draft as its create took it (GET /api/documents/{id}/draft), the organization's
// sending defaults and — for a Draft made from a template — that template's roles and fields, for the send page's
// parts to fill. A Draft already sent (409) or one the user does not see (404) is the error page.
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, 'documents:manage', async () => {
    const [defaults, draft] = await Promise.all([
      appClient.sending.defaults.query(),
      appClient.documents.draft.query({ id: event.params.id }),
    ]);
    const template = draft.templateId
      ? await appClient.templates.get.query({ id: draft.templateId })
      : undefined;
    return { defaults, draft, template };
  });
