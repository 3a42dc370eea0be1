// /backoffice/security: the backoffice's security policy (your address, the IP allowlist, the allowed domains
// and the session and sign-in code rules).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:security');
  return backofficePage(event, async () => ({
    policy: await appClient.backofficeAdmins.securityPolicy.query(),
  }));
};
