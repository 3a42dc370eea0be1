// /plans: every plan and what it includes (GET /api/plans; public, no session).
import { appClient } from '$lib/shared/app-client';
import { loadOr } from '$lib/shared/load';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  loadOr(event.url, undefined, async () => ({ plans: await appClient.plans.list.query() }));
