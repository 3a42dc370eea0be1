// The business app's page loads (web/README.md, "How to build a page"): a `+page.ts` hands its event, the
// permission the page needs (null: every signed-in user) and its calls to `appPage`. Who is signed in is loaded
// first (the layout's load, `parent()`); a role without the permission gets the forbidden page at once, naming
// it; a failed call becomes a redirect (signed out, two-step set-up) or the error page (lib/shared/load.ts).
import { forbidden, loadOr } from '$lib/shared/load';
import { account } from './account.svelte.ts';
import { appSession } from './errors.ts';
import type { Permission } from './types.ts';

export async function appPage<T>(
  event: { parent: () => Promise<unknown>; url: URL },
  permission: Permission | null,
  run: () => Promise<T>,
): Promise<T> {
  await event.parent();
  if (permission !== null && !account.can(permission)) forbidden(permission);
  return loadOr(event.url, appSession, run);
}
