// /backoffice/secure-signatures: whether the platform can seal documents now, checked afresh on every visit.
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  backofficePage(event, async () => ({ readiness: await appClient.secureSignatures.readiness.query({}) }));
