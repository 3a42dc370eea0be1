// The backoffice's page loads (web/README.md, "How to build a page"): the session first (the layout's load,
// `parent()`), then the page's calls; a session that ended goes to the backoffice's sign-in, any other failure to
// the error page (lib/shared/load.ts).
import { loadOr } from '$lib/shared/load';
import { backofficeSession } from './errors.ts';

export async function backofficePage<T>(
  event: { parent: () => Promise<unknown>; url: URL },
  run: () => Promise<T>,
): Promise<T> {
  await event.parent();
  return loadOr(event.url, backofficeSession, run);
}
