// What a part of a page shows while and after loading something of its own (a panel inside a page, a dialog's
// content): loading, ready, forbidden (naming the permission the role lacks) or failed (the server's message),
// drawn by PageState.svelte. A page's own data comes from its `load` function instead (lib/shared/load.ts),
// and a failed load is drawn by the area's +error.svelte with the same PageState.
import { requestErrorOf } from '../shared/request-error.ts';

export type PageView =
  | { status: 'loading' }
  | { status: 'ready' }
  | { status: 'forbidden'; permission: string }
  | { status: 'failed'; message: string | undefined; requestId?: string | undefined };

/** The view of a failure: forbidden with the permission a 403 `forbidden` names, else failed. */
export function failedView(error: unknown): PageView {
  const failure = requestErrorOf(error);
  if (failure.code === 'forbidden') {
    const permission = failure.detail('permission');
    return { status: 'forbidden', permission: typeof permission === 'string' ? permission : '' };
  }
  return { status: 'failed', message: failure.serverMessage, requestId: failure.requestId };
}

/**
 * Loads with `fetch`, showing each view in turn (loading first unless `showLoading` is false: a reload keeps
 * what is shown); `followSession` sends the visitor away on a session answer (then nothing more is shown).
 */
export async function loadView(
  show: (view: PageView) => void,
  fetch: () => Promise<void>,
  followSession: (error: unknown) => boolean,
  showLoading = true,
): Promise<void> {
  if (showLoading) show({ status: 'loading' });
  try {
    await fetch();
    show({ status: 'ready' });
  } catch (error) {
    if (!followSession(error)) show(failedView(error));
  }
}
