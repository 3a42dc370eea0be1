// The backoffice's signed-in pages load the backoffice session (backofficeAdmins.me) before any of them; a
// visitor without one goes to the backoffice's sign-in (coming back afterwards). Loaded once per visit of the
// area; the layout checks it again at each page change.
import { backofficeSession } from '$lib/backoffice/errors';
import { backoffice } from '$lib/backoffice/session.svelte';
import { failLoad } from '$lib/shared/load';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ url, untrack }) => {
  try {
    await backoffice.refresh();
  } catch (cause) {
    backoffice.forget();
    failLoad(
      cause,
      untrack(() => new URL(url.href)),
      backofficeSession,
    );
  }
  return {};
};
