// For the backoffice's pages not yet on load functions: loading their data in the page with the kit's views
// (ui/page-view.ts); a session that ended goes to sign in instead.
import { loadView, type PageView } from '$lib/ui/page-view';
import { followBackofficeSession } from './errors.ts';

export type BackofficePageView = PageView;

export function loadBackofficePage(
  show: (view: PageView) => void,
  fetch: () => Promise<void>,
  showLoading = true,
): Promise<void> {
  return loadView(show, fetch, followBackofficeSession, showLoading);
}
