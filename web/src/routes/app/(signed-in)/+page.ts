// /app: the dashboard of the signed-in user (GET /api/dashboard decides what each role sees).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, null, async () => ({ board: await appClient.dashboard.get.query() }));
