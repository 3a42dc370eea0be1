// /app/profile: the signed-in user's passkeys and notification emails (the rest of the profile is the layout's
// `auth.me`).
import { appPage } from '$lib/app/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  appPage(event, null, async () => {
    const [passkeys, notificationPreferences] = await Promise.all([
      appClient.mfa.listPasskeys.query(),
      appClient.notifications.preferences.query(),
    ]);
    return { passkeys: passkeys.passkeys, notificationPreferences };
  });
