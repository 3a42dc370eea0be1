// /app/admin/settings: the organization's settings (settings:read), which administrators are told of documents
// (sender notifications), and its secure-signature policy — which does not fail the page when it alone could not
// be read: its section says so, with Try again.
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import { requestErrorOf } from '$lib/shared/request-error';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('app:settings');
  return appPage(event, 'settings:read', async () => {
    const [settings, policy, notifications] = await Promise.all([
      appClient.organization.settings.query(),
      appClient.secureSignatures.policy.query().then(
        (read) => ({ read, failed: undefined }),
        (error: unknown) => ({ read: undefined, failed: { message: requestErrorOf(error).serverMessage } }),
      ),
      appClient.notifications.organizationSettings.query(),
    ]);
    return { settings, policy, notifications };
  });
};
