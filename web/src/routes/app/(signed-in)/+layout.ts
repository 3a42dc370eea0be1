// The business app's signed-in pages load who is signed in (auth.me) before any of them: a signed-out visitor
// goes to sign in (coming back afterwards), and a session the organization makes set up two-step verification
// goes to that page. Loaded once per visit of the area; the layout checks it again at each page change.
import { redirect } from '@sveltejs/kit';
import { account } from '$lib/app/account.svelte';
import { appSession, SETUP_MFA_PATH } from '$lib/app/errors';
import { failLoad } from '$lib/shared/load';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ url, untrack }) => {
  const here = untrack(() => new URL(url.href));
  try {
    await account.refresh();
  } catch (cause) {
    account.forget();
    failLoad(cause, here, appSession);
  }
  if (account.mustEnrol && here.pathname !== SETUP_MFA_PATH) redirect(307, SETUP_MFA_PATH);
  return {};
};
