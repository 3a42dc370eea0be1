// For the business app's pages not yet on load functions (web/README.md, "How to build a page"): loading their
// data in the page, with the kit's views (ui/page-view.ts) — forbidden at once without the permission (null: a
// page of every signed-in user), then loading, ready, forbidden or failed as the server answered (nothing more
// when the answer was to sign in again).
import { loadView, type PageView } from '$lib/ui/page-view';
import { account } from './account.svelte.ts';
import { followSessionAnswer } from './errors.ts';
import type { Permission } from './types.ts';

export type { PageView };

export async function loadPage(
  permission: Permission | null,
  show: (view: PageView) => void,
  fetch: () => Promise<void>,
  showLoading = true,
): Promise<void> {
  if (permission !== null && !account.can(permission)) {
    show({ status: 'forbidden', permission });
    return;
  }
  await loadView(show, fetch, followSessionAnswer, showLoading);
}
