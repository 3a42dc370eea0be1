// /backoffice/admins: the platform administrators, and the email domains a new one's address may be at.
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:admins');
  return backofficePage(event, async () => {
    const [list, policy] = await Promise.all([
      appClient.backofficeAdmins.list.query(),
      appClient.backofficeAdmins.securityPolicy.query(),
    ]);
    return {
      administrators: list.administrators,
      domains: policy.allowedDomains.map((allowed) => allowed.domain),
    };
  });
};
