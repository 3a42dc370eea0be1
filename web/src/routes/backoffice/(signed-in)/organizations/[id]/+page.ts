// /backoffice/organizations/{id}: the organization (deleted ones too), its SMS credit ledger, its integrations,
// the plans it may move to, and — while it is not deleted — its secure-signature policy and whether that policy
// can be met now (the server no longer answers either for a deleted organization).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) => {
  event.depends('backoffice:organization');
  const id = event.params.id;
  return backofficePage(event, async () => {
    const [organization, ledger, integrations, plans] = await Promise.all([
      appClient.backofficeOrganizations.get.query({ id }),
      appClient.backofficeOrganizations.credits.query({ id }),
      appClient.backofficeOrganizations.integrations.query({ id }),
      appClient.plans.list.query(),
    ]);
    const sealing =
      organization.status === 'deleted'
        ? null
        : await Promise.all([
            appClient.secureSignatures.organizationPolicy.query({ id }),
            appClient.secureSignatures.readiness.query({ organizationId: id }),
          ]).then(([policy, readiness]) => ({ policy, readiness }));
    return { organization, ledger, integrations, plans, sealing };
  });
};
