// What a backoffice page shows while and after loading its data: loading, ready, or failed (the server's
// message, such as the IP allowlist's 403 naming the address); a session that ended goes to sign in instead.
import { serverMessage } from '$lib/app/errors';
import { followBackofficeSession } from './errors.ts';

export type BackofficePageView =
  | { status: 'loading' }
  | { status: 'ready' }
  | { status: 'failed'; message: string | undefined };

/** Loads a page's data with `fetch`, showing loading first unless `showLoading` is false (a reload). */
export async function loadBackofficePage(
  show: (view: BackofficePageView) => void,
  fetch: () => Promise<void>,
  showLoading = true,
): Promise<void> {
  if (showLoading) show({ status: 'loading' });
  try {
    await fetch();
    show({ status: 'ready' });
  } catch (error) {
    if (followBackofficeSession(error)) return;
    show({ status: 'failed', message: serverMessage(error) });
  }
}
