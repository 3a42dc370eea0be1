// /app/profile: the signed-in user's passkeys (the rest of the profile is the layout's `auth.me`).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, null, async () => ({ passkeys: (await appClient.mfa.listPasskeys.query()).passkeys }));
